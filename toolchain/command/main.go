// pulumi-resource-command: a small, local-only stand-in for the Pulumi "command" provider.
//
// The real provider (github.com/pulumi/pulumi-command/provider) and the library it is written
// with (github.com/pulumi/pulumi-go-provider) are refused by the Go module proxy on this
// machine, so scripts/toolchain.sh builds this instead. It speaks the same resource-provider
// gRPC protocol and the same tokens as @pulumi/command 1.2.1, for the local parts only:
//
//	command:local:Command  resource: runs `create` on create, `update` (or `create` again) on
//	                       update, `delete` on delete; changes to `triggers` replace it.
//	command:local:run      function: runs `command` and returns stdout/stderr.
//
// Supported inputs: create, update, delete, dir, environment, interpreter (default
// ["/bin/sh", "-c"]), stdin, triggers, addPreviousOutputInEnv (default true, sets
// PULUMI_COMMAND_STDOUT / PULUMI_COMMAND_STDERR for update and delete), logging (accepted,
// ignored). Outputs: the inputs plus stdout and stderr (trailing newline trimmed).
// Not supported (an error says so): command:remote:* and assetPaths / archivePaths.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"

	pbempty "google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/pulumi/pulumi/pkg/v3/resource/provider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/cmdutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// Version is stamped by scripts/toolchain.sh (-X main.Version=...).
var Version = "0.0.0-dev"

const (
	tokCommand = "command:local:Command"
	tokRun     = "command:local:run"
)

// Input properties of command:local:Command (outputs add stdout and stderr).
var inputKeys = []resource.PropertyKey{
	"create", "update", "delete", "dir", "environment", "interpreter", "stdin", "triggers",
	"addPreviousOutputInEnv", "assetPaths", "archivePaths", "logging",
}

type commandProvider struct {
	pulumirpc.UnimplementedResourceProviderServer
}

func main() {
	err := provider.Main("command", func(*provider.HostClient) (pulumirpc.ResourceProviderServer, error) {
		return &commandProvider{}, nil
	})
	if err != nil {
		cmdutil.ExitError(err.Error())
	}
}

// ---- marshalling -------------------------------------------------------------------------

func unmarshal(s *structpb.Struct) (resource.PropertyMap, error) {
	return plugin.UnmarshalProperties(s, plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true})
}

func marshal(m resource.PropertyMap) (*structpb.Struct, error) {
	return plugin.MarshalProperties(m, plugin.MarshalOptions{KeepUnknowns: true, SkipNulls: true})
}

func str(m resource.PropertyMap, k resource.PropertyKey) string {
	if v, ok := m[k]; ok && v.IsString() {
		return v.StringValue()
	}
	return ""
}

func boolOr(m resource.PropertyMap, k resource.PropertyKey, def bool) bool {
	if v, ok := m[k]; ok && v.IsBool() {
		return v.BoolValue()
	}
	return def
}

func hasUnknowns(m resource.PropertyMap) bool { return m.ContainsUnknowns() }

// ---- running commands --------------------------------------------------------------------

type run struct {
	command     string
	dir         string
	environment map[string]string
	interpreter []string
	stdin       string
}

func runFrom(in resource.PropertyMap, cmdKey resource.PropertyKey) (run, error) {
	r := run{command: str(in, cmdKey), dir: str(in, "dir"), stdin: str(in, "stdin")}
	if v, ok := in["environment"]; ok && v.IsObject() {
		r.environment = map[string]string{}
		for k, e := range v.ObjectValue() {
			if e.IsString() {
				r.environment[string(k)] = e.StringValue()
			}
		}
	}
	if v, ok := in["interpreter"]; ok && v.IsArray() {
		for _, e := range v.ArrayValue() {
			if e.IsString() {
				r.interpreter = append(r.interpreter, e.StringValue())
			}
		}
	}
	for _, k := range []resource.PropertyKey{"assetPaths", "archivePaths"} {
		if v, ok := in[k]; ok && !v.IsNull() {
			return r, fmt.Errorf("command provider (nvcf-pulumi build): %s is not supported", k)
		}
	}
	return r, nil
}

func (r run) exec(ctx context.Context, extraEnv map[string]string) (string, string, error) {
	interp := r.interpreter
	if len(interp) == 0 {
		interp = []string{"/bin/sh", "-c"}
	}
	args := append(append([]string{}, interp[1:]...), r.command)
	c := exec.CommandContext(ctx, interp[0], args...) // #nosec G204 -- running commands is the point
	c.Dir = r.dir
	c.Env = os.Environ()
	keys := make([]string, 0, len(r.environment))
	for k := range r.environment {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		c.Env = append(c.Env, k+"="+r.environment[k])
	}
	for k, v := range extraEnv {
		c.Env = append(c.Env, k+"="+v)
	}
	if r.stdin != "" {
		c.Stdin = strings.NewReader(r.stdin)
	}
	var stdout, stderr bytes.Buffer
	c.Stdout, c.Stderr = &stdout, &stderr
	err := c.Run()
	so := strings.TrimSuffix(stdout.String(), "\n")
	se := strings.TrimSuffix(stderr.String(), "\n")
	if err != nil {
		return so, se, fmt.Errorf("%w: running %q:\nStdout:\n%s\nStderr:\n%s", err, r.command, so, se)
	}
	return so, se, nil
}

