// pulumi-resource-random: terraform-provider-random served through the Pulumi Terraform bridge.
// schema.json and bridge-metadata.json are generated into this directory by pulumi-tfgen-random
// during scripts/toolchain.sh (they are not committed).
package main

import (
	"context"
	_ "embed"

	pftfbridge "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfbridge"

	"nvcf.local/toolchain/random/info"
)

//go:embed schema.json
var schema []byte

//go:embed bridge-metadata.json
var metadata []byte

func main() {
	pftfbridge.Main(context.Background(), "random", info.Provider(metadata),
		pftfbridge.ProviderMetadata{PackageSchema: schema})
}
