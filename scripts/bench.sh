#!/usr/bin/env bash
# Benchmark (prints figures; not a test). Everything runs in a private directory (own kwok clusters, state,
# ICMS and a copy of the project), never in the checkout's or the default local clusters:
#   bash scripts/bench.sh [RUNS=3]
# Environment: NVCF_BENCH_DIR (default: a new /tmp/nvcf-bench.*; removed at the end unless given),
# NVCF_BENCH_SCALE (readiness profile scale, default 20: one documented minute takes three seconds; Helm's own
# time per release is not scaled, and at 60 it outweighs the profile's figures, docs/performance.md#the-scale),
# NVCF_BENCH_PARTS (default base,real,upgrade: `base` = previews, up, GPU stacks; `real` = the readiness profile;
# `upgrade` = the 0.7.0 → 0.8.0 upgrade under the readiness profile).
#
# Per run, as ratios measured in the same run (the machine may be shared: ratios, not seconds, are the figures):
#   preview-noop/empty        no-op `pulumi preview -s dev` ÷ `pulumi preview` of an empty TypeScript program
#                             (same engine, same node_modules, same transpile-only setting); the empty program's
#                             preview is taken just before and just after the program's, and the ratio is over
#                             their mean, so both sides see the same state of the machine (the program's preview
#                             comes right after `pulumi up`, while the cluster still settles).
#                             preview-noop/empty-after: over the one taken after only (the earlier method, for older figures)
#   preview-one-change-s, preview-noop-again-s, preview-one-change-over-noop-s
#                             `pulumi preview -s dev` with one release's values changed (its server-side dry run
#                             included), a no-op preview right after it, and what the change adds over that one
#                             (seconds)
#   up-phase/critical-path    `pulumi up -s dev` from nothing: resource phase ÷ the longest chain of the same run's
#                             step durations over the state's dependencies (tools/bench-analyze.ts)
#   real-helmfile/install     under the readiness profile (scripts/cluster.sh NVCF_READINESS_PROFILE=real): the
#                             same run's release durations scheduled with Helmfile's stage barriers
#                             (tools/bench-stages.ts) ÷ the program's install (resource phase); its inverse too
#   real-release-max-over-profile, real-release-min-over-profile, real-release-helm-only-s
#                             under the readiness profile: the largest and smallest measured ÷ profile duration of a
#                             release (profile: its documented figure, readiness steps x per-pod delay; a step
#                             missed pushes the largest up, a step too many the smallest below 1), and the median
#                             duration of the releases that make no pod (Helm's own time, not scaled); before the
#                             closing table, one line per release (steps from bash scripts/cluster.sh readiness)
#   gpu-parallel-N/1          N compute-plane stacks brought up from nothing by one `nvcf up --stack ...` (the
#                             command runs them side by side, the program inline in its own process) ÷ one, N = 1,
#                             2, 4 (NVCF_BENCH_GPU_N, starting with 1): the span from the first stack's start to
#                             the last one's end in its progress lines; the four are configured alike (dev-gpu-a's
#                             config, see below)
#   gpu-release-start-N-s, gpu-release-start-N/1, gpu-cpu-busy-N
#                             the same runs up to the last stack's start of its NVCA operator release ("release
#                             nvca-operator installing"): the span and its ratio to one stack's, which leave out
#                             Helm's readiness wait (a check at once, then every 2 s:
#                             docs/performance.md#helms-readiness-poll), and the share of the machine's CPU time that
#                             was busy over that span (/proc/stat, sampled every 0.1 s; 1.00 = every CPU busy
#                             throughout, i.e. the start-ups wait for CPU)
#   gpu-nvcf-N-command-s, gpu-nvcf-N-cpu-s
#                             the whole `nvcf up` of N stacks (config check, preflight, updates, verification):
#                             wall seconds, and CPU seconds of the command and every process below it
#   gpu-1-cpu-s, gpu-1-cluster-cpu-s, gpu-up-phase/critical-path
#                             one compute-plane `pulumi up -s dev-gpu-a` through the CLI: CPU seconds of the CLI and
#                             every process below it (program, language host, plugins, kubectl), its kwok cluster's
#                             processes over the same time, and its resource phase ÷ its critical path
#   upgrade-s, upgrade-critical-path-s, upgrade-phase/critical-path
#                             under the readiness profile: `pulumi up -s dev` moving a dev control plane installed at
#                             bundle 0.7.0 to 0.8.0 (the OpenBao phase, Cassandra's in-place adoption, the other
#                             releases that change; upgrade/plan.ts): its resource phase, the longest chain
#                             of the same run's step durations over the dependencies the move records (its phases and
#                             the changing releases), and their ratio; the chain itself in upgrade-chain-<run>
#   rehearse-upgrade-s, rehearse/upgrade
#                             the same move rehearsed first (`nvcf rehearse --env dev --stack dev`, docs/rehearsals.md:
#                             a replica of nvcf-dev made, seeded, the move run on it, the report, the replica deleted),
#                             wall seconds of the whole command, and its ratio to the real move's resource phase
#   load-*                    the 1-minute load average when the figure of the same name was taken
#   startup-control/compute   command start to the engine's first resource from the program (seconds)
# Closing table: min / median / max over the runs.
#
# The whole script is one compound command ({ ... }), which bash reads completely before running it: editing the
# checkout (this file included) while a benchmark runs does not change the run.
{
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
RUNS="${1:-3}"
SCALE="${NVCF_BENCH_SCALE:-20}"
GPU_N="${NVCF_BENCH_GPU_N:-1 2 4}"
# Which parts run: base (previews, up, GPU stacks in parallel) and/or real (the readiness profile).
PARTS="${NVCF_BENCH_PARTS:-base,real,upgrade}"
part() { case ",$PARTS," in *",$1,"*) return 0 ;; *) return 1 ;; esac; }
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
bash scripts/toolchain.sh >/dev/null
# shellcheck source=scripts/env.sh
source scripts/env.sh
bash scripts/npm-install.sh

