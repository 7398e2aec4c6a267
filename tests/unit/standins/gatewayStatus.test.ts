/**
 * The stand-in gateway controller's status logic (tests/bin/gateway-status.js, used by tests/bin/gateway-controller
 * on the local clusters): what a Gateway API controller writes on GatewayClasses, Gateways and routes per the
 * specification at v1.2.0 (conditions, reasons, listener status, attachment), and that it writes nothing when the
 * status is already right. Pure functions on recorded objects; the controller itself runs in the e2e suites.
 */
import {
  type GwObject,
  type Snapshot,
  type StatusWrite,
  hostnamesIntersect,
  listenerKinds,
  reconcile,
  selects,
} from "../../bin/gateway-status";

const CONTROLLER = "gateway.envoyproxy.io/gatewayclass-controller";
const GROUP = "gateway.networking.k8s.io";
const T0 = "2026-12-01T00:00:00Z";
const T1 = "2026-12-01T00:05:00Z";

const platform = { namespaces: { from: "Selector", selector: { matchLabels: { "nvcf/platform": "true" } } } };
const listener = (name: string, protocol: string, port: number, extra: object = {}) => ({
  name,
  protocol,
  port,
  allowedRoutes: platform,
  ...extra,
});
/** The Gateway scripts/cluster.sh creates on nvcf-dev. */
const devGateway = (
  listeners = [
    listener("http", "HTTP", 80),
    listener("tcp", "TCP", 10081),
    listener("nats", "TCP", 4222),
    listener("worker-tcp", "TCP", 10086),
  ],
): GwObject => ({
  metadata: { name: "nvcf-gateway", namespace: "envoy-gateway", generation: 1, resourceVersion: "10" },
  spec: { gatewayClassName: "eg", listeners },
});
const gatewayRef = (sectionName?: string, extra: object = {}) => ({
  group: GROUP,
  kind: "Gateway",
  name: "nvcf-gateway",
  namespace: "envoy-gateway",
  ...(sectionName ? { sectionName } : {}),
  ...extra,
});
const httpRoute = (name: string, spec: object, ns = "envoy-gateway", generation = 1): GwObject => ({
  metadata: { name, namespace: ns, generation, resourceVersion: "20" },
  spec: { parentRefs: [gatewayRef("http")], ...spec },
});
const backend = (name: string, namespace?: string, extra: object = {}) => ({
  group: "",
  kind: "Service",
  name,
  ...(namespace ? { namespace } : {}),
  port: 8080,
  ...extra,
});
const grant = (ns: string, fromKind: string, fromNs: string, toName?: string): GwObject => ({
  metadata: { name: `allow-${fromKind.toLowerCase()}`, namespace: ns },
  spec: {
    from: [{ group: GROUP, kind: fromKind, namespace: fromNs }],
    to: [{ group: "", kind: "Service", ...(toName ? { name: toName } : {}) }],
  },
});

/** The dev cluster as the ingress release leaves it: class, Gateway, namespaces, Services, ReferenceGrants. */
function snap(over: Partial<Snapshot> = {}): Snapshot {
  return {
    controllerName: CONTROLLER,
    addresses: [{ type: "IPAddress", value: "127.0.0.1" }],
    now: T0,
    bundleVersions: { [`gatewayclasses.${GROUP}`]: "v1.2.0", [`httproutes.${GROUP}`]: "v1.2.0" },
    gatewayClasses: [{ metadata: { name: "eg", generation: 1 }, spec: { controllerName: CONTROLLER } }],
    gateways: [devGateway()],
    routes: {
      HTTPRoute: [
        httpRoute("nvcf-api", {
          hostnames: ["api.nvcf.test"],
          rules: [{ backendRefs: [backend("api", "nvcf")] }],
        }),
      ],
      TCPRoute: [
        {
          metadata: { name: "nats", namespace: "envoy-gateway", generation: 1 },
          spec: {
            parentRefs: [gatewayRef("nats")],
            rules: [{ backendRefs: [backend("nats", "nats-system")] }],
          },
        },
      ],
    },
    namespaces: [
      { metadata: { name: "envoy-gateway", labels: { "nvcf/platform": "true" } } },
      { metadata: { name: "nvcf", labels: { "nvcf/platform": "true" } } },
      { metadata: { name: "nats-system" } },
      { metadata: { name: "other" } },
    ],
    services: new Set(["nvcf/api", "nats-system/nats"]),
    secrets: new Set(),
    referenceGrants: [
      grant("nvcf", "HTTPRoute", "envoy-gateway"),
      grant("nats-system", "TCPRoute", "envoy-gateway", "nats"),
    ],
    ...over,
  };
}

