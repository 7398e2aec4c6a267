// Reads a rendered multi-document manifest on stdin; checks every object carries the stand-in label,
// that no Namespace / PersistentVolumeClaim / volumeClaimTemplates / webhook configuration is rendered.
// Usage: helm template ... | node check-manifests.js <chart>
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
    if (["Namespace", "PersistentVolumeClaim", "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"].includes(doc.kind))
      problems.push(`${id}: kind not allowed in stand-ins`);
    if (doc.spec && doc.spec.volumeClaimTemplates) problems.push(`${id}: volumeClaimTemplates (kwok has no storage)`);
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