keep_dir=1
if [ -z "${NVCF_BENCH_DIR:-}" ]; then
  NVCF_BENCH_DIR=$(mktemp -d /tmp/nvcf-bench.XXXXXX)
  keep_dir=0
fi
export NVCF_LOCAL_DIR="$NVCF_BENCH_DIR"
unset PULUMI_BACKEND_URL NVCF_CLI_ICMS_DIR NVCF_CLI_API_DIR KUBECONFIG_NVCF
# shellcheck source=scripts/stack-env.sh
source scripts/stack-env.sh
# `--event-log` is shown by the CLI only with debug commands on.
export PULUMI_DEBUG_COMMANDS=true
# Resource operations at once: the engine's default is 4 x CPUs (8 on a 2-CPU machine, fewer than the releases a
# Helmfile layer starts together); NVCF_BENCH_PARALLEL=0 keeps the default.
PARALLEL="${NVCF_BENCH_PARALLEL:-32}"
if [ "$PARALLEL" != 0 ]; then export PULUMI_PARALLEL="$PARALLEL"; fi
GPU_CLUSTERS=(nvcf-gpu-a nvcf-gpu-b nvcf-gpu-c nvcf-gpu-d)
ANALYZE=(node -r ts-node/register/transpile-only "$ROOT/tools/bench-analyze.ts")
rows="$NVCF_LOCAL_DIR/rows"
: >"$rows"

cleanup() {
  set +e
  bash "$ROOT/scripts/cluster.sh" down nvcf-dev "${GPU_CLUSTERS[@]}" >/dev/null 2>&1
  [ "$keep_dir" = 1 ] || rm -rf "$NVCF_BENCH_DIR"
}
trap cleanup EXIT

# A private copy of the project with two more GPU clusters (gpu-c, gpu-d) registered by the control plane.
proj="$NVCF_LOCAL_DIR/project"
rm -rf "$proj" && mkdir -p "$proj"
tar -C "$ROOT" --exclude=./.git --exclude=./node_modules --exclude=./coverage -cf - . | tar -C "$proj" -xf -
ln -s "$ROOT/node_modules" "$proj/node_modules"
# The parallel GPU stacks are alike: dev-gpu-b of the checkout is the all-add-ons cluster (KAI, Grove, Dynamo and
# their topology releases: five more releases, a critical path about three times dev-gpu-a's), so four stacks
# with it would measure that one stack's own length, not running in parallel. In the copy, gpu-b, gpu-c and
# gpu-d are configured as gpu-a is (the control plane registers all four).
for c in b c d; do
  sed -e "s/gpu-a/gpu-$c/g" "$ROOT/Pulumi.dev-gpu-a.yaml" >"$proj/Pulumi.dev-gpu-$c.yaml"