const write = (ws: StatusWrite[], kind: string, name: string) => {
  const w = ws.find((x) => x.kind === kind && x.name === name);
  if (!w)
    throw new Error(
      `no status write for ${kind} ${name}: ${ws.map((x) => `${x.kind} ${x.name}`).join(", ")}`,
    );
  return w;
};
/** type → [status, reason] of a condition list. */
const conds = (cs: { type: string; status: string; reason: string }[]) =>
  Object.fromEntries(cs.map((c) => [c.type, [c.status, c.reason]]));
/** The conditions of a route's only entry of ours. */
const routeConds = (s: Snapshot, name: string, kind = "HTTPRoute") => {
  const parents = write(reconcile(s), kind, name).status.parents.filter(
    (p: { controllerName: string }) => p.controllerName === CONTROLLER,
  );
  expect(parents).toHaveLength(1);
  return conds(parents[0].conditions);
};
/** `v` with every object's keys in reverse order (what another serializer might return). */
const reversedKeys = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(reversedKeys)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.entries(v)
            .reverse()
            .map(([k, x]) => [k, reversedKeys(x)]),
        )
      : v;
/** Applies the writes to the snapshot's objects, as the API server would store them. */
function apply(s: Snapshot, ws: StatusWrite[]) {
  const all = [...(s.gatewayClasses ?? []), ...(s.gateways ?? []), ...Object.values(s.routes ?? {}).flat()];
  for (const w of ws) {
    const o = all.find(
      (x) => x.metadata.name === w.name && (x.metadata.namespace ?? undefined) === w.namespace,
    );
    if (o) o.status = JSON.parse(JSON.stringify(w.status));
  }
}

describe("GatewayClass", () => {
  test("ours is Accepted, with SupportedVersion for the v1.2.0 CRDs; another controller's class is left alone", () => {
    const s = snap();
    s.gatewayClasses?.push({ metadata: { name: "other" }, spec: { controllerName: "example.net/other" } });
    const ws = reconcile(s);
    expect(ws.filter((w) => w.kind === "GatewayClass").map((w) => w.name)).toEqual(["eg"]);
    const c = write(ws, "GatewayClass", "eg").status.conditions;
    expect(conds(c)).toEqual({
      Accepted: ["True", "Accepted"],
      SupportedVersion: ["True", "SupportedVersion"],
    });
    expect(
      c.every(
        (x: { observedGeneration: number; lastTransitionTime: string }) =>
          x.observedGeneration === 1 && x.lastTransitionTime === T0,
      ),
    ).toBe(true);
  });

  test("CRDs of an unknown bundle version: SupportedVersion False (UnsupportedVersion), still Accepted", () => {
    const s = snap({
      bundleVersions: { [`gatewayclasses.${GROUP}`]: "v1.4.0", [`httproutes.${GROUP}`]: "" },
    });
    const c = write(reconcile(s), "GatewayClass", "eg").status.conditions;
    expect(conds(c)).toEqual({
      Accepted: ["True", "Accepted"],
      SupportedVersion: ["False", "UnsupportedVersion"],
    });
    expect(c[1].message).toBe(
      `CRD(s) gatewayclasses.${GROUP} (v1.4.0), httproutes.${GROUP} (no bundle-version annotation); supported: v1.2.0, v1.2.1`,
    );
  });
});

