#!/usr/bin/env bash
# The embedded default: throwaway local Kubernetes control planes (kwok, binary runtime, 127.0.0.1).
#
#   bash scripts/cluster.sh up [NAME...]     create or start the clusters (default: all three), or restart the
#                                            components that stopped; harmless twice
#   bash scripts/cluster.sh down [NAME...]   delete them; leaves no process behind
#   bash scripts/cluster.sh status           list clusters and whether they answer
#   bash scripts/cluster.sh kubeconfig       print the kubeconfig path (contexts kwok-<name>)
#   bash scripts/cluster.sh readiness        print the readiness profile (below): per release, documented minutes,
#                                            readiness steps, per-pod delay in ms at NVCF_READINESS_SCALE
#   bash scripts/cluster.sh stages NAME      print the kwok Stages `up` creates cluster NAME with (kwok_stages)
#
# Optional GPU clusters nvcf-gpu-c and nvcf-gpu-d (same shape as nvcf-gpu-a/b) start only when named, e.g. by
# scripts/bench.sh in its private NVCF_LOCAL_DIR.
#
# Readiness profile (off by default; scripts/bench.sh turns it on):
#   NVCF_READINESS_PROFILE=real NVCF_READINESS_SCALE=20 bash scripts/cluster.sh up [NAME...]
# creates the clusters with kwok Stages under which a pod of Helm release R (label app.kubernetes.io/instance)
# becomes Running/Ready, and a Job pod then completes, readiness_minutes(R) / readiness_steps(R) real-world
# minutes divided by the scale (default 20: a documented minute takes 3 s) after it is created: the documented
# figure is the time of the whole release, spread over the pods it makes ready one after another
# (readiness_minutes and readiness_steps say where each figure and count comes from). The profile is fixed when
# a cluster is created: `up` refuses an existing cluster made with another profile, scale, figures or steps
# (`down` it first).
#
# Clusters: nvcf-dev (control plane: 3 CPU nodes, 1 GPU node, Gateway API CRDs of the experimental
# channel, GatewayClass + Gateway "nvcf-gateway" with the listeners http 80, tcp 10081, nats 4222,
# worker-tcp 10086), nvcf-gpu-a and nvcf-gpu-b (GPU clusters: 1 CPU node, 2 GPU nodes each).
# kwok marks pods Running/Ready and completes Job pods, so rollouts and Helm hooks finish.
# Real enough for the real charts: every node advertises ephemeral-storage (Cassandra's presets request it),
# and the default StorageClass "standard" (provisioner kubernetes.io/host-path, served by
# kube-controller-manager's --enable-hostpath-provisioner) binds every PersistentVolumeClaim, including
# StatefulSet volumeClaimTemplates, with a directory under /tmp/hostpath_pv/ (removed with the claim, and by
# `down`). Every component (etcd, kube-apiserver, controller manager, scheduler, kwok) listens on 127.0.0.1
# only (kwokctl option bindAddress, from the configuration file written by kwokctl_config).
# kwokctl fixes every cluster's service-account issuer to https://kubernetes.default.svc.cluster.local
# (nvcf-cli warns about that shared issuer, as it would on vanilla clusters).
# No container runs on kwok, so nothing executes the NVCA operator helm-nvca-operator deploys: `up` starts a
# stand-in operator (tests/bin/nvca-operator, a host process) per GPU cluster, which creates the NVCFBackend
# and the agent as the real operator does; `down` stops it (pid and log under $NVCF_LOCAL_DIR/operator/).
# Nothing runs nvcf-api's account-bootstrap hook either: `up` starts tests/bin/account-bootstrap for nvcf-dev, which
# applies the hook's payload to the stand-in NVCF API in $NVCF_LOCAL_DIR/nvcf-api/ (pid, log and the API's data there).
# The cluster holds that hook's pod running until the process has played it (kwok_stages, held_hooks), whichever
# chart renders it, NVIDIA's or the stand-in; `up` refuses a cluster created with other Stages (`down` it first).
# Likewise no Gateway API controller runs: on nvcf-dev, the cluster with Gateways, `up` starts a stand-in
# (tests/bin/gateway-controller) that writes the status Envoy Gateway's controller writes on the GatewayClass, the
# Gateway and the routes; `down` stops it (pid and log under $NVCF_LOCAL_DIR/gateway/).
# `kubectl exec` works on every cluster (kwok's Exec API); on nvcf-dev `up` also starts the host process behind the
# stand-in in-pod tools (nodetool, cqlsh, bao in the Cassandra and OpenBao pods): scripts/inpod.sh.
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
# shellcheck source=scripts/env.sh
source "$ROOT/scripts/env.sh"
# shellcheck source=toolchain/versions.env
source "$ROOT/toolchain/versions.env"