done
awk '{ print } /^      context: kwok-nvcf-gpu-b$/ {
  for (i = 0; i < 2; i++) { c = i ? "d" : "c"; print "    - name: gpu-" c; print "      region: us-west-2"; print "      context: kwok-nvcf-gpu-" c }
}' "$ROOT/Pulumi.dev.yaml" >"$proj/Pulumi.dev.yaml"
grep -q "context: kwok-nvcf-gpu-d" "$proj/Pulumi.dev.yaml" || die "could not add gpu-c/gpu-d to the copy of Pulumi.dev.yaml"

# The empty program: same engine, same node_modules, TypeScript transpile-only as the project.
empty="$NVCF_LOCAL_DIR/empty"
mkdir -p "$empty"
printf 'name: bench-empty\nruntime:\n  name: nodejs\n  options:\n    typescript: true\n    tsconfig: tsconfig.pulumi.json\n' >"$empty/Pulumi.yaml"
printf 'import * as pulumi from "@pulumi/pulumi";\n\nexport const stack = pulumi.getStack();\n' >"$empty/index.ts"
printf '{"name":"bench-empty","main":"index.ts","devDependencies":{"typescript":"*","ts-node":"*"},"dependencies":{"@pulumi/pulumi":"*"}}\n' >"$empty/package.json"
cp "$ROOT/tsconfig.pulumi.json" "$empty/tsconfig.pulumi.json"
printf '{"compilerOptions":{"strict":true,"target":"ES2022","module":"commonjs","moduleResolution":"node","sourceMap":true,"skipLibCheck":true}}\n' >"$empty/tsconfig.json"
ln -sfn "$ROOT/node_modules" "$empty/node_modules"

# Every `pulumi` below runs with SIGINT at its default disposition (scripts/lib.sh sigint_default): started in the
# background, this script and its `&` jobs have it ignored, which adds 5 s to every CLI command (the CLI waits
# that long for plugins that ignore its SIGINT) and would flatten the preview ratio towards 1.
pulumi() { sigint_default pulumi "$@"; }