describe("Gateway", () => {
  test("the dev Gateway: Accepted, Programmed, the controller's address, per listener kinds, attached routes and conditions", () => {
    const st = write(reconcile(snap()), "Gateway", "nvcf-gateway").status;
    expect(conds(st.conditions)).toEqual({
      Accepted: ["True", "Accepted"],
      Programmed: ["True", "Programmed"],
    });
    expect(st.addresses).toEqual([{ type: "IPAddress", value: "127.0.0.1" }]);
    expect(
      st.listeners.map((l: { name: string; attachedRoutes: number }) => [l.name, l.attachedRoutes]),
    ).toEqual([
      ["http", 1],
      ["tcp", 0],
      ["nats", 1],
      ["worker-tcp", 0],
    ]);
    expect(st.listeners[0].supportedKinds).toEqual([
      { group: GROUP, kind: "HTTPRoute" },
      { group: GROUP, kind: "GRPCRoute" },
    ]);
    expect(st.listeners[1].supportedKinds).toEqual([{ group: GROUP, kind: "TCPRoute" }]);
    expect(conds(st.listeners[0].conditions)).toEqual({
      Accepted: ["True", "Accepted"],
      Conflicted: ["False", "NoConflicts"],
      ResolvedRefs: ["True", "ResolvedRefs"],
      Programmed: ["True", "Programmed"],
    });
  });

  test("spec.addresses are reported as given", () => {
    const s = snap();
    (s.gateways as GwObject[])[0].spec.addresses = [
      { value: "10.1.2.3" },
      { type: "Hostname", value: "lb.example.com" },
    ];
    expect(write(reconcile(s), "Gateway", "nvcf-gateway").status.addresses).toEqual([
      { type: "IPAddress", value: "10.1.2.3" },
      { type: "Hostname", value: "lb.example.com" },
    ]);
  });

  test("a route counts as attached when its parentRef and allowedRoutes select the listener, whatever its own status", () => {
    const s = snap();
    // Backend missing (ResolvedRefs False) and a hostname the listener does not have: still attached.
    (s.gateways as GwObject[])[0].spec.listeners[0].hostname = "*.nvcf.test";
    s.routes?.HTTPRoute?.push(
      httpRoute("elsewhere", { hostnames: ["x.example.com"], rules: [{ backendRefs: [backend("gone")] }] }),
      httpRoute("not-admitted", {}, "other"),
    );
    const st = write(reconcile(s), "Gateway", "nvcf-gateway").status;
    expect(st.listeners[0].attachedRoutes).toBe(2);
  });

  test("invalid listeners: protocol conflict on one port, unsupported protocol, route kinds it cannot serve, missing certificate", () => {
    const s = snap({
      gateways: [
        devGateway([
          listener("http", "HTTP", 80),
          listener("tcp80", "TCP", 80),
          listener("sctp", "SCTP", 9000),
          listener("kinds", "TCP", 10081, { allowedRoutes: { ...platform, kinds: [{ kind: "HTTPRoute" }] } }),
          listener("tls", "HTTPS", 443, { tls: { certificateRefs: [{ name: "cert" }] } }),
          listener("tls-other", "HTTPS", 8443, {
            tls: { certificateRefs: [{ name: "cert", namespace: "nvcf" }] },
          }),
          listener("udp80", "UDP", 80),
        ]),
      ],
    });
    const st = write(reconcile(s), "Gateway", "nvcf-gateway").status;
    const byName = Object.fromEntries(
      st.listeners.map((l: { name: string; conditions: never[] }) => [l.name, conds(l.conditions)]),
    );
    expect(byName["http"]["Conflicted"]).toEqual(["True", "ProtocolConflict"]);
    expect(byName["tcp80"]["Programmed"]).toEqual(["False", "Invalid"]);
    expect(byName["udp80"]["Conflicted"]).toEqual(["False", "NoConflicts"]);
    expect(byName["sctp"]["Accepted"]).toEqual(["False", "UnsupportedProtocol"]);
    expect(byName["kinds"]["ResolvedRefs"]).toEqual(["False", "InvalidRouteKinds"]);
    expect(st.listeners.find((l: { name: string }) => l.name === "kinds").supportedKinds).toEqual([]);
    expect(byName["tls"]["ResolvedRefs"]).toEqual(["False", "InvalidCertificateRef"]);
    expect(byName["tls-other"]["ResolvedRefs"]).toEqual(["False", "RefNotPermitted"]);
    expect(conds(st.conditions)).toEqual({
      Accepted: ["True", "ListenersNotValid"],
      Programmed: ["True", "Programmed"],
    });
    // The certificate Secret present: resolved.
    s.secrets = new Set(["envoy-gateway/cert"]);
    const again = write(reconcile(s), "Gateway", "nvcf-gateway").status;
    expect(
      conds(again.listeners.find((l: { name: string }) => l.name === "tls").conditions)["ResolvedRefs"],
    ).toEqual(["True", "ResolvedRefs"]);
  });

  test("no valid listener at all: Accepted and Programmed False", () => {
    const st = write(
      reconcile(snap({ gateways: [devGateway([listener("x", "SCTP", 1)])] })),
      "Gateway",
      "nvcf-gateway",
    ).status;
    expect(conds(st.conditions)).toEqual({
      Accepted: ["False", "ListenersNotValid"],
      Programmed: ["False", "Invalid"],
    });
  });

  test("a Gateway of another class, or being deleted, or in a namespace being deleted, is left alone", () => {
    const s = snap();
    (s.gateways as GwObject[])[0].spec.gatewayClassName = "other";
    expect(reconcile(s).filter((w) => w.kind !== "GatewayClass")).toEqual([]);
    const d = snap();
    (d.gateways as GwObject[])[0].metadata.deletionTimestamp = T0;
    expect(reconcile(d).map((w) => w.kind)).toEqual(["GatewayClass"]);
    const n = snap();
    (n.namespaces as GwObject[])[0].metadata.deletionTimestamp = T0;
    expect(reconcile(n).map((w) => w.kind)).toEqual(["GatewayClass"]);
  });
});

