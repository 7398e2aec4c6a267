// Package info maps terraform-provider-random onto the Pulumi "random" package, with the same
// tokens as @pulumi/random (random:index/<camelName>:<PascalName>, e.g.
// random_password -> random:index/randomPassword:RandomPassword).
package info

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"unicode"

	pftfbridge "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/pf/tfbridge"
	"github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfbridge"
	tfshim "github.com/pulumi/pulumi-terraform-bridge/v3/pkg/tfshim"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"

	"github.com/terraform-providers/terraform-provider-random/shim"
)

// Version is stamped by scripts/toolchain.sh (-X) with RANDOM_PROVIDER_VERSION.
var Version = "0.0.0-dev"

// pascal turns "random_password" into "RandomPassword".
func pascal(tf string) string {
	var b strings.Builder
	for _, part := range strings.Split(tf, "_") {
		if part == "" {
			continue
		}
		r := []rune(part)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

// bytesID: random_bytes has no "id" attribute; use its base64 value, as @pulumi/random does.
func bytesID(_ context.Context, state resource.PropertyMap) (resource.ID, error) {
	v, ok := state["base64"]
	if !ok {
		return "", fmt.Errorf("random_bytes: no base64 property in state")
	}
	if v.IsSecret() {
		v = v.SecretValue().Element
	}
	if !v.IsString() {
		return "", fmt.Errorf("random_bytes: base64 property is not a string")
	}
	return resource.ID(v.StringValue()), nil
}

// Provider returns the bridge ProviderInfo; metadata is bridge-metadata.json as written by tfgen
// (nil when running tfgen itself).
func Provider(metadata []byte) tfbridge.ProviderInfo {
	p := pftfbridge.ShimProvider(shim.NewProvider())

	var names []string
	p.ResourcesMap().Range(func(key string, _ tfshim.Resource) bool {
		names = append(names, key)
		return true
	})
	sort.Strings(names)

	resources := map[string]*tfbridge.ResourceInfo{}
	for _, tf := range names {
		typ := pascal(tf)
		file := string(unicode.ToLower(rune(typ[0]))) + typ[1:]
		ri := &tfbridge.ResourceInfo{Tok: tokens.Type("random:index/" + file + ":" + typ)}
		if tf == "random_bytes" {
			ri.ComputeID = bytesID
		}
		resources[tf] = ri
	}

	return tfbridge.ProviderInfo{
		P:            p,
		Name:         "random",
		Version:      Version,
		Description:  "A Pulumi package to safely use randomness in Pulumi programs.",
		Keywords:     []string{"pulumi", "random"},
		License:      "Apache-2.0",
		Homepage:     "https://pulumi.io",
		Repository:   "https://github.com/pulumi/pulumi-random",
		Resources:    resources,
		MetadataInfo: tfbridge.NewProviderMetadata(metadata),
		JavaScript:   &tfbridge.JavaScriptInfo{},
		Python:       &tfbridge.PythonInfo{},
		Golang:       &tfbridge.GolangInfo{},
		CSharp:       &tfbridge.CSharpInfo{},
	}
}
