/**
 * The benchmark's analysis (tools/bench-analyze.ts) on a small hand-made update: step times from stamped engine
 * events, dependencies from an exported state, the critical-path bound, Helmfile's stage-barrier schedule, and
 * release durations against the readiness profile (scripts/cluster.sh `readiness` lines).
 * No timing of this machine is asserted: the inputs are fixed numbers.
 */
import {
  type StampedEvent,
  type StateExport,
  criticalPath,
  customDependencies,
  minMedianMax,
  parseProfile,
  parseStamped,
  profileRows,
  profileSummary,
  profileTable,
  releasesAgainstProfile,
  resourceTimings,
  runFigures,
  stageSchedule,
} from "../../../tools/bench-analyze";
import { CONTROL_PLANE_STAGES, type HelmfileStage, helmfileNeeds } from "../../../tools/bench-stages";

const P = "urn:pulumi:dev::nvcf::";
const STACK = `${P}pulumi:pulumi:Stack::nvcf-dev`;
const PROVIDER = `${P}pulumi:providers:kubernetes::cluster`;
const COMPONENT = `${P}nvcf:index:Namespaces::ns`;
const NS = `${P}nvcf:index:Namespaces$kubernetes:core/v1:Namespace::ns-a`;
const REL = (n: string) => `${P}kubernetes:helm.sh/v3:Release::nvcf-${n}`;

const pre = (ms: number, urn: string, type: string): StampedEvent => ({
  ms,
  event: { resourcePreEvent: { metadata: { urn, type, op: "create" } } },
});
const done = (ms: number, urn: string): StampedEvent => ({
  ms,
  event: { resOutputsEvent: { metadata: { urn, op: "create" } } },
});

// Provider 0-100, namespace 100-200, nats 200-1200, openbao (needs nats) 1200-3200, cert-manager 200-700 in
// parallel, pki (needs openbao and cert-manager) 3200-3700.
const EVENTS: StampedEvent[] = [
  pre(0, STACK, "pulumi:pulumi:Stack"),
  pre(0, PROVIDER, "pulumi:providers:kubernetes"),
  done(100, PROVIDER),
  pre(100, COMPONENT, "nvcf:index:Namespaces"),
  pre(100, NS, "kubernetes:core/v1:Namespace"),
  done(200, NS),
  pre(200, REL("nats"), "kubernetes:helm.sh/v3:Release"),
  pre(200, REL("cert-manager"), "kubernetes:helm.sh/v3:Release"),
  done(700, REL("cert-manager")),
  done(1200, REL("nats")),
  pre(1200, REL("openbao-server"), "kubernetes:helm.sh/v3:Release"),
  done(3200, REL("openbao-server")),
  pre(3200, REL("nvcf-pki"), "kubernetes:helm.sh/v3:Release"),
  done(3700, REL("nvcf-pki")),
  done(3700, COMPONENT),
  done(3800, STACK),
];

const release = (n: string, deps: string[]) => ({
  urn: REL(n),
  type: "kubernetes:helm.sh/v3:Release",
  custom: true,
  provider: `${PROVIDER}::0c2b`,
  dependencies: deps,
  inputs: { name: n },
});
const STATE: StateExport = {
  deployment: {
    resources: [
      { urn: STACK, type: "pulumi:pulumi:Stack" },
      { urn: PROVIDER, type: "pulumi:providers:kubernetes", custom: true },
      { urn: COMPONENT, type: "nvcf:index:Namespaces", parent: STACK },
      {
        urn: NS,
        type: "kubernetes:core/v1:Namespace",
        custom: true,
        parent: COMPONENT,
        provider: `${PROVIDER}::0c2b`,
      },
      // Waiting on the component means waiting on the namespace below it.
      release("nats", [COMPONENT]),
      release("cert-manager", [COMPONENT]),
      release("openbao-server", [REL("nats")]),
      release("nvcf-pki", [REL("openbao-server"), REL("cert-manager")]),
    ],
  },
};

