# shellcheck shell=bash
# Shared shell helpers for nvcf-pulumi scripts. Source it; do not execute it.
#   log MSG...   -> "[  12s] MSG" on stderr (seconds since the first script that sourced this file started)
#   die MSG...   -> log "ERROR: MSG" and exit 1
#   now_s        -> current epoch seconds
#   tree_key ROOT DIR -> 12 hex digits naming the content of every file below ROOT/DIR (a cache key)
#   go_tool NAME VERSION PACKAGE VERSION_VAR [--path] [NOTE]
#                -> build (once) a Go command from the module proxy, print its cached path (see below)
#   sigint_ignored    -> true when this shell started with SIGINT ignored (see below)
#   sigint_default CMD... -> run CMD with SIGINT and SIGQUIT at their default disposition (see below)
#   host_process_start|stop|pid DIR NAME MATCH ... -> a detached host process of a local cluster (see below)

now_s() { date +%s; }

# Exported so that child scripts keep counting from the same start.
: "${NVCF_T0:=$(now_s)}"
export NVCF_T0

log() {
  printf '[%5ss] %s\n' "$(( $(now_s) - NVCF_T0 ))" "$*" >&2
}

die() {
  log "ERROR: $*"
  exit 1
}

# go_tool NAME VERSION PACKAGE VERSION_VAR [--path] [NOTE]
# Builds the Go command PACKAGE@VERSION (e.g. helm.sh/helm/v3/cmd/helm, v3.22.0) from the Go module proxy
# once, static and stripped, with VERSION_VAR (the Go symbol holding the version string, set through -X) set
# to VERSION, and prints its path, ${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/NAME-VERSION/NAME, on stdout.
# Later calls only print the path. With --path it builds nothing: prints the path if the binary is there,
# else returns 1. NOTE is appended to the "building" log line (e.g. how long it takes). A failed build prints
# the last lines of its log and dies naming the log file.
go_tool() {
  local name=$1 version=$2 package=$3 version_var=$4 only_path=${5:-} note=${6:-}
  local dir="${NVCF_CACHE:-$HOME/.cache/nvcf-pulumi}/tools/$name-$version"
  if [[ "$only_path" == "--path" ]]; then
    [[ -x "$dir/$name" ]] || return 1
    echo "$dir/$name"
    return 0
  fi
  if [[ ! -x "$dir/$name" ]]; then
    mkdir -p "$dir"
    log "$name: building $package $version from the Go module proxy (once${note:+; $note})"
    GOTOOLCHAIN=local CGO_ENABLED=0 GOBIN="$dir/.bin" go install -trimpath \
      -ldflags "-s -w -X $version_var=$version" "$package@$version" >"$dir/build.log" 2>&1 ||
      { tail -20 "$dir/build.log" >&2; die "$name build failed (log: $dir/build.log)"; }
    mv -f "$dir/.bin/$name" "$dir/$name"
    rmdir "$dir/.bin" 2>/dev/null || true
    log "$name: built $dir/$name"
  fi
  echo "$dir/$name"
}

# tree_key ROOT DIR
# Prints a 12-hex-digit key of the content and relative paths of every file below ROOT/DIR (sha256 of the
# sorted per-file sha256 lines): it changes whenever a file there is added, removed, renamed or edited, so a
# cache directory named after it is rebuilt exactly then.
tree_key() {
  (cd "$1" && find "$2" -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum) | sha256sum | cut -c1-12
}