describe("routes: Accepted", () => {
  test("a route whose listener exists and admits it, with resolvable backends: Accepted and ResolvedRefs True", () => {
    const ws = reconcile(snap());
    expect(routeConds(snap(), "nvcf-api")).toEqual({
      Accepted: ["True", "Accepted"],
      ResolvedRefs: ["True", "ResolvedRefs"],
    });
    expect(routeConds(snap(), "nats", "TCPRoute")).toEqual({
      Accepted: ["True", "Accepted"],
      ResolvedRefs: ["True", "ResolvedRefs"],
    });
    const entry = write(ws, "HTTPRoute", "nvcf-api").status.parents[0];
    expect(entry.parentRef).toEqual(gatewayRef("http"));
    expect(entry.controllerName).toBe(CONTROLLER);
    expect(entry.conditions[0]).toEqual({
      type: "Accepted",
      status: "True",
      reason: "Accepted",
      message: "accepted by listener(s) http of Gateway envoy-gateway/nvcf-gateway",
      observedGeneration: 1,
      lastTransitionTime: T0,
    });
  });

  test("a sectionName or port no listener has: NoMatchingParent", () => {
    const s = snap();
    (s.routes?.HTTPRoute as GwObject[])[0].spec.parentRefs = [gatewayRef("nope")];
    expect(routeConds(s, "nvcf-api")["Accepted"]).toEqual(["False", "NoMatchingParent"]);
    expect(write(reconcile(s), "HTTPRoute", "nvcf-api").status.parents[0].conditions[0].message).toBe(
      'Gateway envoy-gateway/nvcf-gateway has no listener named "nope"',
    );
    (s.routes?.HTTPRoute as GwObject[])[0].spec.parentRefs = [gatewayRef("http", { port: 8080 })];
    expect(routeConds(s, "nvcf-api")["Accepted"]).toEqual(["False", "NoMatchingParent"]);
    // Port alone, matching a listener: accepted.
    (s.routes?.HTTPRoute as GwObject[])[0].spec.parentRefs = [gatewayRef(undefined, { port: 80 })];
    expect(routeConds(s, "nvcf-api")["Accepted"]).toEqual(["True", "Accepted"]);
  });

  test("a namespace or kind the listener's allowedRoutes does not admit: NotAllowedByListeners", () => {
    const s = snap();
    s.routes?.HTTPRoute?.push(httpRoute("other-ns", { rules: [] }, "other"));
    expect(routeConds(s, "other-ns")["Accepted"]).toEqual(["False", "NotAllowedByListeners"]);
    // An HTTPRoute on a TCP listener.
    (s.routes?.HTTPRoute as GwObject[])[0].spec.parentRefs = [gatewayRef("tcp")];
    expect(routeConds(s, "nvcf-api")["Accepted"]).toEqual(["False", "NotAllowedByListeners"]);
    // Label selector expressions count too.
    const e = snap({
      gateways: [
        devGateway([
          listener("http", "HTTP", 80, {
            allowedRoutes: {
              namespaces: {
                from: "Selector",
                selector: { matchExpressions: [{ key: "nvcf/platform", operator: "In", values: ["true"] }] },
              },
            },
          }),
        ]),
      ],
    });
    expect(routeConds(e, "nvcf-api")["Accepted"]).toEqual(["True", "Accepted"]);
    (e.namespaces as GwObject[])[0].metadata.labels = {};
    expect(routeConds(e, "nvcf-api")["Accepted"]).toEqual(["False", "NotAllowedByListeners"]);
    // from: Same, All.
    const same = snap({ gateways: [devGateway([{ name: "http", protocol: "HTTP", port: 80 }] as never)] });
    same.routes?.HTTPRoute?.push(httpRoute("other-ns", { rules: [] }, "other"));
    expect(routeConds(same, "nvcf-api")["Accepted"]).toEqual(["True", "Accepted"]);
    expect(routeConds(same, "other-ns")["Accepted"]).toEqual(["False", "NotAllowedByListeners"]);
  });

  test("route hostnames that intersect no listener hostname: NoMatchingListenerHostname", () => {
    const s = snap();
    (s.gateways as GwObject[])[0].spec.listeners[0].hostname = "*.example.com";
    expect(routeConds(s, "nvcf-api")["Accepted"]).toEqual(["False", "NoMatchingListenerHostname"]);
    (s.gateways as GwObject[])[0].spec.listeners[0].hostname = "*.nvcf.test";
    expect(routeConds(s, "nvcf-api")["Accepted"]).toEqual(["True", "Accepted"]);
    // A route without hostnames matches any listener hostname.
    delete (s.routes?.HTTPRoute as GwObject[])[0].spec.hostnames;
    (s.gateways as GwObject[])[0].spec.listeners[0].hostname = "only.example.com";
    expect(routeConds(s, "nvcf-api")["Accepted"]).toEqual(["True", "Accepted"]);
  });

  test("hostname intersection and label selectors as the specification defines them", () => {
    expect(hostnamesIntersect("api.nvcf.test", "*.nvcf.test")).toBe(true);
    expect(hostnamesIntersect("a.b.nvcf.test", "*.nvcf.test")).toBe(true);
    expect(hostnamesIntersect("nvcf.test", "*.nvcf.test")).toBe(false);
    expect(hostnamesIntersect("*.nvcf.test", "api.nvcf.test")).toBe(true);
    expect(hostnamesIntersect("*.a.nvcf.test", "*.nvcf.test")).toBe(true);
    expect(hostnamesIntersect("API.nvcf.test", "api.nvcf.test")).toBe(true);
    expect(hostnamesIntersect("api.nvcf.test", "api.other.test")).toBe(false);
    expect(selects({}, undefined)).toBe(true);
    expect(selects({ matchExpressions: [{ key: "a", operator: "Exists" }] }, { a: "" })).toBe(true);
    expect(selects({ matchExpressions: [{ key: "a", operator: "DoesNotExist" }] }, { a: "" })).toBe(false);
    expect(selects({ matchExpressions: [{ key: "a", operator: "NotIn", values: ["x"] }] }, { a: "y" })).toBe(
      true,
    );
    expect(listenerKinds({ protocol: "TLS" }).kinds).toEqual([{ group: GROUP, kind: "TLSRoute" }]);
    expect(
      listenerKinds({
        protocol: "HTTP",
        allowedRoutes: { kinds: [{ kind: "GRPCRoute" }, { group: "x.io", kind: "Y" }] },
      }),
    ).toEqual({
      kinds: [{ group: GROUP, kind: "GRPCRoute" }],
      invalid: ["x.io/Y"],
    });
  });
});

