/**
 * The stand-in OpenBao server of the local clusters: what `bao status` (tests/bin/inpod/bao) reads and what its
 * host process (tests/bin/inpod-agent) keeps current.
 *
 * The real chart's HA config (NVIDIA deploy/helm/openbao/helm/values.yaml: raft storage at /openbao/data,
 * `service_registration "kubernetes" {}`) makes every server label its own pod with its state: openbao-active,
 * openbao-sealed, openbao-initialized, openbao-perf-standby ("true"/"false") and openbao-version; the chart's
 * <name>-active / <name>-standby Services select on openbao-active. The stand-in keeps the same facts the same
 * way:
 *   - initialized: the pod's data volume holds the raft state (vault.db and raft/raft.db under /openbao/data,
 *     JSON in the stand-in: cluster name and ID), written on every server's volume once the release's
 *     <name>-initialize-cluster hook Job has succeeded (it runs `bao operator init` for real), and on a server
 *     that joins later (raft join);
 *   - sealed: a server starts sealed; once initialized, its auto-unseal sidecar unseals it (the stand-in: at the
 *     agent's next pass after the pod runs);
 *   - active: one unsealed server per StatefulSet is active, the others standby; the active one stays active
 *     while its pod runs, and when it is deleted (or sealed) the lowest-ordinal unsealed standby takes over.
 * The agent writes these as the pod labels; `bao status` prints them, with the active server's address.
 */
"use strict";

const crypto = require("crypto");
const fs = require("fs");
const path = require("path");
const { containerOf, hostPathOf } = require("./kube.js");

const CONTAINER = "openbao";
const DATA = "/openbao/data";
const LABELS = ["openbao-active", "openbao-initialized", "openbao-perf-standby", "openbao-sealed", "openbao-version"];

/** The OpenBao version a server reports: the leading x.y.z of its image tag (2.5.5-nv-1.3.1 → 2.5.5). */
function versionOf(pod) {
  const img = containerOf(pod, CONTAINER)?.image || "";
  const tag = img.includes(":") ? img.slice(img.lastIndexOf(":") + 1) : "";
  return (/^v?(\d+\.\d+\.\d+)/.exec(tag) || [])[1] || tag || "unknown";
}

/** The host directory of the server's /openbao/data, or throws with why there is none. */
async function dataDirOf(kube, pod) {
  return (await hostPathOf(kube, pod, CONTAINER, DATA)).host;
}

/** The raft state on a data directory ({ cluster_name, cluster_id, initialized_at }), or null. */
function raftState(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, "vault.db"), "utf8"));
  } catch {
    return null;
  }
}

/** Writes the raft state of cluster `state` on a server's data directory (init, or a server joining). */
function writeRaftState(dir, state, nodeId) {
  fs.mkdirSync(path.join(dir, "raft"), { recursive: true });
  fs.writeFileSync(path.join(dir, "raft", "raft.db"), `${JSON.stringify({ node_id: nodeId })}\n`);
  fs.writeFileSync(path.join(dir, "vault.db"), `${JSON.stringify(state)}\n`);
}

/** A new cluster's identity, as `bao operator init` makes one. */
const newCluster = () => ({
  cluster_name: `vault-cluster-${crypto.randomBytes(4).toString("hex")}`,
  cluster_id: crypto.randomUUID(),
  initialized_at: new Date().toISOString(),
});

/** The HA record of a StatefulSet kept by the agent: { active, activeSince } (file under the state directory). */
const haFile = (stateDir, ns, sts) => path.join(stateDir, "openbao", `${ns}.${sts}.json`);

function readHa(stateDir, ns, sts) {
  try {
    return JSON.parse(fs.readFileSync(haFile(stateDir, ns, sts), "utf8"));
  } catch {
    return {};
  }
}

function writeHa(stateDir, ns, sts, ha) {
  fs.mkdirSync(path.dirname(haFile(stateDir, ns, sts)), { recursive: true });
  fs.writeFileSync(haFile(stateDir, ns, sts), `${JSON.stringify(ha)}\n`);
}

/**
 * The KV state of a StatefulSet's servers (lib/openbaoKv.js: root token, mounts, entries), one JSON file under
 * the state directory, as raft replicates it to every server. Output: { load() → state, save(state) }.
 */
function kvStore(stateDir, ns, sts) {
  const file = path.join(stateDir, "openbao", `${ns}.${sts}.kv.json`);
  return {
    file,
    load() {
      try {
        return JSON.parse(fs.readFileSync(file, "utf8"));
      } catch {
        return { mounts: {} };
      }
    },
    save(state) {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const tmp = `${file}.${process.pid}`;
      fs.writeFileSync(tmp, `${JSON.stringify(state)}\n`, { mode: 0o600 });
      fs.renameSync(tmp, file);
    },
  };
}

module.exports = { kvStore, CONTAINER, DATA, LABELS, versionOf, dataDirOf, raftState, writeRaftState, newCluster, readHa, writeHa };