# SIGINT ignored on entry: a script started with `&` by a non-interactive shell, under `nohup`, or by some CI
# runners starts with SIGINT (and SIGQUIT) ignored, bash cannot undo that ("signals ignored upon entry to the
# shell cannot be trapped or reset"), it starts its own `&` jobs the same way, and every command inherits it.
# That costs the Pulumi CLI 5 s per command: it stops each plugin and language host with SIGINT and kills it
# only after 5 s (pulumi sdk/go/common/resource/plugin/plugin.go), and those inherited the ignored SIGINT
# (docs/performance.md#sigint-and-the-clis-five-second-wait). Node.js resets every
# signal in the processes it starts (libuv), so `nvcf` and the tests are not affected; scripts that run `pulumi`
# themselves are.
sigint_ignored() {
  local mask
  mask=$(awk '/^SigIgn:/ { print $2 }' "/proc/${BASHPID:-$$}/status" 2>/dev/null) || return 1
  [[ -n "$mask" ]] && (((16#$mask & 2) != 0))
}
# sigint_default CMD... runs CMD (found on PATH) with SIGINT and SIGQUIT at their default disposition: Python
# resets them and replaces itself with CMD, so no process stays in between (Ctrl+C reaches CMD as usual). Needs
# python3; returns CMD's exit status.
sigint_default() {
  python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "$@"
}

# cpu_samples prints the first line of /proc/stat every 0.1 s until it is killed, each led by the epoch time in
# microseconds (`<µs> cpu user nice system idle ...`): the samples cpu_busy reads. Run it in the background
# (`cpu_samples >FILE &`, then kill $!): it replaces that background shell with one python3 process for all
# samples, so $! is the sampler itself.
cpu_samples() {
  exec python3 -c 'import time
while True:
    with open("/proc/stat") as f:
        print(time.time_ns() // 1000, f.readline().strip(), flush=True)
    time.sleep(0.1)'
}
# cpu_busy FILE FROM TO prints the share of the machine's CPU time that was busy (not idle, not iowait) between two
# microsecond stamps, as a fraction with three decimals (1.000: every CPU busy throughout). FILE holds samples of
# the first line of /proc/stat, one per line, each led by its epoch time in microseconds (`<µs> cpu user nice system
# idle iowait irq softirq steal ...`, times in clock ticks; steal counts as busy: the CPU was not ours). Compares the
# last sample at or before FROM with the first at or after TO; prints 0.000 when the samples do not cover the span.
cpu_busy() {
  awk -v a="$2" -v b="$3" '
    function total(k, t) { t = 0; for (k = 3; k <= 10; k++) t += $k; return t }
    $2 == "cpu" && $1 <= a { t0 = total(); i0 = $6 + $7 }
    $2 == "cpu" && $1 >= b && t1 == "" { t1 = total(); i1 = $6 + $7 }
    END { if (t0 == "" || t1 == "" || t1 <= t0) print "0.000"; else printf "%.3f\n", 1 - (i1 - i0) / (t1 - t0) }' "$1"
}

# A detached host process of a local cluster (the stand-in NVCA operator, the in-pod tools agent): its own session
# and no inherited pipes, so it outlives the calling script; pid file DIR/NAME.pid (the process writes it) and log
# DIR/NAME.log. MATCH is part of its command line, so a reused pid is not taken for it.
#   host_process_pid DIR NAME MATCH                 -> its pid while it runs (fails otherwise)
#   host_process_start DIR NAME MATCH WHAT CMD...   -> starts CMD unless it runs; logs "cluster NAME: WHAT started"
#   host_process_stop DIR NAME MATCH WHAT           -> TERM (KILL after 10 s), removes the pid file
host_process_pid() {
  local pid cmd
  pid=$(cat "$1/$2.pid" 2>/dev/null) && [[ "$pid" =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) && [[ "$cmd" == *"$3"* ]] && echo "$pid"
}
host_process_start() {
  local dir=$1 name=$2 match=$3 what=$4 pid i
  shift 4
  mkdir -p "$dir"
  if pid=$(host_process_pid "$dir" "$name" "$match"); then
    log "cluster $name: $what already running (pid $pid)"
    return 0
  fi
  rm -f "$dir/$name.pid"
  setsid -f "$@" </dev/null >>"$dir/$name.log" 2>&1
  for i in $(seq 1 50); do
    pid=$(host_process_pid "$dir" "$name" "$match") && { log "cluster $name: $what started (pid $pid, log $dir/$name.log)"; return 0; }
    sleep 0.2
  done
  tail -n 20 "$dir/$name.log" >&2 || true
  die "cluster $name: the $what did not start (log $dir/$name.log)"
}
host_process_stop() {
  local pid i
  if pid=$(host_process_pid "$1" "$2" "$3"); then
    kill "$pid" 2>/dev/null || true
    for i in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$pid" 2>/dev/null || true
    log "cluster $2: $4 stopped"
  fi
  rm -f "$1/$2.pid"
}
