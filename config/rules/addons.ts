/**
 * Rules of the add-ons (pure): an add-on switched on that the stack's NVCF bundle does not ship (either plane),
 * and the LLM add-on's request-router address and PKI on the control plane. Sources: docs/upstream-facts.md
 * §1.9, §4 row 32 and §5.2; helm-nvcf-llm-request-router 1.7.2 (`validateCertificateDnsNames`) and the stack's
 * v0.7.0 `global.yaml.gotmpl` for the PKI of earlier bundles.
 */
import { ENABLE_FLAGS, type EnableFlag, type FlagSpec, planeReleases } from "../../catalog/releases";
import { llmManagesIssuer } from "../flags";
import { type Problem, describe } from "../problems";
import { valueAt } from "../paths";
import type { ComputePlaneConfig, ControlPlaneConfig } from "../schema";
import { K } from "./context";

/**
 * Add-ons switched on that the stack's NVCF bundle does not ship (docs/upstream-facts.md §5.2): for each flag the
 * catalog marks `addon` (catalog/releases.ts `ENABLE_FLAGS`), the first release of the stack's plane that it
 * enables, in catalog order, is judged. Input: the validated config of either plane. Output: one problem per
 * such add-on whose key is on and whose release the bundle lacks, naming the key and the bundles that ship it.
 */
export function addonsNotInBundle(cfg: ControlPlaneConfig | ComputePlaneConfig): Problem[] {
  const bundle = cfg.bundleVersion;
  const seen = new Set<EnableFlag>();
  const out: Problem[] = [];
  for (const r of planeReleases(cfg.plane)) {
    const flag: FlagSpec = ENABLE_FLAGS[r.enabled];
    if (flag.addon === undefined || seen.has(r.enabled)) continue;
    seen.add(r.enabled);
    const key = flag.addon === true ? (flag.switch as string) : flag.addon;
    if (valueAt(cfg, key) !== true || r.versions[bundle] !== undefined) continue;
    out.push({
      key: K(key),
      expected: `false: NVCF bundle ${bundle} does not ship ${r.name}`,
      found: "true",
      fix: `turn it off or set nvcf:bundleVersion to ${Object.keys(r.versions).join(" or ")}`,
    });
  }
  return out;
}