ms() { date +%s%3N; }
load1() { cut -d' ' -f1 /proc/loadavg; }
# Runs a command as a child subreaper and writes the CPU seconds (user + system) of it and of every process below
# it to <file>: the CLI does not wait for every plugin and language host it ends, so `time` alone misses them;
# here they are reparented to this process when their parent exits and reaped, so their CPU counts.
cpu_run() { # file cmd...
  python3 -c '
import ctypes, os, resource, signal, sys
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
pid = os.fork()
if pid == 0:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as sigint_default (above)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    os.execvp(sys.argv[2], sys.argv[2:])
rc = 1
while True:
    try:
        p, st = os.wait()
    except ChildProcessError:
        break
    if p == pid:
        rc = os.waitstatus_to_exitcode(st)
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], "w").write("%.3f %.3f\n" % (r.ru_utime, r.ru_stime))
sys.exit(rc if rc >= 0 else 1)
' "$@"
}
# CPU seconds (user + system) of a cpu_run file.
cpu_s() { awk '{ printf "%.3f", $1 + $2 }' "$1"; }
# CPU seconds (user + system) the processes of a local cluster have used so far (kwokctl's pid files).
cluster_cpu() { # cluster name
  local tick f pid sum=0
  tick=$(getconf CLK_TCK)
  for f in "$NVCF_LOCAL_DIR/kwok/clusters/$1/pids/"*.pid; do
    pid=$(cat "$f" 2>/dev/null) || continue
    [ -r "/proc/$pid/stat" ] || continue
    sum=$((sum + $(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat")))
  done
  awk -v s="$sum" -v t="$tick" 'BEGIN { printf "%.3f", s / t }'
}
row() { echo "$1 $2" >>"$rows"; }
secs() { awk -v a="$1" 'BEGIN { printf "%.3f", a / 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }

# Runs `pulumi up` of a stack in the project copy from nothing with its engine event log stamped on arrival
# (tools/bench-analyze.ts stamp, started first and reading its FIFO before the command starts), and prints the
# figures (tools/bench-analyze.ts RunFigures, one JSON line). Files: $NVCF_LOCAL_DIR/<tag>.{fifo,events,log,cpu,
# state.json}.
up_with_log() { # stack tag
  local stack=$1 tag=$2 t0 sp w
  local fifo="$NVCF_LOCAL_DIR/$tag.fifo" out="$NVCF_LOCAL_DIR/$tag.events"
  rm -f "$fifo" "$out" "$out.ready"
  mkfifo "$fifo"
  (cd "$proj" && exec "${ANALYZE[@]}" stamp "$fifo" "$out") &
  sp=$!
  while [ ! -e "$out.ready" ]; do sleep 0.05; done
  t0=$(ms)
  # CPU seconds of the CLI and every process below it (program, language host, plugins, kubectl): cpu_run.
  if ! (cd "$proj" && cpu_run "$NVCF_LOCAL_DIR/$tag.cpu" pulumi up -s "$stack" --yes --skip-preview --event-log "$fifo" >"$NVCF_LOCAL_DIR/$tag.log" 2>&1); then
    kill "$sp" 2>/dev/null || true
    tail -30 "$NVCF_LOCAL_DIR/$tag.log" >&2
    die "pulumi up -s $stack failed (log: $NVCF_LOCAL_DIR/$tag.log)"
  fi
  # The stamper ends at the engine's closing event (bounded: at most 10 s).
  for w in $(seq 1 200); do kill -0 "$sp" 2>/dev/null || break; sleep 0.05; done
  (cd "$proj" && pulumi stack export -s "$stack" >"$NVCF_LOCAL_DIR/$tag.state.json")
  (cd "$proj" && "${ANALYZE[@]}" run "$out" "$NVCF_LOCAL_DIR/$tag.state.json" "$t0")
}
field() { node -e 'const f = JSON.parse(process.argv[1]); console.log(f[process.argv[2]]);' "$1" "$2"; }
destroy() { (cd "$proj" && pulumi destroy -s "$1" --yes --skip-preview >"$NVCF_LOCAL_DIR/destroy-$1.log" 2>&1) || die "pulumi destroy -s $1 failed"; }
timed_ms() { # cmd... ; prints elapsed ms
  local t0
  t0=$(ms)
  "$@" >/dev/null 2>&1 || return 1
  echo $(($(ms) - t0))
}

for s in dev dev-gpu-a dev-gpu-b dev-gpu-c dev-gpu-d; do (cd "$proj" && pulumi stack select --create "$s" >/dev/null); done
(cd "$empty" && pulumi stack select --create empty >/dev/null && pulumi up -s empty --yes --skip-preview >/dev/null)

log "bench dir $NVCF_LOCAL_DIR; $RUNS runs; machine load: $(cut -d' ' -f1-3 /proc/loadavg)"
# A loaded machine can make a cluster's first start fail (a port taken meanwhile by another cluster, a slow
# start): up to three attempts, each cluster on its own.
clusters_up() {
  local c a
  for c in "$@"; do
    for a in 1 2 3; do
      bash scripts/cluster.sh up "$c" >/dev/null && continue 2
      log "cluster $c: attempt $a failed; recreating it"
      bash scripts/cluster.sh down "$c" >/dev/null
    done
    die "cluster $c does not start"
  done
}
clusters_up nvcf-dev "${GPU_CLUSTERS[@]}"
for i in $(seq 1 "$RUNS"); do
  part base || break
  l=$(load1)
  log "run $i/$RUNS: pulumi up -s dev (load $l)"
  row load-up-dev "$l"
  f=$(up_with_log dev "up-dev-$i")
  row startup-control-s "$(secs "$(field "$f" startupMs)")"
  row up-phase-s "$(secs "$(field "$f" resourcePhaseMs)")"
  row up-critical-path-s "$(secs "$(field "$f" criticalPathMs)")"
  row up-phase/critical-path "$(ratio "$(field "$f" resourcePhaseMs)" "$(field "$f" criticalPathMs)")"

  l=$(load1)
  log "run $i/$RUNS: no-op previews (empty program, program, empty program; load $l)"
  row load-preview "$l"
  e0=$(cd "$empty" && timed_ms pulumi preview -s empty --expect-no-changes) || die "preview of the empty program failed"
  p=$(cd "$proj" && timed_ms pulumi preview -s dev --expect-no-changes) || die "no-op preview of dev shows changes or fails"
  e=$(cd "$empty" && timed_ms pulumi preview -s empty --expect-no-changes) || die "preview of the empty program failed"
  row preview-noop-s "$(secs "$p")"
  row preview-empty-s "$(secs "$(((e0 + e) / 2))")"
  row preview-noop/empty "$(ratio "$p" "$(((e0 + e) / 2))")"
  row preview-noop/empty-after "$(ratio "$p" "$e")"
  # One changed release (api-keys' replica count): the preview renders it and dry-runs its objects on the API
  # server (engine/dryRun.ts); the figure over the no-op preview is what that release adds.
  (cd "$proj" && pulumi config set -s dev --path nvcf:releaseValues.api-keys.apikeys.replicaCount 2 >/dev/null)
  c=$(cd "$proj" && timed_ms pulumi preview -s dev) || die "one-change preview of dev failed"
  (cd "$proj" && pulumi config rm -s dev nvcf:releaseValues >/dev/null)
  # The no-op preview again, right after it (the first one follows `pulumi up` while the cluster still settles).
  p2=$(cd "$proj" && timed_ms pulumi preview -s dev --expect-no-changes) || die "no-op preview of dev shows changes or fails"
  row preview-noop-again-s "$(secs "$p2")"
  row preview-one-change-s "$(secs "$c")"
  row preview-one-change-over-noop-s "$(secs "$((c - p2))")"

  # One compute-plane stack through the CLI with its event log: start-up, resource phase against its critical
  # path, and the CPU of the CLI's process tree (and of its cluster) as a user's `pulumi up` spends it.
  log "run $i/$RUNS: pulumi up -s dev-gpu-a (load $(load1))"
  kc0=$(cluster_cpu nvcf-gpu-a)
  f=$(up_with_log dev-gpu-a "up-gpu-a-cli-$i")
  row gpu-1-cpu-s "$(cpu_s "$NVCF_LOCAL_DIR/up-gpu-a-cli-$i.cpu")"
  row gpu-1-cluster-cpu-s "$(awk -v k0="$kc0" -v k1="$(cluster_cpu nvcf-gpu-a)" 'BEGIN { printf "%.3f", k1 - k0 }')"
  row startup-compute-s "$(secs "$(field "$f" startupMs)")"
  row gpu-up-phase/critical-path "$(ratio "$(field "$f" resourcePhaseMs)" "$(field "$f" criticalPathMs)")"
  destroy dev-gpu-a

  # N compute-plane stacks through the nvcf command (`nvcf up --stack ...`: config check, preflight, the N
  # updates at once, verification). The figure is the updates' span: from the first stack's "up started" line to
  # the last one's "up done" line of its plain progress, each line stamped when it arrives.
  one=0
  rone=0
  for n in $GPU_N; do
    letters=(a b c d)
    args=()
    for c in "${letters[@]:0:$n}"; do args+=(--stack "dev-gpu-$c"); done
    l=$(load1)
    log "run $i/$RUNS: nvcf up of $n GPU stack(s) (load $l)"
    row "load-gpu-parallel-$n" "$l"
    tag="nvcf-gpu-$n-$i"
    # The machine's CPU counters every 0.1 s while the command runs (one process for all samples).
    cpu_samples >"$NVCF_LOCAL_DIR/$tag.stat" &
    sampler=$!
    t0=$(ms)
    status=0
    (cd "$proj" && cpu_run "$NVCF_LOCAL_DIR/$tag.cpu" node cli/nvcf.js up --env dev "${args[@]}" --parallel 4 --yes --plain 2>"$NVCF_LOCAL_DIR/$tag.err" |
      while IFS= read -r line; do printf '%s\t%s\n' "${EPOCHREALTIME/./}" "$line"; done >"$NVCF_LOCAL_DIR/$tag.lines") || status=$?
    t1=$(ms)
    kill "$sampler" 2>/dev/null || true
    wait "$sampler" 2>/dev/null || true
    if [ "$status" != 0 ]; then
      cat "$NVCF_LOCAL_DIR/$tag.lines" "$NVCF_LOCAL_DIR/$tag.err" >&2
      die "nvcf up of $n GPU stack(s) failed (output: $NVCF_LOCAL_DIR/$tag.lines)"
    fi
    row "gpu-nvcf-$n-command-s" "$(secs $((t1 - t0)))"
    row "gpu-nvcf-$n-cpu-s" "$(cpu_s "$NVCF_LOCAL_DIR/$tag.cpu")"
    # Microsecond stamps of the dev-gpu-* stacks: the first "up started", the last "up done", the last release
    # start ("release nvca-operator installing").
    read -r s0 s1 s2 < <(awk -F '\t' '$2 ~ / dev-gpu-[a-d] +up started$/ && (s == "" || $1 < s) { s = $1 }
      $2 ~ / dev-gpu-[a-d] +up done in / && $1 > e { e = $1 }
      $2 ~ / dev-gpu-[a-d] +release nvca-operator installing$/ && $1 > r { r = $1 }
      function or_dash(v) { return v == "" ? "-" : v } END { print or_dash(s), or_dash(e), or_dash(r) }' "$NVCF_LOCAL_DIR/$tag.lines")
    [ "$s0" != - ] && [ "$s1" != - ] || die "no stack start/end lines in the output of nvcf up ($NVCF_LOCAL_DIR/$tag.lines)"
    [ "$s2" != - ] || die "no release start line in the output of nvcf up ($NVCF_LOCAL_DIR/$tag.lines)"
    w=$(((s1 - s0) / 1000))
    [ "$n" != 1 ] || one=$w
    row "gpu-parallel-$n-s" "$(secs "$w")"
    row "gpu-parallel-$n/1" "$(ratio "$w" "$one")"
    # Up to the last stack's release start, and how busy the CPUs were over that span.
    r=$(((s2 - s0) / 1000))
    [ "$n" != 1 ] || rone=$r
    row "gpu-release-start-$n-s" "$(secs "$r")"
    row "gpu-release-start-$n/1" "$(ratio "$r" "$rone")"
    row "gpu-cpu-busy-$n" "$(cpu_busy "$NVCF_LOCAL_DIR/$tag.stat" "$s0" "$s2")"
    for c in "${letters[@]:0:$n}"; do destroy "dev-gpu-$c" & done
    wait
  done
  log "run $i/$RUNS: pulumi destroy -s dev"
  destroy dev
done

if part real || part upgrade; then
  log "readiness profile: recreating nvcf-dev with NVCF_READINESS_PROFILE=real, scale 1/$SCALE"
  bash scripts/cluster.sh down nvcf-dev >/dev/null
  NVCF_READINESS_PROFILE=real NVCF_READINESS_SCALE="$SCALE" clusters_up nvcf-dev
  # The profile's figures (per release: documented minutes, readiness steps, per-pod delay at this scale).
  NVCF_READINESS_SCALE="$SCALE" bash scripts/cluster.sh readiness >"$NVCF_LOCAL_DIR/readiness-profile"
fi
for i in $(seq 1 "$RUNS"); do
  part real || break
  l=$(load1)
  log "run $i/$RUNS: pulumi up -s dev under the readiness profile (load $l)"
  row load-real "$l"
  f=$(up_with_log dev "up-dev-real-$i")
  echo "$f" >"$NVCF_LOCAL_DIR/figures-real-$i.json"
  install=$(field "$f" resourcePhaseMs)
  sched=$(field "$f" stageScheduleMs)
  row real-install-s "$(secs "$install")"
  row real-helmfile-schedule-s "$(secs "$sched")"
  row real-helmfile/install "$(ratio "$sched" "$install")"
  row real-install/helmfile "$(ratio "$install" "$sched")"
  row real-phase/critical-path "$(ratio "$install" "$(field "$f" criticalPathMs)")"
  # Each release's measured install against the profile's figure for it (steps x per-pod delay).
  "${ANALYZE[@]}" release-rows "$NVCF_LOCAL_DIR/readiness-profile" "$NVCF_LOCAL_DIR/figures-real-$i.json" >>"$rows"
  destroy dev
done
# The upgrade: dev installed at 0.7.0 (not measured), then moved to 0.8.0 with its event log.
for i in $(seq 1 "$RUNS"); do
  part upgrade || break
  (cd "$proj" && pulumi config set -s dev nvcf:bundleVersion 0.7.0)
  log "run $i/$RUNS: pulumi up -s dev at bundle 0.7.0 under the readiness profile (load $(load1))"
  (cd "$proj" && pulumi up -s dev --yes --skip-preview >"$NVCF_LOCAL_DIR/upgrade-from-$i.log" 2>&1) ||
    die "pulumi up -s dev at 0.7.0 failed (log: $NVCF_LOCAL_DIR/upgrade-from-$i.log)"
  (cd "$proj" && pulumi config set -s dev nvcf:bundleVersion 0.8.0)
  # The same move rehearsed first on a replica of nvcf-dev (docs/rehearsals.md): wall time of the whole command.
  log "run $i/$RUNS: nvcf rehearse --env dev --stack dev, 0.7.0 -> 0.8.0 (load $(load1))"
  t=$(ms)
  (cd "$proj" && sigint_default npx nvcf rehearse --env dev --stack dev >"$NVCF_LOCAL_DIR/rehearse-upgrade-$i.log" 2>&1) ||
    die "nvcf rehearse of the upgrade failed (log: $NVCF_LOCAL_DIR/rehearse-upgrade-$i.log)"
  rehearsal=$(($(ms) - t))
  row rehearse-upgrade-s "$(secs "$rehearsal")"
  l=$(load1)
  log "run $i/$RUNS: pulumi up -s dev, 0.7.0 -> 0.8.0, under the readiness profile (load $l)"
  row load-upgrade "$l"
  f=$(up_with_log dev "upgrade-dev-$i")
  row upgrade-s "$(secs "$(field "$f" resourcePhaseMs)")"
  row upgrade-critical-path-s "$(secs "$(field "$f" criticalPathMs)")"
  row upgrade-phase/critical-path "$(ratio "$(field "$f" resourcePhaseMs)" "$(field "$f" criticalPathMs)")"
  row rehearse/upgrade "$(ratio "$rehearsal" "$(field "$f" resourcePhaseMs)")"
  node -e 'console.log(JSON.parse(process.argv[1]).criticalPath.join(" -> "))' "$f" >"$NVCF_LOCAL_DIR/upgrade-chain-$i"
  log "run $i/$RUNS: the upgrade's critical path: $(cat "$NVCF_LOCAL_DIR/upgrade-chain-$i")"
  destroy dev
done

if part real && [ "$RUNS" -gt 0 ]; then
  echo
  echo "readiness profile, scale 1/$SCALE: each Helm release of pulumi up -s dev against its profile figure (medians over $RUNS runs)"
  "${ANALYZE[@]}" releases "$NVCF_LOCAL_DIR/readiness-profile" "$NVCF_LOCAL_DIR"/figures-real-*.json
fi

echo
echo "nvcf-pulumi benchmark: $RUNS runs; readiness profile scale 1/$SCALE (one documented minute = $(awk -v s="$SCALE" 'BEGIN { printf "%.2f", 60 / s }') s); PULUMI_PARALLEL=${PULUMI_PARALLEL:-default}"
echo "machine load at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs (ratios are measured within each run)"
"${ANALYZE[@]}" stats "$rows"
echo
echo "targets: preview-noop/empty <= 1.5; up-phase/critical-path <= 1.1; real-install/helmfile <= 0.6; gpu-parallel-4/1 <= 1.5; upgrade-phase/critical-path <= 1.1; rehearse/upgrade <= 0.333"
exit
}
