// Reads a rendered multi-document manifest on stdin and checks what a stand-in must hold to run on the local
// kwok clusters: every object (and pod template) carries the stand-in label, has apiVersion/kind/name, no
// Namespace is rendered (the program owns namespaces; Helm runs with createNamespace off), and every admission
// webhook has failurePolicy Ignore (nothing serves a webhook on kwok, so Fail would block the API).
// Volume claims (PersistentVolumeClaim, volumeClaimTemplates) are allowed: the local clusters bind them
// (default StorageClass, scripts/cluster.sh), and stand-ins render the claims the real charts render.
// Usage: helm template ... | node check-manifests.js <chart>      (exit 1 and one line per problem on failure)
const path = require("path");
const yaml = require(require.resolve("js-yaml", { paths: [path.resolve(__dirname, "../../.."), process.cwd()] }));
const chart = process.argv[2] || "?";
let text = "";
process.stdin.on("data", (d) => (text += d));
process.stdin.on("end", () => {
  const problems = [];
  let n = 0;
  for (const doc of yaml.loadAll(text)) {
    if (!doc) continue;
    n++;
    const id = `${doc.kind}/${doc.metadata && doc.metadata.name}`;
    if (!doc.apiVersion || !doc.kind || !doc.metadata || !doc.metadata.name) problems.push(`${id}: missing apiVersion/kind/name`);
    const labels = (doc.metadata && doc.metadata.labels) || {};
    if (labels["nvcf.stand-in"] !== "true") problems.push(`${id}: no nvcf.stand-in="true" label`);
    if (doc.kind === "Namespace") problems.push(`${id}: kind not allowed in stand-ins (the program creates namespaces)`);
    if (["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"].includes(doc.kind))
      for (const w of doc.webhooks || [])
        if (w.failurePolicy !== "Ignore") problems.push(`${id}: webhook ${w.name} needs failurePolicy: Ignore on kwok`);
    const tpl = doc.spec && doc.spec.template;
    if (tpl && (!tpl.metadata || !tpl.metadata.labels || tpl.metadata.labels["nvcf.stand-in"] !== "true"))
      problems.push(`${id}: pod template without the stand-in label`);
  }
  if (n === 0) problems.push("rendered no object");
  if (problems.length) {
    console.error(`${chart}: ${problems.join("\n  ")}`);
    process.exit(1);
  }
  console.log(`${chart}: ${n} objects ok`);
});