func previousOutputEnv(in, olds resource.PropertyMap) map[string]string {
	if !boolOr(in, "addPreviousOutputInEnv", true) || olds == nil {
		return nil
	}
	return map[string]string{
		"PULUMI_COMMAND_STDOUT": str(olds, "stdout"),
		"PULUMI_COMMAND_STDERR": str(olds, "stderr"),
	}
}

func inputsOnly(m resource.PropertyMap) resource.PropertyMap {
	out := resource.PropertyMap{}
	for _, k := range inputKeys {
		if v, ok := m[k]; ok {
			out[k] = v
		}
	}
	return out
}

func withOutputs(in resource.PropertyMap, stdout, stderr resource.PropertyValue) resource.PropertyMap {
	out := inputsOnly(in)
	out["stdout"] = stdout
	out["stderr"] = stderr
	return out
}

func unknownString() resource.PropertyValue {
	return resource.MakeComputed(resource.NewStringProperty(""))
}

func checkType(t string) error {
	if t == tokCommand {
		return nil
	}
	return fmt.Errorf("command provider (nvcf-pulumi build): %s is not supported; only %s and %s are",
		t, tokCommand, tokRun)
}

func newID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ---- provider RPCs -----------------------------------------------------------------------

func (p *commandProvider) GetPluginInfo(context.Context, *pbempty.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: Version}, nil
}

func (p *commandProvider) GetSchema(context.Context, *pulumirpc.GetSchemaRequest) (*pulumirpc.GetSchemaResponse, error) {
	s, err := json.Marshal(map[string]any{
		"name":        "command",
		"version":     Version,
		"description": "Local-only stand-in for the Pulumi command provider (nvcf-pulumi toolchain).",
	})
	if err != nil {
		return nil, err
	}
	return &pulumirpc.GetSchemaResponse{Schema: string(s)}, nil
}

func (p *commandProvider) CheckConfig(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	return &pulumirpc.CheckResponse{Inputs: req.GetNews()}, nil
}

func (p *commandProvider) DiffConfig(context.Context, *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	return &pulumirpc.DiffResponse{Changes: pulumirpc.DiffResponse_DIFF_NONE}, nil
}

func (p *commandProvider) Configure(context.Context, *pulumirpc.ConfigureRequest) (*pulumirpc.ConfigureResponse, error) {
	// AcceptSecrets=false: the engine sends plain values and re-marks outputs whose inputs were secret.
	return &pulumirpc.ConfigureResponse{SupportsPreview: true}, nil
}

func (p *commandProvider) Check(_ context.Context, req *pulumirpc.CheckRequest) (*pulumirpc.CheckResponse, error) {
	if err := checkType(resource.URN(req.GetUrn()).Type().String()); err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	var failures []*pulumirpc.CheckFailure
	for _, k := range []resource.PropertyKey{"assetPaths", "archivePaths"} {
		if v, ok := news[k]; ok && !v.IsNull() {
			failures = append(failures, &pulumirpc.CheckFailure{
				Property: string(k), Reason: "not supported by this build of the command provider",
			})
		}
	}
	return &pulumirpc.CheckResponse{Inputs: req.GetNews(), Failures: failures}, nil
}

func (p *commandProvider) Diff(_ context.Context, req *pulumirpc.DiffRequest) (*pulumirpc.DiffResponse, error) {
	olds, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	var diffs, replaces []string
	detailed := map[string]*pulumirpc.PropertyDiff{}
	for _, k := range inputKeys {
		o, hasO := olds[k]
		n, hasN := news[k]
		if !hasO && !hasN {
			continue
		}
		if hasO && hasN && !n.ContainsUnknowns() && o.DeepEquals(n) {
			continue
		}
		kind := pulumirpc.PropertyDiff_UPDATE
		switch {
		case !hasO:
			kind = pulumirpc.PropertyDiff_ADD
		case !hasN:
			kind = pulumirpc.PropertyDiff_DELETE
		}
		if k == "triggers" {
			replaces = append(replaces, string(k))
			kind += pulumirpc.PropertyDiff_ADD_REPLACE - pulumirpc.PropertyDiff_ADD
		}
		diffs = append(diffs, string(k))
		detailed[string(k)] = &pulumirpc.PropertyDiff{Kind: kind, InputDiff: true}
	}
	changes := pulumirpc.DiffResponse_DIFF_NONE
	if len(diffs) > 0 {
		changes = pulumirpc.DiffResponse_DIFF_SOME
	}
	return &pulumirpc.DiffResponse{
		Changes: changes, Diffs: diffs, Replaces: replaces,
		DetailedDiff: detailed, HasDetailedDiff: true,
	}, nil
}

