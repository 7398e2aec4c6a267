/**
 * The layer order of the project's TypeScript (docs/architecture.md "Layers"). A module imports only from its own
 * folder or a lower layer, and no import circle exists anywhere; `npm run lint` runs this check.
 *
 *   1 catalog/      releases, chart sources
 *   2 contract/     the cross-stack contract
 *   3 kube/         kubeconfig, kubectl, Helm release records
 *   4 config/       schema, load, rules, problems, flags, paths
 *   5 values/       chart values builders
 *   6 recovery/ upgrade/   planners
 *   7 components/   ComponentResources and their resource helpers
 *   8 engine/       Pulumi engine plumbing: module loader, outputs, previous outputs, OpenAPI warm-up
 *   9 stacks/       the two stack programs and their helpers
 *  10 cli/ (layers 1-6, and engine/loader.ts), policy/ (layers 1-5), tools/, index.ts
 *
 * Tests may import anything (no rule starts from tests/).
 */
const LAYERS = [
  ["catalog", "^catalog/"],
  ["contract", "^contract/"],
  ["kube", "^kube/"],
  ["config", "^config/"],
  ["values", "^values/"],
  ["planners", "^(recovery|upgrade)/"],
  ["components", "^components/"],
  ["engine", "^engine/"],
  ["stacks", "^stacks/"],
];
const TOP = "^(cli|policy|tools)/|^index\\.ts$";
const ALL_ABOVE = (i) => [...LAYERS.slice(i + 1).map(([, p]) => p), TOP].join("|");

/** One rule per layer: nothing in it imports a higher layer. */
const layerRules = LAYERS.map(([name, from], i) => ({
  name: `layer-${name}`,
  comment: `${name} imports only its own folder and lower layers (.dependency-cruiser.cjs header)`,
  severity: "error",
  from: { path: from },
  to: { path: ALL_ABOVE(i) },
}));

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "No import circle anywhere.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: "layer-cli",
      comment: "The CLI never builds resources: layers 1-6 only, plus the module loader (engine/loader.ts).",
      severity: "error",
      from: { path: "^cli/" },
      to: { path: "^(components|stacks|policy|tools)/|^index\\.ts$|^engine/(?!loader\\.ts$)" },
    },
    {
      name: "layer-policy",
      comment: "The policy pack reads config and values only: layers 1-5.",
      severity: "error",
      from: { path: "^policy/" },
      to: { path: "^(recovery|upgrade|components|engine|stacks|cli|tools)/|^index\\.ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    exclude: { path: "node_modules|^tests/(charts|bin)/" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    moduleSystems: ["cjs", "es6"],
  },
};
