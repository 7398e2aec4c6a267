/**
 * The status a Gateway API controller writes, as pure functions: the stand-in gateway controller
 * (tests/bin/gateway-controller) reads a snapshot of the cluster, `reconcile` says which status subresources differ
 * from what a conformant controller reports, and the controller writes exactly those. Test equipment for the local
 * clusters only (no data plane runs there); the unit tests are tests/unit/standins/gatewayStatus.test.ts.
 *
 * The rules follow the Gateway API specification at the CRD version scripts/cluster.sh installs (v1.2.0, experimental
 * channel: the API types and condition/reason constants of kubernetes-sigs/gateway-api `apis/v1/gatewayclass_types.go`,
 * `gateway_types.go`, `shared_types.go`, `httproute_types.go`), restated here:
 *   - GatewayClass whose spec.controllerName is ours: Accepted True (Accepted); SupportedVersion True when every
 *     Gateway API CRD's `gateway.networking.k8s.io/bundle-version` annotation is a version this controller knows,
 *     else False (UnsupportedVersion; the class stays Accepted, best effort, as the specification allows).
 *   - Gateway of such a class: per listener its supportedKinds (by protocol: HTTP/HTTPS → HTTPRoute, GRPCRoute;
 *     TLS → TLSRoute; TCP → TCPRoute; UDP → UDPRoute; narrowed by allowedRoutes.kinds), attachedRoutes (routes whose
 *     parentRef selects the listener and that its allowedRoutes admit, whatever their own status) and the
 *     conditions Accepted (False UnsupportedProtocol for a protocol outside the five), Conflicted (True
 *     ProtocolConflict for two listeners on one port with incompatible protocols, HostnameConflict for the same
 *     port, protocol and hostname; else False NoConflicts), ResolvedRefs (False InvalidRouteKinds for a kind the
 *     listener cannot serve, InvalidCertificateRef / RefNotPermitted for a TLS certificate Secret that is missing or
 *     in another namespace without a ReferenceGrant) and Programmed (True when accepted, unconflicted and resolved;
 *     else False Invalid); the Gateway's Accepted (True Accepted; True ListenersNotValid when some listeners are
 *     invalid, False when all are) and Programmed (True Programmed when a listener is programmed, else False
 *     Invalid); status.addresses = spec.addresses, else the controller's address.
 *   - HTTPRoute, GRPCRoute, TCPRoute, TLSRoute, UDPRoute: one status.parents entry per spec.parentRef that names a
 *     Gateway of ours (entries of other controllers are kept as they are, ours for parents no longer referenced are
 *     removed), with Accepted (True Accepted; False NoMatchingParent when no listener has the parentRef's
 *     sectionName/port, NotAllowedByListeners when no such listener admits the route's kind and namespace,
 *     NoMatchingListenerHostname when no admitting listener's hostname intersects the route's hostnames) and
 *     ResolvedRefs (True ResolvedRefs; False InvalidKind for a backendRef that is not a core Service,
 *     RefNotPermitted for a Service in another namespace that no ReferenceGrant there allows, BackendNotFound for a
 *     Service that does not exist; the first such backendRef gives the reason, the message names every one).
 *     A parentRef naming a missing Gateway, or one of another class, gets no entry from us (no controller can
 *     vouch for it; the specification says such parents are not listed).
 * Every condition carries the object's metadata.generation as observedGeneration, and keeps its
 * lastTransitionTime while its status is unchanged. What is computed equal (keys in any order) is not written.
 */
"use strict";

const GROUP = "gateway.networking.k8s.io";
/** The Gateway API bundle versions this controller is written against (the CRDs scripts/cluster.sh installs). */
const SUPPORTED_BUNDLE_VERSIONS = ["v1.2.0", "v1.2.1"];
/** Route kinds per listener protocol. */
const KINDS_BY_PROTOCOL = {
  HTTP: ["HTTPRoute", "GRPCRoute"],
  HTTPS: ["HTTPRoute", "GRPCRoute"],
  TLS: ["TLSRoute"],
  TCP: ["TCPRoute"],
  UDP: ["UDPRoute"],
};
/** Every route kind this controller writes status on, with the API version it reads and writes them through. */
const ROUTE_KINDS = {
  HTTPRoute: { version: "v1", plural: "httproutes", hostnames: true },
  GRPCRoute: { version: "v1", plural: "grpcroutes", hostnames: true },
  TCPRoute: { version: "v1alpha2", plural: "tcproutes", hostnames: false },
  TLSRoute: { version: "v1alpha2", plural: "tlsroutes", hostnames: true },
  UDPRoute: { version: "v1alpha2", plural: "udproutes", hostnames: false },
};