# NVCF_LOCAL_DIR (default: the cache) holds the local clusters, their kubeconfig, the local state backend and
# the stand-in ICMS; a second directory gives a second, independent set of clusters on the same machine.
export NVCF_LOCAL_DIR="${NVCF_LOCAL_DIR:-$NVCF_CACHE}"
export KWOK_WORKDIR="$NVCF_LOCAL_DIR/kwok"
KUBECONFIG_FILE="$NVCF_LOCAL_DIR/clusters/kubeconfig"
ALL_CLUSTERS=(nvcf-dev nvcf-gpu-a nvcf-gpu-b)
OPTIONAL_CLUSTERS=(nvcf-gpu-c nvcf-gpu-d)
READINESS_PROFILE="${NVCF_READINESS_PROFILE:-none}"
READINESS_SCALE="${NVCF_READINESS_SCALE:-20}"
case "$READINESS_PROFILE" in none | real) ;; *) die "NVCF_READINESS_PROFILE must be none or real, got '$READINESS_PROFILE'" ;; esac
[[ "$READINESS_SCALE" =~ ^[1-9][0-9]*$ ]] || die "NVCF_READINESS_SCALE must be a positive integer, got '$READINESS_SCALE'"
GATEWAY_API_VERSION="${GATEWAY_API_VERSION:-v1.2.0}"
# The controllerName of GatewayClass eg: Envoy Gateway's own (its default EnvoyGateway configuration), which the
# stand-in gateway controller answers for.
GATEWAY_CONTROLLER_NAME=gateway.envoyproxy.io/gatewayclass-controller

cmd="${1:-up}"
shift || true
clusters=("$@")
[ ${#clusters[@]} -gt 0 ] || clusters=("${ALL_CLUSTERS[@]}")
for c in "${clusters[@]}"; do
  case " ${ALL_CLUSTERS[*]} ${OPTIONAL_CLUSTERS[*]} " in
    *" $c "*) ;;
    *) die "unknown cluster '$c' (known: ${ALL_CLUSTERS[*]} ${OPTIONAL_CLUSTERS[*]})" ;;
  esac
done

k() { kubectl --kubeconfig "$KUBECONFIG_FILE" --context "kwok-$1" "${@:2}"; }
# kubectl exec on kwok (the Exec CRD of kwokctl_config) and the in-pod tools agent of nvcf-dev (inpod_start, inpod_stop).
# shellcheck source=scripts/inpod.sh
source "$ROOT/scripts/inpod.sh"

exists() { kwokctl get clusters 2>/dev/null | grep -qx "$1"; }