const HOSTPORT =
  /^(([a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)(\.[a-zA-Z0-9]([-a-zA-Z0-9]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\]):([0-9]{1,5})$/;
const RFC1123 = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** The certificate name that covers every request-router replica's advertised host (headless service wildcard). */
export const LLM_ROUTER_HEADLESS_WILDCARD = "*.llm-request-router-headless.nvcf.svc.cluster.local";

/** LLM addon rules (docs/upstream-facts.md §1.9, §4 row 32). */
export function llmRules(cfg: ControlPlaneConfig): Problem[] {
  const llm = cfg.addons.llm;
  const out: Problem[] = [];
  if (!llm.enabled) return out;
  if (llm.requestRouterAddress) {
    const m = HOSTPORT.exec(llm.requestRouterAddress);
    const p = m ? Number(m[6]) : 0;
    if (!m || p < 1 || p > 65535)
      out.push({
        key: K("addons.llm.requestRouterAddress"),
        expected: "dns-or-ipv4:port or [ipv6]:port with port 1-65535",
        found: describe(llm.requestRouterAddress),
        fix: "e.g. llm-request-router.nvcf.svc.cluster.local:50071",
      });
  }
  const pki = llm.pki;
  if (!pki.enabled) return out;
  if (cfg.bundleVersion !== "0.8.0") {
    // Before 0.8.0 (stack v0.7.0 `global.yaml.gotmpl`) the request-router chart's own hook always provisions
    // the OpenBao issuing hierarchy: certManager mode only, with its allowed domains and the hook's image tag.
    if (pki.mode !== "certManager" || pki.manageClusterIssuer !== undefined)
      out.push({
        key: K(pki.mode !== "certManager" ? "addons.llm.pki.mode" : "addons.llm.pki.manageClusterIssuer"),
        expected: `certManager mode without manageClusterIssuer: NVCF bundle ${cfg.bundleVersion} has no issuer choice`,
        found: describe(pki.mode !== "certManager" ? pki.mode : pki.manageClusterIssuer),
        fix: "remove it, or set nvcf:bundleVersion 0.8.0",
      });
    if (pki.dnsNames.length === 0)
      out.push({
        key: K("addons.llm.pki.dnsNames"),
        expected: "at least one DNS name",
        found: "[]",
        fix: "pulumi config set --path 'nvcf:addons.llm.pki.dnsNames[0]' llm-request-router.nvcf.svc.cluster.local",
      });
    if (!pki.allowedDomains)
      out.push({
        key: K("addons.llm.pki.allowedDomains"),
        expected: "the domains the router's OpenBao role may sign",
        found: "nothing",
        fix: "set addons.llm.pki.allowedDomains",
      });
    if (!pki.imageTag && !cfg.openbao.migrationsImageTag)
      out.push({
        key: K("addons.llm.pki.imageTag"),
        expected: "an image tag (or openbao.migrationsImageTag) for the router's PKI hook",
        found: "nothing",
        fix: "set addons.llm.pki.imageTag",
      });
    return out;
  }
  if (pki.mode === "certManager") {
    if (!RFC1123.test(pki.issuerName) || pki.issuerName.length > 253)
      out.push({
        key: K("addons.llm.pki.issuerName"),
        expected: "a lowercase RFC 1123 subdomain of at most 253 characters",
        found: describe(pki.issuerName),
        fix: "e.g. nvcf-openbao-pki",
      });
    // helm-nvcf-llm-request-router 1.7.2 (`validateCertificateDnsNames`) refuses a certificate that does not
    // cover the name each of its replicas advertises: `<pod>.llm-request-router-headless.nvcf.svc.cluster.local`
    // (the stack runs 3 replicas), i.e. the wildcard of the headless service.
    if (!pki.dnsNames.some((n) => n.toLowerCase() === LLM_ROUTER_HEADLESS_WILDCARD))
      out.push({
        key: K("addons.llm.pki.dnsNames"),
        expected: `the DNS names of the router's certificate, including ${LLM_ROUTER_HEADLESS_WILDCARD} (the name each replica advertises)`,
        found: describe(pki.dnsNames),
        fix: `pulumi config set --path 'nvcf:addons.llm.pki.dnsNames' '["llm-request-router.nvcf.svc.cluster.local","${LLM_ROUTER_HEADLESS_WILDCARD}"]'`,
      });
    const managed = llmManagesIssuer(cfg);
    if (pki.manageClusterIssuer === true && pki.issuerKind !== "ClusterIssuer")
      out.push({
        key: K("addons.llm.pki.issuerKind"),
        expected: "ClusterIssuer when the stack manages the issuer",
        found: describe(pki.issuerKind),
        fix: "set issuerKind to ClusterIssuer or manageClusterIssuer to false",
      });
    if (managed && !cfg.openbao.enabled)
      out.push({
        key: K("openbao.enabled"),
        expected: "true when the stack manages the LLM PKI issuer",
        found: "false",
        fix: "enable OpenBao or set addons.llm.pki.manageClusterIssuer false",
      });
    if (managed && !pki.allowedDomains)
      out.push({
        key: K("addons.llm.pki.allowedDomains"),
        expected: "the domains the managed issuer may sign",
        found: "nothing",
        fix: "set addons.llm.pki.allowedDomains",
      });
    if (managed && !pki.imageTag && !cfg.openbao.migrationsImageTag)
      out.push({
        key: K("addons.llm.pki.imageTag"),
        expected: "an image tag (or openbao.migrationsImageTag) for the managed issuer",
        found: "nothing",
        fix: "set addons.llm.pki.imageTag",
      });
  } else {
    if (!pki.secretName)
      out.push({
        key: K("addons.llm.pki.secretName"),
        expected: "a kubernetes.io/tls Secret name in existingSecret mode",
        found: "nothing",
        fix: "set addons.llm.pki.secretName",
      });
    if (pki.manageClusterIssuer === true)
      out.push({
        key: K("addons.llm.pki.manageClusterIssuer"),
        expected: "false or unset in existingSecret mode",
        found: "true",
        fix: "remove addons.llm.pki.manageClusterIssuer",
      });
    if (pki.dnsNames.length > 0 || pki.allowedDomains)
      out.push({
        key: K("addons.llm.pki.dnsNames"),
        expected: "dnsNames and allowedDomains empty in existingSecret mode",
        found: describe({ dnsNames: pki.dnsNames, allowedDomains: pki.allowedDomains }),
        fix: "remove addons.llm.pki.dnsNames and allowedDomains",
      });
  }
  return out;
}