func (p *commandProvider) Create(ctx context.Context, req *pulumirpc.CreateRequest) (*pulumirpc.CreateResponse, error) {
	if err := checkType(resource.URN(req.GetUrn()).Type().String()); err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	id := resource.URN(req.GetUrn()).Name() + "-" + newID()
	var outs resource.PropertyMap
	if req.GetPreview() || hasUnknowns(news) {
		outs = withOutputs(news, unknownString(), unknownString())
		if !req.GetPreview() {
			return nil, fmt.Errorf("command:local:Command: inputs still unknown at create")
		}
	} else {
		r, err := runFrom(news, "create")
		if err != nil {
			return nil, err
		}
		stdout, stderr := "", ""
		if r.command != "" {
			if stdout, stderr, err = r.exec(ctx, nil); err != nil {
				return nil, err
			}
		}
		outs = withOutputs(news, resource.NewStringProperty(stdout), resource.NewStringProperty(stderr))
	}
	props, err := marshal(outs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.CreateResponse{Id: id, Properties: props}, nil
}

func (p *commandProvider) Update(ctx context.Context, req *pulumirpc.UpdateRequest) (*pulumirpc.UpdateResponse, error) {
	olds, err := unmarshal(req.GetOlds())
	if err != nil {
		return nil, err
	}
	news, err := unmarshal(req.GetNews())
	if err != nil {
		return nil, err
	}
	var outs resource.PropertyMap
	if req.GetPreview() || hasUnknowns(news) {
		outs = withOutputs(news, unknownString(), unknownString())
	} else {
		key := resource.PropertyKey("update")
		if str(news, "update") == "" {
			key = "create"
		}
		r, err := runFrom(news, key)
		if err != nil {
			return nil, err
		}
		stdout, stderr := "", ""
		if r.command != "" {
			if stdout, stderr, err = r.exec(ctx, previousOutputEnv(news, olds)); err != nil {
				return nil, err
			}
		}
		outs = withOutputs(news, resource.NewStringProperty(stdout), resource.NewStringProperty(stderr))
	}
	props, err := marshal(outs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.UpdateResponse{Properties: props}, nil
}

func (p *commandProvider) Delete(ctx context.Context, req *pulumirpc.DeleteRequest) (*pbempty.Empty, error) {
	olds, err := unmarshal(req.GetProperties())
	if err != nil {
		return nil, err
	}
	r, err := runFrom(olds, "delete")
	if err != nil {
		return nil, err
	}
	if r.command != "" {
		if _, _, err := r.exec(ctx, previousOutputEnv(olds, olds)); err != nil {
			return nil, err
		}
	}
	return &pbempty.Empty{}, nil
}

func (p *commandProvider) Read(_ context.Context, req *pulumirpc.ReadRequest) (*pulumirpc.ReadResponse, error) {
	// Nothing to look up: the state is what was recorded.
	return &pulumirpc.ReadResponse{Id: req.GetId(), Properties: req.GetProperties(), Inputs: req.GetInputs()}, nil
}

func (p *commandProvider) Invoke(ctx context.Context, req *pulumirpc.InvokeRequest) (*pulumirpc.InvokeResponse, error) {
	if req.GetTok() != tokRun {
		return nil, fmt.Errorf("command provider (nvcf-pulumi build): function %s is not supported; only %s is",
			req.GetTok(), tokRun)
	}
	args, err := unmarshal(req.GetArgs())
	if err != nil {
		return nil, err
	}
	r, err := runFrom(args, "command")
	if err != nil {
		return nil, err
	}
	stdout, stderr, err := r.exec(ctx, nil)
	if err != nil {
		return nil, err
	}
	outs := resource.PropertyMap{}
	for k, v := range args {
		outs[k] = v
	}
	outs["stdout"] = resource.NewStringProperty(stdout)
	outs["stderr"] = resource.NewStringProperty(stderr)
	ret, err := marshal(outs)
	if err != nil {
		return nil, err
	}
	return &pulumirpc.InvokeResponse{Return: ret}, nil
}

func (p *commandProvider) Cancel(context.Context, *pbempty.Empty) (*pbempty.Empty, error) {
	return &pbempty.Empty{}, nil
}
