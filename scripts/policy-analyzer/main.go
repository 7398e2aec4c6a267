// Command pulumi-language-nodejs (nvcf policy front) puts the policy-pack support of Pulumi 3.248's Node.js
// language host in front of the embedded one.
//
// Why: pulumi 3.248 starts a Node.js policy pack (`pulumi preview --policy-pack <dir>` with a PulumiPolicy.yaml
// of `runtime: nodejs`) through the language host's RunPlugin RPC (pkg/resource/plugin ExecPlugin; the old
// `pulumi-analyzer-policy` launcher is only looked for when no language host for the runtime exists, and the
// nodejs host is always bundled next to the CLI). The embedded toolchain's host is built from sdk/v3 v3.68.0
// (toolchain/versions.env), whose RunPlugin answers "not supported", so every policy pack fails to start.
//
// What it does: it starts the embedded host (`real/pulumi-language-nodejs` next to this binary, a symlink made
// by scripts/policy-analyzer.sh) with the same arguments and forwards every gRPC call to it byte for byte,
// except RunPlugin for kind "analyzer". That one it serves as the current host does: it answers the engine
// through the SDK's policy proxy (sdk/v3 package `sdk`, NewPolicyProxy), waits for the engine's ConfigureStack,
// then runs `node <@pulumi/pulumi/cmd/run-policy-pack> <args> <pack dir>` in the pack directory with the stack's
// organization, project, stack, dry-run flag and configuration in PULUMI_NODEJS_* / PULUMI_CONFIG, and attaches
// the proxy to it. A real Pulumi CLI never needs this program.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/pulumi/pulumi/sdk/v3"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

const runPluginMethod = "/pulumirpc.LanguageRuntime/RunPlugin"

// frame is one gRPC message as bytes: forwarded calls are never decoded.
type frame struct{ data []byte }

// codec passes frames through untouched and (un)marshals protobuf messages for the calls served here.
type codec struct{}

func (codec) Name() string { return "proto" }

func (codec) Marshal(v any) ([]byte, error) {
	if f, ok := v.(*frame); ok {
		return f.data, nil
	}
	return proto.Marshal(v.(proto.Message))
}

func (codec) Unmarshal(data []byte, v any) error {
	if f, ok := v.(*frame); ok {
		f.data = append([]byte(nil), data...)
		return nil
	}
	return proto.Unmarshal(data, v.(proto.Message))
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-nodejs (nvcf policy front): %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	real := filepath.Join(filepath.Dir(self), "real", "pulumi-language-nodejs")
	backend := exec.Command(real, os.Args[1:]...)
	backend.Stderr = os.Stderr
	backend.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := backend.StdoutPipe()
	if err != nil {
		return err
	}
	if err := backend.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", real, err)
	}
	reader := bufio.NewReader(out)
	line, err := reader.ReadString('\n')
	if err != nil {
		return fmt.Errorf("reading the port of %s: %w", real, err)
	}
	port, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		return fmt.Errorf("%s printed %q instead of its port", real, line)
	}
	go func() { _, _ = io.Copy(os.Stdout, reader) }()

	conn, err := grpc.NewClient(fmt.Sprintf("127.0.0.1:%d", port),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.ForceCodec(codec{}), grpc.MaxCallRecvMsgSize(400*1024*1024),
			grpc.MaxCallSendMsgSize(400*1024*1024)))
	if err != nil {
		return err
	}
	f := &front{backend: conn}
	srv := grpc.NewServer(grpc.ForceServerCodec(codec{}), grpc.UnknownServiceHandler(f.handle),
		grpc.MaxRecvMsgSize(400*1024*1024), grpc.MaxSendMsgSize(400*1024*1024))
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	fmt.Printf("%d\n", lis.Addr().(*net.TCPAddr).Port)

	// The engine stops a language host by killing it; when the embedded host ends, so do we.
	go func() {
		_ = backend.Wait()
		srv.Stop()
	}()
	return srv.Serve(lis)
}

// front forwards every call to the embedded host, except RunPlugin of a policy pack.
type front struct{ backend *grpc.ClientConn }

func (f *front) handle(_ any, stream grpc.ServerStream) error {
	method, ok := grpc.MethodFromServerStream(stream)
	if !ok {
		return errors.New("no method on stream")
	}
	if method == runPluginMethod {
		var first frame
		if err := stream.RecvMsg(&first); err != nil {
			return err
		}
		var req pulumirpc.RunPluginRequest
		if err := proto.Unmarshal(first.data, &req); err != nil {
			return err
		}
		if req.GetKind() == "analyzer" {
			return runPolicyPack(&req, &runPluginStream{stream})
		}
		return f.forward(stream, method, &first)
	}
	return f.forward(stream, method, nil)
}

