/**
 * The nvcf-cli runner (components/scripts/nvcf-cli.sh, components/scripts.ts `NVCF_CLI_RUNNER`) with a fake nvcf-cli
 * (tests/unit/support/fakeCli.ts): what reaches the CLI of the caller's environment, the private HOME and config,
 * `init` (its output never printed, a failure mapped and redacted), the refusal of an empty gateway URL, and
 * `redact`. Its callers' own parts: cluster.test.ts (registration), account.test.ts (account settings).
 */
import { NVCF_CLI_RUNNER } from "../../../../components/scripts";
import { CLI_CONFIG_YAML } from "../../standins/nvcfApiStandIn";
import { runWithFakeCli } from "../../support/fakeCli";

const ENV = { NVCFP_CLI_CONFIG_YAML: CLI_CONFIG_YAML, NVCFP_ICMS_URL: "http://203.0.113.10" };
/** What the operator's shell may hold: settings nvcf-cli reads (NVCF_*, API_KEYS_*) and its own switches. */
const SHELL = {
  NVCF_FOO: "from-the-operator",
  NVCF_TOKEN: "operator-token",
  NVCF_BASE_HTTP_URL: "http://elsewhere.test",
  NVCF_ICMS_URL: "http://elsewhere.test",
  API_KEYS_SERVICE_URL: "http://elsewhere.test",
  API_KEYS_HOST: "elsewhere.test",
  NVCF_CLI_DEBUG: "1",
};
/** After the runner: one more call, then HOME printed. */
const PROBE = `${NVCF_CLI_RUNNER}"$NVCFP_CLI" --config "$work/cli.yaml" probe\nprintf '%s\\n' "$HOME"\n`;

test("the CLI sees none of the caller's NVCF_* and API_KEYS_* variables, only its own NVCF_CLI_* switches", () => {
  const r = runWithFakeCli(PROBE, { ...ENV, ...SHELL });
  expect([r.code, r.stderr]).toEqual([0, ""]);
  expect(r.calls.map((c) => c.args)).toEqual([["init"], ["probe"]]);
  for (const c of r.calls)
    expect(c.env).toEqual({ HOME: r.stdout.trim(), NO_COLOR: "1", NVCF_CLI_DEBUG: "1" });
});

test("the runner leaves the host overrides API_HOST, INVOKE_HOST, NVCT_HOST (the account scripts remove them)", () => {
  const r = runWithFakeCli(PROBE, { ...ENV, API_HOST: "a.test", INVOKE_HOST: "i.test", NVCT_HOST: "n.test" });
  expect(r.calls[1]?.env).toMatchObject({ API_HOST: "a.test", INVOKE_HOST: "i.test", NVCT_HOST: "n.test" });
});

test("HOME is a private directory under TMPDIR holding the config (0600), gone when the script ends", () => {
  const r = runWithFakeCli(PROBE, ENV);
  expect(r.code).toBe(0);
  const home = r.stdout.trim();
  expect(home.startsWith(`${r.tmp}/`)).toBe(true);
  for (const c of r.calls)
    expect(c).toMatchObject({ config: CLI_CONFIG_YAML, configMode: "600", homeMode: "700" });
  expect(r.left).toEqual([]);
  // Also when the script fails.
  const failed = runWithFakeCli(`${NVCF_CLI_RUNNER}exit 3\n`, ENV);
  expect([failed.code, failed.left]).toEqual([3, []]);
});

test("init's output (the admin token) is never printed; a failed init is mapped, its errors redacted", () => {
  const ok = runWithFakeCli(PROBE, ENV, [
    { command: "init", stdout: "Admin token: nvapi-admin-0123456789\n" },
  ]);
  expect(ok.code).toBe(0);
  expect(ok.stdout + ok.stderr).not.toContain("nvapi-admin");
  const failed = runWithFakeCli(PROBE, ENV, [
    {
      command: "init",
      exit: 1,
      stdout: "nvapi-admin-0123456789\n",
      stderr:
        'Error: POST http://203.0.113.10/v1/admin/keys: 401 {"token":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln","api_key": nvapi-k3y value=s3cr3t}\n',
    },
  ]);
  expect(failed.code).toBe(1);
  expect(failed.stderr).toBe(
    "nvcf-cli init failed:\n" +
      'Error: POST http://203.0.113.10/v1/admin/keys: 401 {"token":[redacted]","api_key": [redacted] value=[redacted]\n',
  );
  expect(failed.stdout).toBe("");
  expect(failed.calls.map((c) => c.args)).toEqual([["init"]]);
});

test("an empty gateway URL is refused before the CLI runs", () => {
  const r = runWithFakeCli(PROBE, { ...ENV, NVCFP_ICMS_URL: "" });
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(
    "the control plane's gateway address is empty: set nvcf:gateway.address or wait until the Gateway reports one\n",
  );
  expect(r.calls).toEqual([]);
});

test("redact: tokens and the values of token, value and api_key keys, to stderr", () => {
  const text = [
    "Bearer nvapi-AbC_123.x-y and eyJhbGciOi.J9.sig",
    'token: abc "value"="v1" API_KEY=k2 api_key:  "k3"',
    "nothing secret here",
  ].join("\n");
  const r = runWithFakeCli(`${NVCF_CLI_RUNNER}printf '%s\\n' "$TEXT" | redact\n`, { ...ENV, TEXT: text });
  expect(r.code).toBe(0);
  expect(r.stdout).toBe("");
  expect(r.stderr).toBe(
    [
      "Bearer [redacted] and [redacted]",
      'token: [redacted] "value"=[redacted]" API_KEY=[redacted] api_key:  [redacted]"',
      "nothing secret here",
      "",
    ].join("\n"),
  );
});
