// Package shim exposes terraform-provider-random's framework provider.
//
// The provider lives in an internal package; Go lets only packages below
// github.com/terraform-providers/terraform-provider-random import it, which is why this tiny
// module has that module path (it is wired in with a local replace by scripts/toolchain.sh).
package shim

import (
	"github.com/hashicorp/terraform-plugin-framework/provider"

	random "github.com/terraform-providers/terraform-provider-random/internal/provider"
)

// NewProvider returns the Terraform random provider.
func NewProvider() provider.Provider { return random.New() }