// forward relays one call (any shape) to the embedded host; `first` is a request frame already read.
func (f *front) forward(stream grpc.ServerStream, method string, first *frame) error {
	ctx, cancel := context.WithCancel(stream.Context())
	defer cancel()
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		ctx = metadata.NewOutgoingContext(ctx, md.Copy())
	}
	client, err := f.backend.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return err
	}
	upDone := make(chan error, 1)
	go func() {
		if first != nil {
			if err := client.SendMsg(first); err != nil {
				upDone <- err
				return
			}
		}
		for {
			var m frame
			if err := stream.RecvMsg(&m); err != nil {
				if errors.Is(err, io.EOF) {
					upDone <- client.CloseSend()
				} else {
					upDone <- err
				}
				return
			}
			if err := client.SendMsg(&m); err != nil {
				upDone <- err
				return
			}
		}
	}()
	headerSent := false
	for {
		var m frame
		err := client.RecvMsg(&m)
		if !headerSent {
			if h, herr := client.Header(); herr == nil {
				_ = stream.SendHeader(h)
			}
			headerSent = true
		}
		if err != nil {
			stream.SetTrailer(client.Trailer())
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if err := stream.SendMsg(&m); err != nil {
			return err
		}
	}
}

// runPluginStream lets the SDK's stream helpers send RunPluginResponse messages on a raw stream.
type runPluginStream struct{ grpc.ServerStream }

func (s *runPluginStream) Send(m *pulumirpc.RunPluginResponse) error { return s.SendMsg(m) }

// runPolicyModule finds @pulumi/pulumi/cmd/run-policy-pack the way Node resolves it from the pack directory.
func runPolicyModule(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "node_modules", "@pulumi", "pulumi", "cmd", "run-policy-pack")
		if _, err := os.Stat(filepath.Join(p, "index.js")); err == nil {
			return p, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("@pulumi/pulumi/cmd/run-policy-pack not found from %s: run npm ci", dir)
		}
	}
}

// runPolicyPack starts the policy pack the way pulumi 3.248's Node.js host does (see the package comment).
func runPolicyPack(req *pulumirpc.RunPluginRequest, server *runPluginStream) error {
	ctx := server.Context()
	closer, stdout, stderr, err := rpcutil.MakeRunPluginStreams(server, false)
	if err != nil {
		return err
	}
	defer closer.Close()
	dir := req.GetInfo().GetProgramDirectory()
	if dir == "" {
		dir = req.GetPwd()
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return err
	}
	module, err := runPolicyModule(dir)
	if err != nil {
		return err
	}
	env := append([]string{}, req.GetEnv()...)
	opts := req.GetInfo().GetOptions().AsMap()
	if ts, ok := opts["typescript"].(bool); !ok || ts {
		env = append(env, "PULUMI_NODEJS_TYPESCRIPT=true")
	}
	if p, ok := opts["tsconfig"].(string); ok && p != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+p)
	}
	args := append([]string{module}, req.GetArgs()...)
	args = append(args, dir)

	proxy, stdout, err := sdk.NewPolicyProxy(ctx, stdout)
	if err != nil {
		return fmt.Errorf("could not start policy pack proxy: %w", err)
	}
	cfg, err := proxy.AwaitConfiguration(ctx)
	if err != nil {
		return fmt.Errorf("could not get stack configuration: %w", err)
	}
	if cfg != nil {
		add := func(k, v string) {
			if v != "" {
				env = append(env, k+"="+v)
			}
		}
		add("PULUMI_NODEJS_ORGANIZATION", cfg.GetOrganization())
		add("PULUMI_NODEJS_PROJECT", cfg.GetProject())
		add("PULUMI_NODEJS_STACK", cfg.GetStack())
		add("PULUMI_NODEJS_DRY_RUN", strconv.FormatBool(cfg.GetDryRun()))
		if cfg.GetConfig() != nil {
			b, err := json.Marshal(cfg.GetConfig())
			if err != nil {
				return err
			}
			add("PULUMI_CONFIG", string(b))
		}
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("could not run the policy pack: %w", err)
	}
	if err := proxy.Attach(ctx, cmd); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return fmt.Errorf("policy pack exited with code %d", exit.ExitCode())
		}
		return err
	}
	return closer.Close()
}
