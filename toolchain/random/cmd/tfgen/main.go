// pulumi-tfgen-random: run at build time (`schema --out DIR`) to write schema.json and
// bridge-metadata.json for the provider binary to embed.
package main

import (
	pftfgen "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfgen"

	"nvcf.local/toolchain/random/info"
)

func main() {
	pftfgen.Main("random", info.Provider(nil))
}