describe("routes: ResolvedRefs", () => {
  const withBackends = (refs: object[], kind = "HTTPRoute") => {
    const s = snap();
    (s.routes?.HTTPRoute as GwObject[])[0].spec.rules = [{ backendRefs: refs }];
    return routeConds(s, "nvcf-api", kind);
  };

  test("a Service that does not exist: BackendNotFound; another kind: InvalidKind", () => {
    expect(withBackends([backend("gone", "nvcf")])["ResolvedRefs"]).toEqual(["False", "BackendNotFound"]);
    expect(withBackends([{ group: "example.io", kind: "Bucket", name: "b" }])["ResolvedRefs"]).toEqual([
      "False",
      "InvalidKind",
    ]);
    // The route is still Accepted: references do not decide attachment.
    expect(withBackends([backend("gone", "nvcf")])["Accepted"]).toEqual(["True", "Accepted"]);
  });

  test("a Service in another namespace without a ReferenceGrant allowing it: RefNotPermitted", () => {
    const s = snap({ referenceGrants: [] });
    expect(routeConds(s, "nvcf-api")["ResolvedRefs"]).toEqual(["False", "RefNotPermitted"]);
    // A grant for another kind, or for another Service name, does not allow it.
    s.referenceGrants = [
      grant("nvcf", "GRPCRoute", "envoy-gateway"),
      grant("nvcf", "HTTPRoute", "envoy-gateway", "other"),
    ];
    expect(routeConds(s, "nvcf-api")["ResolvedRefs"]).toEqual(["False", "RefNotPermitted"]);
    s.referenceGrants.push(grant("nvcf", "HTTPRoute", "envoy-gateway", "api"));
    expect(routeConds(s, "nvcf-api")["ResolvedRefs"]).toEqual(["True", "ResolvedRefs"]);
  });

  test("several broken backendRefs: the first gives the reason, the message names every one", () => {
    const s = snap();
    (s.routes?.HTTPRoute as GwObject[])[0].spec.rules = [
      { backendRefs: [backend("gone", "nvcf")] },
      { backendRefs: [backend("x", "nats-system")] },
    ];
    const c = write(reconcile(s), "HTTPRoute", "nvcf-api").status.parents[0].conditions[1];
    expect([c.reason, c.message]).toEqual([
      "BackendNotFound",
      "Service nvcf/gone not found; backendRef Service nats-system/x: no ReferenceGrant in namespace nats-system allows HTTPRoutes from namespace envoy-gateway",
    ]);
  });
});