# True when every component of the cluster whose pid file kwokctl wrote is still running.
all_running() {
  local f pid
  for f in "$KWOK_WORKDIR/clusters/$1/pids"/*.pid; do
    [ -f "$f" ] || return 1
    pid=$(cat "$f")
    kill -0 "$pid" 2>/dev/null || return 1
  done
}

# Capacity (= allocatable) of a node as a JSON object: what node_yaml sets and `up` re-applies.
node_capacity_json() { # gpu(0|1)
  local c='"cpu":"32","memory":"128Gi","ephemeral-storage":"1Ti","pods":"110"'
  [ "$1" = 1 ] && c="$c,\"nvidia.com/gpu\":\"8\""
  echo "{$c}"
}

node_yaml() { # name gpu(0|1)
  local name=$1 gpu=$2 labels capacity
  labels="kubernetes.io/hostname: $name
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    type: kwok"
  capacity="cpu: \"32\"
    memory: 128Gi
    ephemeral-storage: 1Ti
    pods: \"110\""
  if [ "$gpu" = 1 ]; then
    # Labels the NVIDIA GPU operator (GPU feature discovery) sets on a GPU node.
    labels="$labels
    nvidia.com/gpu.present: \"true\"
    nvidia.com/gpu.count: \"8\"
    nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3
    nvidia.com/gpu.memory: \"81559\"
    nvidia.com/gpu.family: hopper
    nvidia.com/gpu.deploy.device-plugin: \"true\"
    nvidia.com/cuda.driver.major: \"550\"
    feature.node.kubernetes.io/pci-10de.present: \"true\""
    capacity="$capacity
    nvidia.com/gpu: \"8\""
  fi
  cat <<EOF
apiVersion: v1
kind: Node
metadata:
  name: $name
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    $labels
status:
  allocatable:
    $capacity
  capacity:
    $capacity
  nodeInfo:
    architecture: amd64
    operatingSystem: linux
    kubeletVersion: fake
  phase: Running
EOF
}

# Default StorageClass: the in-tree host-path provisioner of kube-controller-manager (enabled in
# kwokctl_config) creates one PersistentVolume per claim; Immediate binding, so claims bind before any pod is
# scheduled (kwok nodes have no topology), and Delete, so a deleted claim's directory goes with it.
storage_yaml() {
  cat <<'EOF'
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: standard
  annotations:
    storageclass.kubernetes.io/is-default-class: "true"
provisioner: kubernetes.io/host-path
reclaimPolicy: Delete
volumeBindingMode: Immediate
EOF
}

# kwokctl configuration of a cluster (kwokctl keeps a copy per cluster, so `start` reuses it):
# bindAddress is the address etcd, kube-apiserver, kube-controller-manager, kube-scheduler and the kwok
# controller listen on (kwokctl's default is 0.0.0.0; etcd has no authentication). The controller
# manager's host-path provisioner backs the StorageClass of storage_yaml. enableCRDs Exec: kwok serves
# `kubectl exec` (scripts/inpod.sh). Leader election is off for the
# controller manager and the scheduler (one instance each): with it on, both exit when the API server is away
# for more than the lease's renew deadline (10 s), and nothing restarts them here. The kwok Stages: kwok_stages.
# The API server's audit log: audit_policy.
kwokctl_config() { # name
  local f="$KWOK_WORKDIR/nvcf-kwokctl-$1.yaml"
  audit_policy >"$KWOK_WORKDIR/nvcf-audit-policy.yaml"
  cat >"$f" <<EOF
apiVersion: config.kwok.x-k8s.io/v1alpha1
kind: KwokctlConfiguration
options:
  bindAddress: 127.0.0.1
  kubeAuditPolicy: $KWOK_WORKDIR/nvcf-audit-policy.yaml
  enableCRDs:
    - Exec
componentsPatches:
  - name: kube-controller-manager
    extraArgs:
      - key: enable-hostpath-provisioner
        value: "true"
      - key: leader-elect
        value: "false"
  - name: kube-scheduler
    extraArgs:
      - key: leader-elect
        value: "false"
EOF
  inpod_kwokctl_patch >>"$f"
  kwok_stages "$1" >>"$f"
  echo "$f"
}

# The audit policy of every local cluster: requests made with a service account's token are logged (verb, user,
# object; no bodies), nothing else. No component, stand-in host process or test uses a service account's token
# except an identity a test makes for the purpose (the rehearsal's read-only reader, tests/e2e/upgrade.test.ts), so
# the log holds exactly what that identity asked. kwokctl writes it to $KWOK_WORKDIR/clusters/<name>/logs/audit.log.
audit_policy() {
  cat <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
    userGroups: ["system:serviceaccounts"]
  - level: None
EOF
}

# Real-world minutes a Helm release takes to install under the readiness profile `real`: the whole release, from
# Helm's first object to its last hook (readiness_steps spreads it over the release's pods).
# NVIDIA's installation guide (docs/user/helmfile-installation.md, "Deployment Progression and Monitoring")
# gives the phases of a Helmfile install: dependencies 5-10 min, control-plane services 5-10 min, ingress
# 1-2 min. Each phase's midpoint is spread over the longest chain of Helmfile `needs` inside it, so a phase
# installed one level after the other takes its documented time:
#   - dependencies (7.5 min; chain nats -> openbao-server -> nvcf-pki, 3 levels): 2.5 min each, except
#     Cassandra, the slow one, 7.5 min (its startup probe allows 10 min: docs/user/troubleshooting.md);
#   - services (7.5 min; chain ess-api -> api -> invocation-service -> vanity-gateway, 4 levels): 1.875 min;
#   - ingress (1.5 min), and the releases no NVIDIA document gives a time for (observability, the GPU cluster
#     add-ons and the NVCA operator): 1.5 min, the smallest documented phase.
# Pods of no listed release (e.g. the inotify tuner) are ready at once, as without the profile.
readiness_minutes() {
  case "$1" in
    cassandra) echo 7.5 ;;
    nats | cert-manager | openbao-server | nvcf-pki) echo 2.5 ;;
    api-keys | sis | api | nvct-api | invocation-service | grpc-proxy | ratelimiter | ess-api | notary-service | \
      admin-issuer-proxy | reval | nats-auth-callout-service | llm-request-router | llm-api-gateway | \
      vanity-gateway | nvcf-ui) echo 1.875 ;;
    ingress | prometheus-operator-crds | opentelemetry-operator | victoria-metrics | otel-collector | \
      default-monitors | state-metrics | function-autoscaler | kai-scheduler | nvcf-kai-topology | \
      grove-operator | nvcf-grove-topology | dynamo-operator | nvca-operator) echo 1.5 ;;
    *) echo 0 ;;
  esac
}

# Readiness steps of a release: how many times its install waits for pods that become ready one after another.
# Helm installs a release in three parts and waits at each: the pre-install hook Jobs, one at a time in
# hook-weight order (each must complete before the next is created); the release's objects, all created at once
# and awaited together (--wait: Deployments, StatefulSets with the RollingUpdate strategy, Jobs), so their pods
# become ready in parallel and count as one step, except the replicas of an OrderedReady StatefulSet, which the
# StatefulSet controller starts one after the previous one is ready; then the post-install hook Jobs, one at a
# time. Every pod of the release is delayed readiness_minutes / steps, so the release takes its documented
# figure plus Helm's own time. Counted from the stand-in charts (tests/charts) rendered with the values the
# program passes for the dev stacks (Pulumi.dev.yaml, Pulumi.dev-gpu-a.yaml, Pulumi.dev-gpu-b.yaml:
# tools/values.ts); every pod they make, hook Job pods included, carries the release's app.kubernetes.io/instance
# label. 0: the release makes no pod (CRDs, monitors, routes, a resource no operator turns into pods on kwok), so
# no stage can delay it and it takes Helm's own time. Hooks that do not run at install (pre-delete, post-delete,
# CronJobs) do not count.
readiness_steps() {
  case "$1" in
    # 3 replicas of an OrderedReady StatefulSet + post-install Jobs cassandra-initialize-cluster (weight -5),
    # cassandra-migrations (2)
    cassandra) echo 5 ;;
    # server StatefulSet (Parallel, OnDelete: Helm does not wait for it) and injector Deployment (2 replicas)
    # together + post-install Jobs openbao-server-initialize-cluster (-5), openbao-server-migrations (1)
    openbao-server) echo 3 ;;
    # controller, webhook and cainjector Deployments together + post-install Job cert-manager-startupapicheck
    cert-manager) echo 2 ;;
    # Deployment nvcf-api + post-install Job nvcf-api-account-bootstrap
    api) echo 2 ;;
    # pre-install Job nvcf-ui-openbao-migrations + the ui and control-plane Deployments together
    nvcf-ui) echo 2 ;;
    # pre-install Job addons-llm-migrations (with pki.enabled) + StatefulSet (Parallel)
    llm-request-router) echo 2 ;;
    # pre-install Jobs crd-upgrader (2), topology-migration (4) + Deployment kai-operator + post-install Job
    # kai-config-deployer (1)
    kai-scheduler) echo 4 ;;
    # one Deployment (sis: its post-install Job addons-lls-migrations only with sis.lls.enabled, off in the dev
    # stacks); nats: StatefulSet (Parallel) and nats-box Deployment together; victoria-metrics: StatefulSet of 1
    # replica; dynamo-operator: controller Deployment and NATS StatefulSet (Parallel) together
    nats | api-keys | sis | nvct-api | invocation-service | grpc-proxy | ratelimiter | ess-api | notary-service | \
      admin-issuer-proxy | reval | nats-auth-callout-service | llm-api-gateway | vanity-gateway | \
      opentelemetry-operator | victoria-metrics | state-metrics | function-autoscaler | grove-operator | \
      dynamo-operator | nvca-operator) echo 1 ;;
    # no pod: nvcf-pki (ClusterIssuer), ingress (gateway routes), prometheus-operator-crds (CRDs), otel-collector
    # (an OpenTelemetryCollector object), default-monitors (ServiceMonitors, PodMonitors), the topology releases
    *) echo 0 ;;
  esac
}
READINESS_RELEASES=(cassandra nats cert-manager openbao-server nvcf-pki api-keys sis api nvct-api invocation-service
  grpc-proxy ratelimiter ess-api notary-service admin-issuer-proxy reval nats-auth-callout-service llm-request-router
  llm-api-gateway vanity-gateway nvcf-ui ingress prometheus-operator-crds opentelemetry-operator victoria-metrics
  otel-collector default-monitors state-metrics function-autoscaler kai-scheduler nvcf-kai-topology grove-operator
  nvcf-grove-topology dynamo-operator nvca-operator)

# Milliseconds each pod of a release waits before it is ready at the current scale: minutes / steps / scale (0 for
# a release of no pod or no listed figure).
readiness_pod_ms() {
  awk -v m="$(readiness_minutes "$1")" -v n="$(readiness_steps "$1")" -v s="$READINESS_SCALE" \
    'BEGIN { printf "%d", (n > 0 ? m * 60000 / n / s : 0) }'
}

# The profile, one line per release: name, documented minutes, readiness steps, per-pod delay in ms at the
# current scale (`bash scripts/cluster.sh readiness`; scripts/bench.sh compares each release's measured install
# with steps x delay).
readiness_table() {
  local r
  for r in "${READINESS_RELEASES[@]}"; do
    echo "$r $(readiness_minutes "$r") $(readiness_steps "$r") $(readiness_pod_ms "$r")"
  done
}

# The kwok module's directory at the pinned version: its default Stages are under kustomize/stage/.
kwok_module_dir() {
  local dir
  dir=$(cd "$NVCF_CACHE" && go mod download -json "sigs.k8s.io/kwok@v$KWOK_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -f "$dir/kustomize/stage/pod/fast/pod-ready.yaml" ] || die "kwok stages not found in sigs.k8s.io/kwok@v$KWOK_VERSION"
  echo "$dir"
}

# The hook Jobs of cluster NAME whose container a host process of this script plays (kwok runs no container), one
# line each: "<kwok selector key on the Job's pod>|<values, quoted, comma-separated>|<the host process>". Keyed on
# what NVIDIA's chart renders on the pod, so NVIDIA's chart and its stand-in are held alike: nvcf-api's
# account-bootstrap hook (deploy/helm/cloud-functions/nvcf-api templates/account-bootstrap-hook-job.yaml, pod label
# app.kubernetes.io/component=account-bootstrap), played on nvcf-dev by tests/bin/account-bootstrap.
held_hooks() { # name
  case "$1" in
    nvcf-dev) echo ".metadata.labels[\"app.kubernetes.io/component\"]|'account-bootstrap'|tests/bin/account-bootstrap" ;;
  esac
}

# The annotation a host process puts on a held hook's pod once it has done what the pod's container does.
PLAYED_ANNOTATION=nvcf.stand-in/played

# The kwok Stages of cluster NAME, as YAML documents appended to its kwokctl configuration. Stages in the
# configuration replace kwokctl's defaults, so kwok's default stages for the binary runtime are written, read from
# the kwok module at the pinned version: node initialisation and lease heartbeat, pod ready, pod complete, pod
# delete. Two of them are changed:
#   - pod complete (kwok completes a Job's pod once it runs, so a hook Job would succeed at once) is written twice:
#     as pod-complete for every Job pod but the held hooks (held_hooks) and the pods already played, and as
#     pod-complete-played for a pod that carries the annotation $PLAYED_ANNOTATION. A held hook's pod so runs
#     (Running, Ready) until its host process has done what the container's script does and annotated the pod;
#     then kwok completes it, the Job succeeds and Helm goes on, as with the real container. A host process that
#     fails leaves the pod running (as a container restarting under restartPolicy OnFailure), so Helm's wait for
#     the hook runs into its timeout;
#   - under the readiness profile pod ready is written once per per-pod delay (readiness_stages).
kwok_stages() { # name
  local dir f key vals who holds=""
  dir=$(kwok_module_dir)
  for f in node/fast/node-initialize node/heartbeat-with-lease/node-heartbeat-with-lease pod/fast/pod-delete; do
    echo ---
    cat "$dir/kustomize/stage/$f.yaml"
  done
  if [ "$READINESS_PROFILE" = none ]; then
    echo ---
    cat "$dir/kustomize/stage/pod/fast/pod-ready.yaml"
  else
    readiness_stages "$dir"
  fi
  while IFS='|' read -r key vals who; do
    [ -n "$key" ] || continue
    holds+="    - key: '$key'
      operator: 'NotIn'
      values: [$vals]
"
  done < <(held_hooks "$1")
  echo ---
  stage_from "$dir/kustomize/stage/pod/fast/pod-complete.yaml" pod-complete 0 "$holds$(played_expr DoesNotExist)"
  echo ---
  stage_from "$dir/kustomize/stage/pod/fast/pod-complete.yaml" pod-complete-played 0 "$(played_expr Exists)"
}

# The selector expression on the pod's $PLAYED_ANNOTATION: Exists|DoesNotExist.
played_expr() {
  printf "    - key: '.metadata.annotations[\"%s\"]'\n      operator: '%s'" "$PLAYED_ANNOTATION" "$1"
}

# The pod-ready Stages of the readiness profile (dir: kwok_module_dir): kwok's pod-ready stage once per per-pod
# delay, for the pods whose release label is in that delay's list, and once without delay for every other pod. A
# Job pod completes right after it is ready (pod complete is not delayed), so a hook Job takes one delay.
readiness_stages() { # dir
  local dir=$1 r ms delays="" list all_list=""
  for r in "${READINESS_RELEASES[@]}"; do
    ms=$(readiness_pod_ms "$r")
    [ "$ms" -gt 0 ] || continue
    all_list="$all_list'$r', "
    case " $delays " in *" $ms "*) ;; *) delays="$delays $ms" ;; esac
  done
  for ms in $delays; do
    list=$(for r in "${READINESS_RELEASES[@]}"; do if [ "$(readiness_pod_ms "$r")" = "$ms" ]; then printf "'%s', " "$r"; fi; done)
    echo ---
    stage_from "$dir/kustomize/stage/pod/fast/pod-ready.yaml" "pod-ready-${ms}ms" "$ms" "$(release_expr In "${list%, }")"
  done
  echo ---
  stage_from "$dir/kustomize/stage/pod/fast/pod-ready.yaml" pod-ready 0 "$(release_expr NotIn "${all_list%, }")"
}

# The selector expression on the pod's release label (app.kubernetes.io/instance): In|NotIn "'a', 'b'".
release_expr() {
  printf "    - key: '.metadata.labels[\"app.kubernetes.io/instance\"]'\n      operator: '%s'\n      values: [%s]" "$1" "$2"
}

# A kwok Stage file renamed, delayed (ms; 0: no delay), with more selector expressions (YAML lines indented as the
# file's matchExpressions items).
stage_from() { # file name delay-ms expressions
  STAGE_EXPRS="$4" awk -v name="$2" -v ms="$3" '
    /^  name: / && !named { print "  name: " name; named = 1; next }
    /^    matchExpressions:$/ { print; if (ENVIRON["STAGE_EXPRS"] != "") print ENVIRON["STAGE_EXPRS"]; next }
    /^  next:$/ && ms > 0 { print "  delay:"; print "    durationMilliseconds: " ms }
    { print }
  ' "$1"
}

# The readiness profile a cluster was created with (recorded next to kwokctl's files), "none" when unrecorded.
profile_of() {
  cat "$KWOK_WORKDIR/clusters/$1/nvcf-readiness-profile" 2>/dev/null || echo none
}
# The profile asked for, as recorded: "none", or "real 1/<scale> <checksum of the per-release delays>", so a
# cluster made with another scale or other figures or steps is not taken for one of this profile.
profile_wanted() {
  if [ "$READINESS_PROFILE" = none ]; then echo none; else
    echo "$READINESS_PROFILE 1/$READINESS_SCALE $(readiness_table | cksum | cut -d' ' -f1)"
  fi
}

# The checksum of cluster NAME's kwok Stages as it was created with them (recorded next to kwokctl's files; "none"
# when unrecorded), and as kwok_stages writes them now.
stages_of() { cat "$KWOK_WORKDIR/clusters/$1/nvcf-stages" 2>/dev/null || echo none; }
stages_wanted() { kwok_stages "$1" | cksum | cut -d' ' -f1; }

gateway_yaml() {
  cat <<EOF
apiVersion: v1
kind: Namespace
metadata:
  name: envoy-gateway-system
---
apiVersion: v1
kind: Namespace
metadata:
  name: envoy-gateway
  labels:
    nvcf/platform: "true"
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata:
  name: eg
spec:
  controllerName: $GATEWAY_CONTROLLER_NAME
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: nvcf-gateway
  namespace: envoy-gateway
spec:
  gatewayClassName: eg
  listeners:
EOF
  local l
  for l in "http HTTP 80" "tcp TCP 10081" "nats TCP 4222" "worker-tcp TCP 10086"; do
    set -- $l
    cat <<EOF
    - name: $1
      protocol: $2
      port: $3
      allowedRoutes:
        namespaces:
          from: Selector
          selector:
            matchLabels:
              nvcf/platform: "true"
EOF
  done
}

gateway_api_dir() {
  local dir
  dir=$(cd "$NVCF_CACHE" && go mod download -json "sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$dir/config/crd/experimental" ] || die "Gateway API CRDs not found in sigs.k8s.io/gateway-api@$GATEWAY_API_VERSION"
  echo "$dir/config/crd/experimental"
}

up_one() {
  local name=$1 t0 log
  t0=$(now_s)
  mkdir -p "$KWOK_WORKDIR"
  log="$KWOK_WORKDIR/$name.log"
  if exists "$name"; then
    [ "$(profile_of "$name")" = "$(profile_wanted)" ] ||
      die "cluster $name was created with readiness profile $(profile_of "$name"), not $(profile_wanted): bash scripts/cluster.sh down $name first"
    [ "$(stages_of "$name")" = "$(stages_wanted "$name")" ] ||
      die "cluster $name was created with other kwok Stages than this script writes (kwok_stages: the held hooks): bash scripts/cluster.sh down $name first"
    [ -f "$KWOK_WORKDIR/clusters/$name/nvcf-audit" ] ||
      die "cluster $name was created without the audit log (audit_policy): bash scripts/cluster.sh down $name first"
    # Also when the API server answers but a component is gone (e.g. a cluster made before leader election was
    # turned off, see kwokctl_config): kwokctl start starts only the components that are not running.
    if ! k "$name" get --raw /readyz >/dev/null 2>&1 || ! all_running "$name"; then
      log "cluster $name: starting"
      kwokctl start cluster --name "$name" --wait 2m >"$log" 2>&1 || { cat "$log" >&2; die "kwokctl could not start $name"; }
    else
      log "cluster $name: already running"
    fi
  else
    if [ "$READINESS_PROFILE" = none ]; then
      log "cluster $name: creating"
    else
      log "cluster $name: creating (readiness profile $READINESS_PROFILE, delays scaled 1/$READINESS_SCALE)"
    fi
    mkdir -p "$(dirname "$KUBECONFIG_FILE")"
    kwokctl --config "$(kwokctl_config "$name")" create cluster --name "$name" --runtime binary \
      --kubeconfig "$KUBECONFIG_FILE" \
      --kube-apiserver-binary "$(command -v kube-apiserver)" \
      --kube-controller-manager-binary "$(command -v kube-controller-manager)" \
      --kube-scheduler-binary "$(command -v kube-scheduler)" \
      --etcd-binary "$(command -v etcd)" \
      --kwok-controller-binary "$(command -v kwok)" \
      --wait 3m >"$log" 2>&1 || { cat "$log" >&2; die "kwokctl could not create $name"; }
    [ "$READINESS_PROFILE" = none ] || profile_wanted >"$KWOK_WORKDIR/clusters/$name/nvcf-readiness-profile"
    stages_wanted "$name" >"$KWOK_WORKDIR/clusters/$name/nvcf-stages"
    audit_policy >"$KWOK_WORKDIR/clusters/$name/nvcf-audit"
  fi
  # Nodes (idempotent).
  local nodes n specs
  if [ "$name" = nvcf-dev ]; then
    specs="$name-cpu-0:0 $name-cpu-1:0 $name-cpu-2:0 $name-gpu-0:1"
  else
    specs="$name-cpu-0:0 $name-gpu-0:1 $name-gpu-1:1"
  fi
  nodes=$(for n in $specs; do node_yaml "${n%:*}" "${n#*:}"; echo ---; done)
  printf '%s\n' "$nodes" | k "$name" apply -f - >/dev/null
  # The API server takes a node's status only on create: patch capacity/allocatable too, so a cluster made
  # before a change of node_yaml converges (kwok's stages manage conditions, not capacity).
  local cap
  for n in $specs; do
    cap=$(node_capacity_json "${n#*:}")
    k "$name" patch node "${n%:*}" --subresource=status --type=merge \
      -p "{\"status\":{\"capacity\":$cap,\"allocatable\":$cap}}" >/dev/null
  done
  storage_yaml | k "$name" apply -f - >/dev/null
  # Node status is owned by kwok; wait until every node is Ready.
  k "$name" wait --for=condition=Ready node --all --timeout=120s >/dev/null
  if [ "$name" = nvcf-dev ]; then
    local crd_dir f
    crd_dir=$(gateway_api_dir)
    for f in "$crd_dir"/gateway.networking.k8s.io_*.yaml; do k "$name" apply --server-side -f "$f" >/dev/null; done
    k "$name" wait --for=condition=Established crd --all --timeout=60s >/dev/null
    gateway_yaml | k "$name" apply -f - >/dev/null
  fi
  check_loopback "$name"
  if [ "$name" = nvcf-dev ]; then
    # No Envoy here: the stand-in controller reports the class, the Gateway (Programmed, address on loopback) and
    # the routes as Envoy Gateway's controller would; its first pass is awaited, so preflight finds them reported.
    gateway_start "$name"
    k "$name" wait --for=condition=Accepted gatewayclass/eg --timeout=60s >/dev/null
    k "$name" -n envoy-gateway wait --for=condition=Programmed gateway/nvcf-gateway --timeout=60s >/dev/null
  fi
  operator_start "$name"
  inpod_start "$name"
  bootstrap_start "$name"
  log "cluster $name: ready ($(( $(now_s) - t0 ))s, context kwok-$name)"
}

# Fails unless every listening TCP socket of the cluster's components is on 127.0.0.1 (needs `ss`, iproute2;
# skipped with a note when it is missing). The component pids are kwokctl's pid files.
check_loopback() {
  local name=$1 dir="$KWOK_WORKDIR/clusters/$1/pids" pids f bad
  command -v ss >/dev/null || { log "cluster $name: ss not found; listening addresses not checked"; return 0; }
  pids=$(for f in "$dir"/*.pid; do [ -f "$f" ] && { cat "$f"; echo; }; done | grep -E '^[0-9]+$' | paste -sd'|' || true)
  [ -n "$pids" ] || die "cluster $name: no component pid files in $dir"
  # ss's output is read whole before grep looks at it: `ss | grep -q` fails under pipefail when grep stops
  # early and ss gets SIGPIPE, which a machine with many sockets makes likely. The components may still be
  # opening their ports right after kwokctl returns: give them a few seconds.
  local i listening=""
  for i in $(seq 1 20); do
    listening=$(ss -H -ltnp 2>/dev/null | grep -E "pid=($pids)," || true)
    [ -z "$listening" ] || break
    sleep 0.5
  done
  [ -n "$listening" ] || die "cluster $name: ss shows no listening socket of its components"
  bad=$(awk '$4 !~ /^127\.0\.0\.1:/ { print $4, $6 }' <<<"$listening")
  [ -z "$bad" ] || die "cluster $name: components listen beyond 127.0.0.1: $bad"
}

# The stand-in NVCA operator of a GPU cluster (tests/bin/nvca-operator; what it does and does not do is in its
# header): one detached host process per cluster (own session, no inherited pipes, so it outlives this script),
# pid file and log in $OPERATOR_DIR. It calls the API server itself (no kubectl) with the cluster's own kubeconfig
# under the kwok work dir, so it also exits by itself when the cluster is deleted, and `down`'s sweep of that dir
# catches it.
OPERATOR_DIR="$NVCF_LOCAL_DIR/operator"
operator_match() { echo "nvca-operator --kubeconfig $KWOK_WORKDIR/clusters/$1/kubeconfig.yaml "; }
operator_start() {
  local name=$1
  [ "$name" != nvcf-dev ] || return 0
  host_process_start "$OPERATOR_DIR" "$name" "$(operator_match "$name")" "stand-in NVCA operator" \
    node "$ROOT/tests/bin/nvca-operator" --kubeconfig "$KWOK_WORKDIR/clusters/$name/kubeconfig.yaml" \
    --context "kwok-$name" --state "$OPERATOR_DIR/$name.state" --pid-file "$OPERATOR_DIR/$name.pid"
}
operator_stop() {
  host_process_stop "$OPERATOR_DIR" "$1" "$(operator_match "$1")" "stand-in NVCA operator"
  rm -f "$OPERATOR_DIR/$1.state"
}

# The stand-in gateway controller of a cluster with Gateways (tests/bin/gateway-controller; what it writes and does
# not is in its header): a detached host process like the operator, pid file and log in $GATEWAY_DIR. It answers for
# GatewayClasses of $GATEWAY_CONTROLLER_NAME and reports 127.0.0.1 as the Gateways' address (nothing listens there).
GATEWAY_DIR="$NVCF_LOCAL_DIR/gateway"
gateway_match() { echo "gateway-controller --kubeconfig $KWOK_WORKDIR/clusters/$1/kubeconfig.yaml "; }
gateway_start() {
  host_process_start "$GATEWAY_DIR" "$1" "$(gateway_match "$1")" "stand-in gateway controller" \
    node "$ROOT/tests/bin/gateway-controller" --kubeconfig "$KWOK_WORKDIR/clusters/$1/kubeconfig.yaml" \
    --context "kwok-$1" --pid-file "$GATEWAY_DIR/$1.pid" --controller-name "$GATEWAY_CONTROLLER_NAME" --address 127.0.0.1
}
gateway_stop() { host_process_stop "$GATEWAY_DIR" "$1" "$(gateway_match "$1")" "stand-in gateway controller"; }

# The stand-in of nvcf-api's account-bootstrap hook container (tests/bin/account-bootstrap; what it does is in its
# header), for the control-plane cluster only: a detached host process like the operator, with the stand-in NVCF API
# it writes to (nvcf-cli reads it through NVCF_CLI_API_DIR, scripts/stack-env.sh), its pid file and log in $API_DIR.
# The API's data lives as long as the cluster: `down` removes it.
API_DIR="$NVCF_LOCAL_DIR/nvcf-api"
bootstrap_match() { echo "account-bootstrap --kubeconfig $KWOK_WORKDIR/clusters/$1/kubeconfig.yaml "; }
bootstrap_start() {
  [ "$1" = nvcf-dev ] || return 0
  host_process_start "$API_DIR" "$1" "$(bootstrap_match "$1")" "stand-in account bootstrap" \
    node "$ROOT/tests/bin/account-bootstrap" --kubeconfig "$KWOK_WORKDIR/clusters/$1/kubeconfig.yaml" \
    --context "kwok-$1" --api-dir "$API_DIR" --kubectl "$(command -v kubectl)" --pid-file "$API_DIR/$1.pid"
}
bootstrap_stop() {
  [ "$1" = nvcf-dev ] || return 0
  host_process_stop "$API_DIR" "$1" "$(bootstrap_match "$1")" "stand-in account bootstrap"
  rm -f "$API_DIR/nvcf-api.json"
}

down_one() {
  local name=$1
  operator_stop "$name"
  gateway_stop "$name"
  inpod_stop "$name"
  bootstrap_stop "$name"
  if exists "$name"; then
    # The host-path volumes live on this machine: remove the directories of this cluster's volumes.
    local p
    for p in $(k "$name" get pv --request-timeout=10s -o jsonpath='{range .items[*]}{.spec.hostPath.path}{"\n"}{end}' 2>/dev/null); do
      case "$p" in /tmp/hostpath_pv/?*) rm -rf -- "$p" ;; esac
    done
    kwokctl delete cluster --name "$name" --kubeconfig "$KUBECONFIG_FILE" >/dev/null 2>&1 || true
    log "cluster $name: deleted"
  fi
  # Nothing may survive: stop any component still running from this cluster's work dir (TERM, then KILL
  # after 15 s; kube-apiserver takes a few seconds to shut down).
  local pat="$KWOK_WORKDIR/clusters/$name/" i
  pkill -f "$pat" 2>/dev/null || true
  for i in $(seq 1 30); do pgrep -f "$pat" >/dev/null 2>&1 || break; sleep 0.5; done
  pkill -9 -f "$pat" 2>/dev/null || true
  for i in $(seq 1 10); do pgrep -f "$pat" >/dev/null 2>&1 || break; sleep 0.5; done
  rm -rf "${KWOK_WORKDIR:?}/clusters/$name"
}

case "$cmd" in
  up)
    # Only the control-plane pieces (kwok, etcd, kube) are needed here; they are built first.
    for b in kwok kwokctl etcd kube-apiserver kube-controller-manager kube-scheduler kubectl; do
      [ -x "$NVCF_TOOLCHAIN_BIN/$b" ] || die "toolchain missing $b: run bash scripts/toolchain.sh kwok etcd kube"
    done
    for c in "${clusters[@]}"; do up_one "$c"; done
    echo "export KUBECONFIG=$KUBECONFIG_FILE"
    ;;
  down)
    # Without names: every cluster, the optional ones included.
    [ $# -gt 0 ] || clusters=("${ALL_CLUSTERS[@]}" "${OPTIONAL_CLUSTERS[@]}")
    for c in "${clusters[@]}"; do down_one "$c"; done
    # Only the named clusters' processes: other clusters of this NVCF_LOCAL_DIR may keep running.
    for c in "${clusters[@]}"; do
      if pgrep -f "$KWOK_WORKDIR/clusters/$c/" >/dev/null 2>&1; then die "processes of the local cluster $c are still running"; fi
    done
    ;;
  status)
    for c in "${ALL_CLUSTERS[@]}" "${OPTIONAL_CLUSTERS[@]}"; do
      case " ${OPTIONAL_CLUSTERS[*]} " in *" $c "*) exists "$c" || continue ;; esac
      if exists "$c" && k "$c" get --raw /readyz >/dev/null 2>&1; then echo "$c running"; elif exists "$c"; then echo "$c stopped"; else echo "$c absent"; fi
    done
    ;;
  kubeconfig) echo "$KUBECONFIG_FILE" ;;
  readiness) readiness_table ;;
  stages)
    [ $# -eq 1 ] || die "usage: cluster.sh stages NAME"
    kwok_stages "$1"
    ;;
  *) die "usage: cluster.sh up|down|status|kubeconfig|readiness|stages [NAME...]" ;;
esac
