/**
 * config/rules/addons.ts: add-ons the bundle does not ship and the LLM add-on's address and PKI, through
 * `validateConfig`.
 */
import { LLM_ROUTER_HEADLESS_WILDCARD } from "../../../../config/rules/addons";
import { baseCompute, baseControl } from "../../fixtures/configs";
import { j, problemsOf, ruleCases } from "../../support/rules";

/**
 * Router certificate names that satisfy helm-nvcf-llm-request-router 1.7.2: with 3 replicas each pod
 * advertises `<pod>.llm-request-router-headless.nvcf.svc.cluster.local`, covered only by the wildcard.
 */
const RR = [
  "llm-request-router.nvcf.svc.cluster.local",
  "*.llm-request-router-headless.nvcf.svc.cluster.local",
];

describe("control plane: each rule refuses its case and passes the fixed config", () => {
  ruleCases(baseControl, [
    [
      "add-on missing from the bundle",
      { bundleVersion: "0.6.1", addons: j({ llm: { enabled: true } }) },
      "nvcf:addons.llm.enabled",
      { bundleVersion: "0.7.0", addons: j({ llm: { enabled: true } }) },
    ],
    [
      "LLM router address format (docs/upstream-facts.md §1.9)",
      { addons: j({ llm: { enabled: true, requestRouterAddress: "router" } }) },
      "nvcf:addons.llm.requestRouterAddress",
      { addons: j({ llm: { enabled: true, requestRouterAddress: "router.example.com:50071" } }) },
    ],
    [
      "LLM PKI dnsNames required in certManager mode",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", imageTag: "1" } } }) },
      "nvcf:addons.llm.pki.dnsNames",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, allowedDomains: "a", imageTag: "1", dnsNames: RR },
          },
        }),
      },
    ],
    [
      "LLM managed issuer needs allowedDomains",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, imageTag: "1", dnsNames: RR } } }) },
      "nvcf:addons.llm.pki.allowedDomains",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, imageTag: "1", dnsNames: RR, manageClusterIssuer: false },
          },
        }),
      },
    ],
    [
      "LLM managed issuer needs an image tag",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", dnsNames: RR } } }) },
      "nvcf:addons.llm.pki.imageTag",
      {
        addons: j({ llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", dnsNames: RR } } }),
        openbao: j({ migrationsImageTag: "0.18.0" }),
      },
    ],
    [
      "LLM managed issuer needs OpenBao",
      {
        openbao: j({ enabled: false }),
        addons: j({
          llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", dnsNames: RR, imageTag: "1" } },
        }),
      },
      "nvcf:openbao.enabled",
      {
        openbao: j({ enabled: false }),
        addons: j({
          llm: { enabled: true, pki: { enabled: true, dnsNames: RR, manageClusterIssuer: false } },
        }),
      },
    ],
    [
      "LLM issuer name RFC 1123",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "Bad_Name", dnsNames: RR, manageClusterIssuer: false },
          },
        }),
      },
      "nvcf:addons.llm.pki.issuerName",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "good-name", dnsNames: RR, manageClusterIssuer: false },
          },
        }),
      },
    ],
    [
      "LLM router certificate must cover the headless service wildcard (chart 1.7.2 validateCertificateDnsNames)",
      {
        addons: j({
          llm: {
            enabled: true,
            pki: {
              enabled: true,
              allowedDomains: "a",
              imageTag: "1",
              dnsNames: ["llm-request-router.nvcf.svc.cluster.local"],
            },
          },
        }),
      },
      "nvcf:addons.llm.pki.dnsNames",
      {
        addons: j({
          llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", imageTag: "1", dnsNames: RR } },
        }),
      },
    ],
    [
      "bundle 0.7.0: the router provisions its own PKI, certManager mode only",
      {
        bundleVersion: "0.7.0",
        addons: j({ llm: { enabled: true, pki: { enabled: true, mode: "existingSecret" } } }),
      },
      "nvcf:addons.llm.pki.mode",
      {
        bundleVersion: "0.7.0",
        addons: j({
          llm: { enabled: true, pki: { enabled: true, allowedDomains: "a", imageTag: "1", dnsNames: ["r"] } },
        }),
      },
    ],
    [
      "bundle 0.7.0: the router's PKI hook needs allowedDomains even for a custom issuer",
      {
        bundleVersion: "0.7.0",
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "custom", imageTag: "1", dnsNames: ["r"] },
          },
        }),
      },
      "nvcf:addons.llm.pki.allowedDomains",
      {
        bundleVersion: "0.7.0",
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, issuerName: "custom", allowedDomains: "a", imageTag: "1", dnsNames: ["r"] },
          },
        }),
      },
    ],
    [
      "LLM existingSecret mode keeps dnsNames empty",
      {
        addons: j({
          llm: { enabled: true, pki: { enabled: true, mode: "existingSecret", dnsNames: ["r"] } },
        }),
      },
      "nvcf:addons.llm.pki.dnsNames",
      { addons: j({ llm: { enabled: true, pki: { enabled: true, mode: "existingSecret" } } }) },
    ],
  ]);
});

describe("the problems say what was expected, what was found and the fix", () => {
  test("an add-on the bundle does not ship, on either plane", () => {
    expect(
      problemsOf(baseControl({ bundleVersion: "0.6.1", addons: j({ nvcfUi: { enabled: true } }) })),
    ).toEqual([
      {
        key: "nvcf:addons.nvcfUi.enabled",
        expected: "false: NVCF bundle 0.6.1 does not ship nvcf-ui",
        found: "true",
        fix: "turn it off or set nvcf:bundleVersion to 0.7.0 or 0.8.0",
      },
    ]);
    expect(
      problemsOf(baseCompute({ bundleVersion: "0.7.0", addons: j({ kaiScheduler: { enabled: true } }) })),
    ).toEqual([
      {
        key: "nvcf:addons.kaiScheduler.enabled",
        expected: "false: NVCF bundle 0.7.0 does not ship kai-scheduler",
        found: "true",
        fix: "turn it off or set nvcf:bundleVersion to 0.8.0",
      },
    ]);
  });

  test("a request-router address without a port", () => {
    expect(
      problemsOf(baseControl({ addons: j({ llm: { enabled: true, requestRouterAddress: "router" } }) })),
    ).toEqual([
      {
        key: "nvcf:addons.llm.requestRouterAddress",
        expected: "dns-or-ipv4:port or [ipv6]:port with port 1-65535",
        found: '"router"',
        fix: "e.g. llm-request-router.nvcf.svc.cluster.local:50071",
      },
    ]);
  });

  test("a router certificate without the headless service wildcard", () => {
    const p = problemsOf(
      baseControl({
        addons: j({
          llm: {
            enabled: true,
            pki: { enabled: true, allowedDomains: "a", imageTag: "1", dnsNames: ["r.example.com"] },
          },
        }),
      }),
    );
    expect(p).toEqual([
      {
        key: "nvcf:addons.llm.pki.dnsNames",
        expected: `the DNS names of the router's certificate, including ${LLM_ROUTER_HEADLESS_WILDCARD} (the name each replica advertises)`,
        found: '["r.example.com"]',
        fix: `pulumi config set --path 'nvcf:addons.llm.pki.dnsNames' '["llm-request-router.nvcf.svc.cluster.local","${LLM_ROUTER_HEADLESS_WILDCARD}"]'`,
      },
    ]);
  });
});