describe("routes: the parents list", () => {
  test("other controllers' entries are kept; ours for a parentRef no longer named are removed", () => {
    const s = snap();
    const route = (s.routes?.HTTPRoute as GwObject[])[0];
    const foreign = {
      parentRef: { name: "mesh" },
      controllerName: "example.net/mesh",
      conditions: [{ type: "Accepted", status: "True" }],
    };
    route.status = {
      parents: [foreign, { parentRef: gatewayRef("tcp"), controllerName: CONTROLLER, conditions: [] }],
    };
    const parents = write(reconcile(s), "HTTPRoute", "nvcf-api").status.parents;
    expect(
      parents.map((p: { controllerName: string; parentRef: { sectionName?: string } }) => [
        p.controllerName,
        p.parentRef.sectionName,
      ]),
    ).toEqual([
      ["example.net/mesh", undefined],
      [CONTROLLER, "http"],
    ]);
  });

  test("a parentRef to a missing Gateway or one of another class gets no entry; a route never ours is not written", () => {
    const s = snap();
    s.routes?.HTTPRoute?.push(httpRoute("stray", { parentRefs: [gatewayRef("http", { name: "missing" })] }));
    const ws = reconcile(s);
    expect(ws.find((w) => w.name === "stray")).toBeUndefined();
    // It was ours once (the Gateway deleted since): our entry goes.
    const stray = (s.routes?.HTTPRoute as GwObject[])[1];
    stray.status = {
      parents: [
        { parentRef: gatewayRef("http", { name: "missing" }), controllerName: CONTROLLER, conditions: [] },
      ],
    };
    expect(write(reconcile(s), "HTTPRoute", "stray").status.parents).toEqual([]);
  });

  test("a route being deleted, or in a namespace being deleted, is left alone", () => {
    const s = snap();
    (s.routes?.HTTPRoute as GwObject[])[0].metadata.deletionTimestamp = T0;
    expect(reconcile(s).find((w) => w.name === "nvcf-api")).toBeUndefined();
    const n = snap();
    n.routes?.HTTPRoute?.push(httpRoute("leaving", { rules: [] }, "nvcf"));
    (n.namespaces as GwObject[])[1].metadata.deletionTimestamp = T0;
    expect(reconcile(n).find((w) => w.name === "leaving")).toBeUndefined();
  });
});