describe("bench analysis", () => {
  it("reads stamped lines and skips cut ones", () => {
    const text = `5\t{"resourcePreEvent":{"metadata":{"urn":"u","type":"t"}}}\n7\t{"resOut\n\n9\t{"resOutputsEvent":{"metadata":{"urn":"u"}}}\n`;
    expect(resourceTimings(parseStamped(text))).toEqual([{ urn: "u", type: "t", start: 5, end: 9 }]);
  });

  it("times every resource but the stack from its pre event to its outputs", () => {
    const t = resourceTimings(EVENTS);
    expect(t.map((x) => x.urn)).not.toContain(STACK);
    expect(t.find((x) => x.urn === REL("openbao-server"))).toMatchObject({ start: 1200, end: 3200 });
    expect(t.find((x) => x.urn === NS)).toMatchObject({ start: 100, end: 200 });
  });

  it("expands a component dependency to its custom resources and adds the provider", () => {
    const deps = customDependencies(STATE);
    expect([...(deps.get(REL("nats")) ?? [])].sort()).toEqual([NS, PROVIDER].sort());
    expect(deps.get(NS)).toEqual(new Set([PROVIDER]));
    expect(deps.has(COMPONENT)).toBe(false);
  });

  it("bounds the update by its longest chain of durations", () => {
    const durations = new Map(resourceTimings(EVENTS).map((t) => [t.urn, t.end - t.start]));
    const cp = criticalPath(durations, customDependencies(STATE));
    // provider 100 + namespace 100 + nats 1000 + openbao 2000 + pki 500; cert-manager (500) is off the path.
    expect(cp.ms).toBe(3700);
    expect(cp.path).toEqual([PROVIDER, NS, REL("nats"), REL("openbao-server"), REL("nvcf-pki")]);
  });

  it("refuses a dependency cycle", () => {
    const d = new Map([
      ["a", 1],
      ["b", 1],
    ]);
    const deps = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["a"])],
    ]);
    expect(() => criticalPath(d, deps)).toThrow("dependency cycle");
  });

  it("schedules releases in Helmfile's files one after the other, layer by layer", () => {
    const stages: HelmfileStage[] = [
      { file: "01", releases: { a: [], b: [], c: ["a"], d: ["missing"] } },
      { file: "02", releases: { e: [], f: ["e"] } },
    ];
    // 01: layer {a 100, b 400, d 50} = 400 (d's need is not installed), layer {c 300} = 300; 02: e 10 + f 20.
    const s = stageSchedule(
      new Map([
        ["a", 100],
        ["b", 400],
        ["c", 300],
        ["d", 50],
        ["e", 10],
        ["f", 20],
      ]),
      stages,
    );
    expect(s.perStage).toEqual([
      { file: "01", ms: 700, layers: [["a", "b", "d"], ["c"]] },
      { file: "02", ms: 30, layers: [["e"], ["f"]] },
    ]);
    expect(s.ms).toBe(730);
  });

  it("puts a layer's short release behind the layer's long one (the barrier the program avoids)", () => {
    // NVIDIA's 01-dependencies: nvcf-pki needs openbao-server (layer 1); cassandra is in layer 0 with nats.
    const s = stageSchedule(
      new Map([
        ["nats", 1000],
        ["cassandra", 5000],
        ["openbao-server", 2000],
      ]),
    );
    expect(s.ms).toBe(7000);
  });

  it("gives one update's figures", () => {
    const f = runFigures(EVENTS, STATE, -500);
    expect(f).toMatchObject({ startupMs: 500, resourcePhaseMs: 3700, criticalPathMs: 3700, resources: 6 });
    expect(f.releases).toEqual({ nats: 1000, "cert-manager": 500, "openbao-server": 2000, "nvcf-pki": 500 });
    // 01-dependencies: layer {nats 1000, cert-manager 500} + {openbao 2000} + {pki 500}.
    expect(f.stageScheduleMs).toBe(3500);
  });

  it("flattens the Helmfile files into every release's needs, refusing a table that contradicts itself", () => {
    const stages: HelmfileStage[] = [
      { file: "01", releases: { a: [], b: ["a"] } },
      { file: "02", releases: { c: ["b", "a"] } },
    ];
    expect(helmfileNeeds(stages)).toEqual({ a: [], b: ["a"], c: ["b", "a"] });
    expect(() => helmfileNeeds([...stages, { file: "03", releases: { a: [] } }])).toThrow(
      "two Helmfile files",
    );
    expect(() => helmfileNeeds([{ file: "01", releases: { a: ["x"] } }])).toThrow("needs x");
    // The control plane's table: one entry per release of the four files.
    const listed = CONTROL_PLANE_STAGES.flatMap((st) => Object.keys(st.releases));
    expect(Object.keys(helmfileNeeds()).sort()).toEqual([...listed].sort());
  });

  it("measures each release against the readiness profile's figure for the whole release", () => {
    // `bash scripts/cluster.sh readiness` at scale 60: cassandra 7.5 min over 5 steps = 1500 ms a pod.
    const profile = parseProfile(
      "cassandra 7.5 5 1500\nnats 2.5 1 2500\nopenbao-server 2.5 3 833\ningress 1.5 0 0\nnvcf-pki 2.5 0 0\n",
    );
    expect(profile[0]).toEqual({ release: "cassandra", minutes: 7.5, steps: 5, podDelayMs: 1500 });
    expect(() => parseProfile("cassandra 7.5 five 1500")).toThrow("bad line");
    // nvcf-pki is not installed; the inotify tuner is not in the profile (not delayed).
    const run = releasesAgainstProfile(
      { nats: 3600, cassandra: 10500, "openbao-server": 4499, ingress: 1200, inotify: 900 },
      profile,
    );
    expect(run.map((r) => [r.release, r.profileMs, r.measuredMs])).toEqual([
      ["cassandra", 7500, 10500],
      ["nats", 2500, 3600],
      ["openbao-server", 2499, 4499],
      ["ingress", 0, 1200],
      ["inotify", 0, 900],
    ]);
    // openbao-server 4499 / 2499 = 1.80 is the largest ratio, cassandra 10500 / 7500 the smallest (nats 1.44);
    // Helm's own time: the median of ingress and inotify, which make no delayed pod.
    expect(profileSummary(run)).toEqual({
      maxOverProfile: 4499 / 2499,
      maxRelease: "openbao-server",
      minOverProfile: 1.4,
      minRelease: "cassandra",
      helmOnlyMs: 1050,
    });
    expect(profileRows(run)).toBe(
      "real-release-max-over-profile 1.800\nreal-release-min-over-profile 1.400\nreal-release-helm-only-s 1.050",
    );
    // Cassandra counted as one step (7.5 s a pod, five pods in sequence) would take about five times its figure.
    const miscounted = releasesAgainstProfile({ cassandra: 39000 }, parseProfile("cassandra 7.5 1 7500"));
    expect(profileSummary(miscounted).maxOverProfile).toBeCloseTo(5.2, 5);
    // A release counted with a step too many finishes before its figure: at scale 20, api as 2 steps of 2.81 s
    // would have a 5.62 s figure, while its one Deployment and Helm's own time take about 3.8 s.
    const overcounted = releasesAgainstProfile({ api: 3800 }, parseProfile("api 1.875 2 2812"));
    expect(profileSummary(overcounted)).toMatchObject({ minOverProfile: 3800 / 5624, minRelease: "api" });
  });

  it("tabulates the medians of each release over the runs", () => {
    const profile = parseProfile("cassandra 7.5 5 1500\ningress 1.5 0 0");
    const t = profileTable([
      releasesAgainstProfile({ cassandra: 9000, ingress: 1000 }, profile),
      releasesAgainstProfile({ cassandra: 10000, ingress: 2000 }, profile),
      releasesAgainstProfile({ cassandra: 14000, ingress: 1500 }, profile),
    ]).split("\n");
    expect(t[1].split(/\s+/)).toEqual(["cassandra", "5", "1.50", "7.50", "10.00", "1.33", "2.50"]);
    expect(t[2].split(/\s+/)).toEqual(["ingress", "0", "0.00", "0.00", "1.50", "-", "1.50"]);
    expect(t[3]).toContain("no pod): 1.50 s");
  });

  it("takes min, median and max", () => {
    expect(minMedianMax([3, 1, 2])).toEqual({ min: 1, median: 2, max: 3 });
    expect(minMedianMax([4, 1, 3, 2])).toEqual({ min: 1, median: 2.5, max: 4 });
    expect(() => minMedianMax([])).toThrow("no values");
  });
});