const terminating = (o) => !!o?.metadata?.deletionTimestamp;
const idOf = (o) => `${o.metadata.namespace}/${o.metadata.name}`;

/** A JSON text of `v` with object keys sorted, so two values compare equal whatever their key order. */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v && typeof v === "object")
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(",")}}`;
  return JSON.stringify(v);
}

/**
 * Conditions as written: each { type, status, reason, message } of `desired` with observedGeneration `generation`
 * and the lastTransitionTime of the same type in `previous` when its status is unchanged, else `now`.
 */
function withTimes(desired, previous, generation, now) {
  return desired.map((c) => {
    const old = (previous || []).find((p) => p.type === c.type);
    return {
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      observedGeneration: generation,
      lastTransitionTime: old && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now,
    };
  });
}

const cond = (type, ok, reason, message) => ({ type, status: ok ? "True" : "False", reason, message });

/**
 * Whether a label selector (matchLabels, matchExpressions In/NotIn/Exists/DoesNotExist) selects `labels`; an
 * empty selector selects everything, as in Kubernetes.
 */
function selects(selector, labels) {
  const l = labels || {};
  for (const [k, v] of Object.entries(selector?.matchLabels || {})) if (l[k] !== v) return false;
  for (const e of selector?.matchExpressions || []) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key);
    const vals = e.values || [];
    if (e.operator === "In" && !(has && vals.includes(l[e.key]))) return false;
    if (e.operator === "NotIn" && has && vals.includes(l[e.key])) return false;
    if (e.operator === "Exists" && !has) return false;
    if (e.operator === "DoesNotExist" && has) return false;
  }
  return true;
}

/**
 * Whether two hostnames intersect: equal, or one is a wildcard `*.suffix` the other falls under (a precise name
 * with at least one more label, or a wildcard of the same or a longer suffix). Hostnames compare case-insensitively.
 */
function hostnamesIntersect(a, b) {
  const x = String(a).toLowerCase();
  const y = String(b).toLowerCase();
  // `name` falls under `*.suffix`: a precise name ending in ".suffix" (so one label more at least), or a wildcard
  // whose own suffix is the same or ends in ".suffix".
  const under = (name, wildcard) => {
    const suffix = wildcard.slice(1);
    return name.startsWith("*.") ? name.slice(1).endsWith(suffix) : name.endsWith(suffix);
  };
  return x === y || (y.startsWith("*.") && under(x, y)) || (x.startsWith("*.") && under(y, x));
}

/**
 * The route kinds a listener serves: { kinds: [{group, kind}], invalid: [names of allowedRoutes.kinds it cannot
 * serve] }. Without allowedRoutes.kinds, the kinds of its protocol.
 */
function listenerKinds(listener) {
  const byProtocol = KINDS_BY_PROTOCOL[listener.protocol] || [];
  const asked = listener.allowedRoutes?.kinds;
  if (!asked || asked.length === 0) return { kinds: byProtocol.map((kind) => ({ group: GROUP, kind })), invalid: [] };
  const kinds = [];
  const invalid = [];
  for (const k of asked) {
    const group = k.group === undefined ? GROUP : k.group;
    if (group === GROUP && byProtocol.includes(k.kind)) kinds.push({ group, kind: k.kind });
    else invalid.push(`${group ? `${group}/` : ""}${k.kind}`);
  }
  return { kinds, invalid };
}

/** Whether a listener's allowedRoutes.namespaces admits a route from namespace `routeNs` (default: Same). */
function admitsNamespace(listener, gatewayNs, routeNs, namespaces) {
  const from = listener.allowedRoutes?.namespaces?.from || "Same";
  if (from === "All") return true;
  if (from === "Same") return routeNs === gatewayNs;
  if (from === "Selector") {
    const ns = namespaces.get(routeNs);
    return !!ns && selects(listener.allowedRoutes.namespaces.selector, ns.metadata.labels);
  }
  return false;
}

/** The namespaces of a snapshot by name. */
const namespaceMap = (snap) => new Map((snap.namespaces || []).map((n) => [n.metadata.name, n]));

/**
 * Whether a ReferenceGrant in namespace `toNs` lets `fromKind` objects of namespace `fromNs` (group `fromGroup`)
 * refer to the `toKind` (core group when `toGroup` is "") named `toName` there.
 */
function grantAllows(grants, { fromGroup, fromKind, fromNs, toGroup, toKind, toNs, toName }) {
  return (grants || []).some(
    (g) =>
      g.metadata.namespace === toNs &&
      !terminating(g) &&
      (g.spec?.from || []).some((f) => f.group === fromGroup && f.kind === fromKind && f.namespace === fromNs) &&
      (g.spec?.to || []).some((t) => (t.group || "") === toGroup && t.kind === toKind && (!t.name || t.name === toName)),
  );
}

/** Whether two listeners on one port cannot share it: HTTPS and TLS can (SNI), TCP and UDP are separate transports. */
function protocolsConflict(a, b) {
  if (a === b) return false;
  const udp = (p) => p === "UDP";
  if (udp(a) !== udp(b)) return false;
  const sni = ["HTTPS", "TLS"];
  return !(sni.includes(a) && sni.includes(b));
}

/**
 * Per listener of a Gateway: { name, listener, kinds, accepted, conflicted, resolved, programmed, conditions } (the
 * desired conditions without times). Secrets (`namespace/name`) and ReferenceGrants resolve TLS certificateRefs.
 */
function listenerStates(gw, snap) {
  const listeners = gw.spec?.listeners || [];
  return listeners.map((l) => {
    const { kinds, invalid } = listenerKinds(l);
    const knownProtocol = Object.prototype.hasOwnProperty.call(KINDS_BY_PROTOCOL, l.protocol);
    const samePort = listeners.filter((o) => o !== l && o.port === l.port);
    const protocolConflict = samePort.find((o) => protocolsConflict(o.protocol, l.protocol));
    const hostnameConflict = samePort.find(
      (o) => o.protocol === l.protocol && (o.hostname || "") === (l.hostname || ""),
    );
    const conflicted = protocolConflict
      ? cond("Conflicted", true, "ProtocolConflict", `listener ${protocolConflict.name} uses port ${l.port} with protocol ${protocolConflict.protocol}`)
      : hostnameConflict
        ? cond("Conflicted", true, "HostnameConflict", `listener ${hostnameConflict.name} uses port ${l.port}, protocol ${l.protocol} and the same hostname`)
        : cond("Conflicted", false, "NoConflicts", "no conflicts");
    const accepted = knownProtocol
      ? cond("Accepted", true, "Accepted", "listener accepted")
      : cond("Accepted", false, "UnsupportedProtocol", `protocol ${l.protocol} is not supported`);
    let resolved = cond("ResolvedRefs", true, "ResolvedRefs", "references resolved");
    if (invalid.length)
      resolved = cond("ResolvedRefs", false, "InvalidRouteKinds", `route kind(s) ${invalid.join(", ")} cannot attach to a ${l.protocol} listener`);
    for (const ref of l.tls?.certificateRefs || []) {
      if (resolved.status === "False") break;
      const group = ref.group || "";
      const kind = ref.kind || "Secret";
      const ns = ref.namespace || gw.metadata.namespace;
      if (group !== "" || kind !== "Secret") {
        resolved = cond("ResolvedRefs", false, "InvalidCertificateRef", `certificateRef ${group ? `${group}/` : ""}${kind} ${ns}/${ref.name} is not a core Secret`);
      } else if (
        ns !== gw.metadata.namespace &&
        !grantAllows(snap.referenceGrants, { fromGroup: GROUP, fromKind: "Gateway", fromNs: gw.metadata.namespace, toGroup: "", toKind: "Secret", toNs: ns, toName: ref.name })
      ) {
        resolved = cond("ResolvedRefs", false, "RefNotPermitted", `no ReferenceGrant in namespace ${ns} lets Gateways of ${gw.metadata.namespace} use Secret ${ref.name}`);
      } else if (!(snap.secrets || new Set()).has(`${ns}/${ref.name}`)) {
        resolved = cond("ResolvedRefs", false, "InvalidCertificateRef", `Secret ${ns}/${ref.name} not found`);
      }
    }
    const ok = accepted.status === "True" && conflicted.status === "False" && resolved.status === "True";
    const programmed = ok
      ? cond("Programmed", true, "Programmed", "listener programmed")
      : cond("Programmed", false, "Invalid", "listener is not valid: see its other conditions");
    return {
      name: l.name,
      listener: l,
      kinds,
      ok,
      conditions: [accepted, conflicted, resolved, programmed],
    };
  });
}

/** The class of a Gateway when its controller is ours (and it is not being deleted), else undefined. */
function ourClass(gw, snap) {
  const cls = (snap.gatewayClasses || []).find((c) => c.metadata.name === gw.spec?.gatewayClassName);
  return cls && cls.spec?.controllerName === snap.controllerName && !terminating(cls) ? cls : undefined;
}

/** The Gateway a parentRef names (Gateway kind of the Gateway API group only; namespace defaults to the route's). */
function parentGateway(ref, route, snap) {
  const group = ref.group === undefined ? GROUP : ref.group;
  const kind = ref.kind || "Gateway";
  if (group !== GROUP || kind !== "Gateway") return undefined;
  const ns = ref.namespace || route.metadata.namespace;
  return (snap.gateways || []).find((g) => g.metadata.namespace === ns && g.metadata.name === ref.name);
}

/**
 * How a route relates to one of its parentRefs on a Gateway of ours: { attached: [listener names it attaches to],
 * accepted: the desired Accepted condition }. Attachment is parentRef + allowedRoutes (kind and namespace);
 * acceptance also needs a listener hostname that intersects the route's hostnames.
 */
function attachment(route, kind, ref, gw, snap, namespaces) {
  const gwId = idOf(gw);
  const states = listenerStates(gw, snap);
  const cand = states.filter(
    (s) => (!ref.sectionName || s.name === ref.sectionName) && (!ref.port || s.listener.port === ref.port),
  );
  const what = [ref.sectionName && `named "${ref.sectionName}"`, ref.port && `on port ${ref.port}`].filter(Boolean).join(" ");
  if (cand.length === 0)
    return {
      attached: [],
      accepted: cond("Accepted", false, "NoMatchingParent", `Gateway ${gwId} has no listener ${what}`),
    };
  const routeNs = route.metadata.namespace;
  const admitted = cand.filter(
    (s) => s.kinds.some((k) => k.kind === kind) && admitsNamespace(s.listener, gw.metadata.namespace, routeNs, namespaces),
  );
  if (admitted.length === 0) {
    const which = cand.map((s) => s.name).join(", ");
    return {
      attached: [],
      accepted: cond("Accepted", false, "NotAllowedByListeners", `listener(s) ${which} of Gateway ${gwId} do not admit a ${kind} from namespace ${routeNs} (allowedRoutes)`),
    };
  }
  const attached = admitted.map((s) => s.name);
  const hostnames = ROUTE_KINDS[kind].hostnames ? route.spec?.hostnames || [] : [];
  if (hostnames.length > 0) {
    const matching = admitted.filter(
      (s) => !s.listener.hostname || hostnames.some((h) => hostnamesIntersect(h, s.listener.hostname)),
    );
    if (matching.length === 0)
      return {
        attached,
        accepted: cond("Accepted", false, "NoMatchingListenerHostname", `no hostname of the route (${hostnames.join(", ")}) intersects the hostname of listener(s) ${attached.join(", ")} of Gateway ${gwId}`),
      };
  }
  return {
    attached,
    accepted: cond("Accepted", true, "Accepted", `accepted by listener(s) ${attached.join(", ")} of Gateway ${gwId}`),
  };
}

/** The desired ResolvedRefs condition of a route: its rules' backendRefs against Services and ReferenceGrants. */
function resolvedRefs(route, kind, snap) {
  const problems = [];
  const routeNs = route.metadata.namespace;
  for (const rule of route.spec?.rules || []) {
    for (const b of rule.backendRefs || []) {
      const group = b.group || "";
      const bkind = b.kind || "Service";
      const ns = b.namespace || routeNs;
      const ref = `${group ? `${group}/` : ""}${bkind} ${ns}/${b.name}`;
      if (group !== "" || bkind !== "Service") problems.push(["InvalidKind", `backendRef ${ref}: only core Services are supported`]);
      else if (
        ns !== routeNs &&
        !grantAllows(snap.referenceGrants, { fromGroup: GROUP, fromKind: kind, fromNs: routeNs, toGroup: "", toKind: "Service", toNs: ns, toName: b.name })
      )
        problems.push(["RefNotPermitted", `backendRef ${ref}: no ReferenceGrant in namespace ${ns} allows ${kind}s from namespace ${routeNs}`]);
      else if (!(snap.services || new Set()).has(`${ns}/${b.name}`)) problems.push(["BackendNotFound", `Service ${ns}/${b.name} not found`]);
    }
  }
  if (problems.length === 0) return cond("ResolvedRefs", true, "ResolvedRefs", "all references resolved");
  return cond("ResolvedRefs", false, problems[0][0], problems.map((p) => p[1]).join("; "));
}

/** Whether a status parents entry is ours and for this parentRef (same group, kind, namespace, name, section, port). */
function sameParent(a, b, routeNs) {
  const norm = (r) => ({
    group: r.group === undefined ? GROUP : r.group,
    kind: r.kind || "Gateway",
    namespace: r.namespace || routeNs,
    name: r.name,
    sectionName: r.sectionName || "",
    port: r.port || 0,
  });
  return canonical(norm(a)) === canonical(norm(b));
}

/**
 * The status writes that bring the cluster to what a conformant controller reports. Input: a snapshot
 * { controllerName, addresses: [{type, value}] (the controller's own, used when a Gateway's spec asks for none),
 * now (RFC 3339), bundleVersions: { crdName: bundle-version annotation } of the Gateway API CRDs, gatewayClasses,
 * gateways, routes: { HTTPRoute: [...], ... } (kinds not served are left out), namespaces (metadata: name, labels,
 * deletionTimestamp), services and secrets (Sets of `namespace/name`), referenceGrants }. Output: a list of
 * { kind, group, version, plural, namespace, name, resourceVersion, status, summary } for the objects whose status
 * differs (summary: a short line for the log), GatewayClasses first, then Gateways, then routes. Objects being
 * deleted, and objects in namespaces being deleted, are left alone.
 */
function reconcile(snap) {
  const out = [];
  const namespaces = namespaceMap(snap);
  const live = (o) => !terminating(o) && !terminating(namespaces.get(o.metadata.namespace));
  const now = snap.now;

  // GatewayClasses
  const versions = Object.entries(snap.bundleVersions || {});
  const unsupported = versions.filter(([, v]) => !SUPPORTED_BUNDLE_VERSIONS.includes(v));
  for (const cls of snap.gatewayClasses || []) {
    if (cls.spec?.controllerName !== snap.controllerName || terminating(cls)) continue;
    const gen = cls.metadata.generation;
    const desired = [cond("Accepted", true, "Accepted", `accepted by ${snap.controllerName}`)];
    desired.push(
      unsupported.length === 0
        ? cond("SupportedVersion", true, "SupportedVersion", `Gateway API bundle ${[...new Set(versions.map(([, v]) => v))].join(", ") || "version unknown"} is supported`)
        : cond("SupportedVersion", false, "UnsupportedVersion", `CRD(s) ${unsupported.map(([n, v]) => `${n} (${v || "no bundle-version annotation"})`).join(", ")}; supported: ${SUPPORTED_BUNDLE_VERSIONS.join(", ")}`),
    );
    const status = { ...(cls.status || {}), conditions: withTimes(desired, cls.status?.conditions, gen, now) };
    pushIfChanged(out, cls, "GatewayClass", "v1", "gatewayclasses", status, summarize(status.conditions));
  }

  // Attachment of every live route to every listener of our Gateways, and the routes' desired parents.
  const attachedCount = new Map(); // `${gatewayId}/${listener}` -> count
  const routeWrites = [];
  for (const [kind, spec] of Object.entries(ROUTE_KINDS)) {
    for (const route of (snap.routes || {})[kind] || []) {
      if (!live(route)) continue;
      const gen = route.metadata.generation;
      const routeNs = route.metadata.namespace;
      const previous = route.status?.parents || [];
      const ours = [];
      let resolved;
      for (const ref of route.spec?.parentRefs || []) {
        const gw = parentGateway(ref, route, snap);
        if (!gw || !ourClass(gw, snap) || terminating(gw)) continue;
        const a = attachment(route, kind, ref, gw, snap, namespaces);
        for (const l of a.attached) {
          const key = `${idOf(gw)}/${l}`;
          attachedCount.set(key, (attachedCount.get(key) || 0) + 1);
        }
        resolved = resolved || resolvedRefs(route, kind, snap);
        const old = previous.find((p) => p.controllerName === snap.controllerName && sameParent(p.parentRef || {}, ref, routeNs));
        ours.push({
          parentRef: ref,
          controllerName: snap.controllerName,
          conditions: withTimes([a.accepted, resolved], old?.conditions, gen, now),
        });
      }
      const others = previous.filter((p) => p.controllerName !== snap.controllerName);
      // A route that never named a Gateway of ours is not ours to write on.
      if (ours.length === 0 && others.length === previous.length) continue;
      const status = { ...(route.status || {}), parents: [...others, ...ours] };
      routeWrites.push([route, kind, spec, status, ours]);
    }
  }

  // Gateways
  for (const gw of snap.gateways || []) {
    if (!live(gw) || !ourClass(gw, snap)) continue;
    const gen = gw.metadata.generation;
    const states = listenerStates(gw, snap);
    const valid = states.filter((s) => s.ok).length;
    const accepted =
      valid === states.length
        ? cond("Accepted", true, "Accepted", "gateway accepted")
        : cond("Accepted", valid > 0, "ListenersNotValid", `${states.length - valid} of ${states.length} listener(s) are not valid`);
    const programmed =
      valid > 0
        ? cond("Programmed", true, "Programmed", "gateway programmed (stand-in: no data plane on the local cluster)")
        : cond("Programmed", false, "Invalid", "no valid listener");
    const previousListeners = gw.status?.listeners || [];
    const listeners = states.map((s) => ({
      name: s.name,
      supportedKinds: s.kinds,
      attachedRoutes: attachedCount.get(`${idOf(gw)}/${s.name}`) || 0,
      conditions: withTimes(s.conditions, previousListeners.find((p) => p.name === s.name)?.conditions, gen, now),
    }));
    const specAddresses = (gw.spec?.addresses || []).map((a) => ({ type: a.type || "IPAddress", value: a.value }));
    const status = {
      ...(gw.status || {}),
      addresses: specAddresses.length ? specAddresses : snap.addresses || [],
      conditions: withTimes([accepted, programmed], gw.status?.conditions, gen, now),
      listeners,
    };
    pushIfChanged(out, gw, "Gateway", "v1", "gateways", status, `${summarize(status.conditions)}; listeners ${listeners.map((l) => `${l.name} (${l.attachedRoutes} route${l.attachedRoutes === 1 ? "" : "s"})`).join(", ")}`);
  }

  for (const [route, kind, spec, status, ours] of routeWrites)
    pushIfChanged(out, route, kind, spec.version, spec.plural, status, ours.length ? ours.map((p) => `${p.parentRef.name}${p.parentRef.sectionName ? `:${p.parentRef.sectionName}` : ""} ${summarize(p.conditions)}`).join("; ") : "no parent of ours: our entries removed");
  return out;
}

/** "Accepted=True, Programmed=False (Invalid)" for a condition list. */
function summarize(conditions) {
  return conditions.map((c) => `${c.type}=${c.status}${c.status === "True" ? "" : ` (${c.reason})`}`).join(", ");
}

function pushIfChanged(out, obj, kind, version, plural, status, summary) {
  if (canonical(status) === canonical(obj.status || {})) return;
  out.push({
    kind,
    group: GROUP,
    version,
    plural,
    namespace: obj.metadata.namespace,
    name: obj.metadata.name,
    resourceVersion: obj.metadata.resourceVersion,
    status,
    summary,
  });
}

module.exports = {
  GROUP,
  ROUTE_KINDS,
  SUPPORTED_BUNDLE_VERSIONS,
  canonical,
  hostnamesIntersect,
  listenerKinds,
  selects,
  reconcile,
};
