// Wrapper main for pulumi-resource-kubernetes, built by scripts/toolchain.sh.
//
// The provider module's own main embeds schema-embed.json and terraform-mapping-embed.json,
// which are generated at release time and are not part of the module zip. toolchain.sh
// generates them next to this file (from the schema.json / terraform-mapping.json that the
// module does ship, with "version" set) and builds this package instead.
package main

import (
	_ "embed"

	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/provider"
	"github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version"
)

//go:embed schema-embed.json
var pulumiSchema []byte

//go:embed terraform-mapping-embed.json
var terraformMapping []byte

func main() {
	provider.Serve("kubernetes", version.Version, pulumiSchema, terraformMapping)
}