describe("no churn", () => {
  test("once written, the same cluster needs no write; a change writes only what changed, keeping unchanged transition times", () => {
    const s = snap();
    const first = reconcile(s);
    expect(first.map((w) => `${w.kind} ${w.name}`)).toEqual([
      "GatewayClass eg",
      "Gateway nvcf-gateway",
      "HTTPRoute nvcf-api",
      "TCPRoute nats",
    ]);
    apply(s, first);
    s.now = T1;
    expect(reconcile(s)).toEqual([]);
    // Key order in what the API server returns does not matter.
    const route = (s.routes?.HTTPRoute as GwObject[])[0];
    route.status = reversedKeys(route.status);
    expect(reconcile(s)).toEqual([]);
    // The backend goes: the route's ResolvedRefs flips (new time), Accepted keeps its time, generation unchanged.
    s.services = new Set(["nats-system/nats"]);
    const second = reconcile(s);
    expect(second.map((w) => `${w.kind} ${w.name}`)).toEqual(["HTTPRoute nvcf-api"]);
    const [acc, res] = second[0].status.parents[0].conditions;
    expect([acc.status, acc.lastTransitionTime, res.status, res.reason, res.lastTransitionTime]).toEqual([
      "True",
      T0,
      "False",
      "BackendNotFound",
      T1,
    ]);
    // A spec change (new generation) moves observedGeneration, not the transition time of an unchanged status.
    apply(s, second);
    route.metadata.generation = 2;
    const third = reconcile(s);
    expect(
      third[0].status.parents[0].conditions.map(
        (c: { observedGeneration: number; lastTransitionTime: string }) => [
          c.observedGeneration,
          c.lastTransitionTime,
        ],
      ),
    ).toEqual([
      [2, T0],
      [2, T1],
    ]);
  });
});
