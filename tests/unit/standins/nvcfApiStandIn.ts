/**
 * The stand-in NVCF API (tests/bin/nvcf-api.js) as the unit tests use it: typed, and an account as nvcf-api's
 * account-bootstrap hook creates it.
 */

import { cliConfigYaml } from "../../../values/registration";

/** The nvcf-cli config the program writes, for a control plane whose gateway is 127.0.0.1 and domain nvcf.test. */
export const CLI_CONFIG_YAML = cliConfigYaml({
  gatewayUrl: "http://127.0.0.1",
  hosts: {
    api: "api.nvcf.test",
    apiKeys: "api-keys.nvcf.test",
    sis: "sis.nvcf.test",
    invocation: "invocation.nvcf.test",
  },
  ncaId: "nvcf-default",
});

/** A registry credential in the stand-in API's store. */
export interface StoredCredential {
  registryCredentialId: string;
  registryCredentialName: string;
  registryHostname: string;
  provisionedBy: string;
  artifactTypes: string[];
  description: string;
  tags: string[];
  secretSha256: string;
}

/** The store's content (`<dir>/nvcf-api.json`). */
export interface StoredApi {
  database: string;
  accounts: { ncaId: string; maxFunctionsAllowed: number; registryCredentials: StoredCredential[] }[];
  clients: Record<string, string>;
  events: { by: string; op: string; status: number }[];
}

/** The module's operations the tests call directly. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const api = require("../../bin/nvcf-api.js") as {
  accountBootstrap: (
    dir: string,
    env: Record<string, string>,
    opts?: { database?: string },
  ) => { code: number; message: string };
  createAccount: (
    dir: string,
    ncaId: string,
    req: unknown,
    opts?: { database?: string; by?: string },
  ) => { status: number; body: unknown; reset: boolean };
  read: (dir: string) => StoredApi;
  sha256: (s: string) => string;
};

/**
 * Creates the account `nvcf-default` (admin client `ncp`, limits 10) with one credential provisioned by SYSTEM, as
 * the bootstrap hook does at the first install. Input: the store's directory and the credential (the secret is
 * base64 of `user:key`). Output: the API's answer (status 200).
 */
export function bootstrapAccount(
  apiDir: string,
  c: { registryHostname: string; secretName: string; user: string; key: string },
) {
  return api.createAccount(
    apiDir,
    "nvcf-default",
    {
      name: "nvcf-default",
      adminClientId: "ncp",
      maxFunctionsAllowed: 10,
      maxTasksAllowed: 10,
      maxTelemetriesAllowed: 10,
      maxRegistryCredentialsAllowed: 10,
      registryCredentials: [
        {
          registryHostname: c.registryHostname,
          secret: { name: c.secretName, value: Buffer.from(`${c.user}:${c.key}`).toString("base64") },
          artifactTypes: ["CONTAINER"],
          tags: [],
          description: "",
        },
      ],
    },
    { database: "db-1", by: "account-bootstrap" },
  );
}
