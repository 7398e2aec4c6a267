/**
 * Image credentials: every credential the program puts into an image pull secret is tried
 * against its registry before anything is touched, the way a container runtime logs in (the Docker Registry
 * HTTP API v2 / OCI distribution token flow), and one pinned image of that registry is looked up with it.
 *
 * Which registries and credentials (worked out from the program, not guessed):
 * - the pull secret of the control plane (components/controlPlane.ts `PullSecrets`): server
 *   `nvcf:images.registry`, user `nvcf:pullSecret.username`, password the secret `nvcf:registryKey`; created
 *   when `pullSecret.name` is set and `pullSecret.create` is true;
 * - the pull secret of each GPU cluster (components/computePlane.ts): server the control plane's
 *   `images.registry` (its `imageRegistry` output), user that stack's `nvcf:pullSecret.username`, password its
 *   own `nvcf:registryKey`, else the control plane's (its `imageRegistryKey` output, stacks/compute.ts);
 * - the worker sidecar credential (values/control.ts `NVCF_API_SIDECARS_IMAGE_PULL_SECRET`): server
 *   `images.registry`, user `sidecarUser` (the literal `$oauthtoken` on nvcr.io, else the pull-secret user),
 *   password `nvcf:sidecarRegistryKey`, else `nvcf:registryKey`.
 * With `images.thirdParty: mirror` every third-party image also comes from `images.registry`, so this one
 * registry is all the pull secrets carry credentials for; upstream third-party registries are pulled from
 * anonymously and are not checked here. Identical (registry, user, key) triples are checked once.
 *
 * The probe image: the control plane's account-bootstrap image (`<registry>/<repository>/alpine-k8s` at the tag
 * the api values pin), a GPU cluster's NVCA operator image (`<registry>/<repository>/nvca-operator` at the
 * bundle's pinned tag). Without a pinned tag, the repository's tag list is read instead of a manifest.
 *
 * Network: HTTPS, except plain HTTP for loopback hosts (localhost, 127.0.0.0/8, ::1), as containerd does for
 * localhost. Node 20's `fetch` ignores proxy variables, so requests go through node:http/https and honour
 * `HTTPS_PROXY`/`https_proxy` (CONNECT tunnel), `HTTP_PROXY`/`http_proxy` and `NO_PROXY`/`no_proxy` themselves
 * (loopback is never proxied); extra CA certificates come from `NODE_EXTRA_CA_CERTS`. Every request has a
 * deadline (default 8 s); at most four registries are tried at a time. The secret is sent only as HTTP basic
 * auth to the registry or its token service and never appears in a finding.
 */
import * as http from "node:http";
import * as https from "node:https";
import { type LookupFunction, isIP } from "node:net";
import * as tls from "node:tls";
import { blankComputeInputs, nvcaOperatorValues } from "../../values/compute";
import { sidecarUser } from "../../values/control";
import { mapBounded } from "../../kube/bounded";
import type { Finding } from "../types";
import { valuesOf } from "./checks";
import { fail, pass, skipped } from "../findings";
import { type CheckedStack, computeConfig, controlConfig } from "../stacks";

const CHECK = "images.pull";

/** Where the password of one use of a credential comes from: a config key of a stack. */
export interface KeySource {
  /** The config key, e.g. `nvcf:registryKey`, `nvcf:sidecarRegistryKey`. */
  key: string;
  /** The stack that holds it. */
  stack: string;
}

/** One registry credential to try, with every use of it in the environment. */
export interface ImageCredential {
  /** The stack the finding belongs to (the first that uses the credential). */
  stack: string;
  /** Registry host, with its port when not the default, e.g. `nvcr.io`, `127.0.0.1:5000`. */
  registry: string;
  username: string;
  /** Which config key sets the user, e.g. `nvcf:pullSecret.username of stack dev`. */
  usernameFrom: string;
  /** The decrypted password; undefined when it was not decrypted for the checks. */
  password?: string;
  /** Where the password comes from (one entry per distinct key). */
  sources: KeySource[];
  /** What uses it, e.g. `dev: pull secret nvcr-pull-secret`. */
  uses: string[];
  /** One image the program deploys from this registry: repository path and, when pinned, its tag. */
  probe: { repository: string; tag?: string };
}

/**
 * The probe of a chart value's image: its repository path on `registry` (a `<registry>/` prefix, as the NVCA
 * operator's values carry it, is removed; a `{registry, repository}` value's repository is taken as it is).
 */
function probeOf(registry: string, repository: string, tag?: string): ImageCredential["probe"] {
  const prefix = `${registry}/`;
  const repo = repository.startsWith(prefix) ? repository.slice(prefix.length) : repository;
  return { repository: repo, ...(tag ? { tag } : {}) };
}

const keyText = (s: KeySource) => `${s.key} (stack ${s.stack})`;

/**
 * Every distinct image credential of an environment, and the findings of stacks that have none to check.
 * Input: the checked stacks, control plane first. Output: `creds` (one per distinct registry, user and key)
 * and `findings`: a pass for a stack whose nodes authenticate themselves (`pullSecret.name: null`), a warning
 * for a pull secret managed outside the stack (`pullSecret.create: false`), an error for a GPU cluster whose
 * pull secret would have no key (neither its own nor the control plane's `nvcf:registryKey`). Never throws.
 */
export function imageCredentials(
  control: CheckedStack,
  compute: readonly CheckedStack[],
): { creds: ImageCredential[]; findings: Finding[] } {
  const ccfg = controlConfig(control);
  const cs = control.file.stack;
  const registry = ccfg.images.registry;
  const out = new Map<string, ImageCredential>();
  const findings: Finding[] = [];
  const add = (c: Omit<ImageCredential, "sources" | "uses"> & { source: KeySource; use: string }) => {
    const id = `${c.registry}\n${c.username}\n${c.password === undefined ? `undecrypted ${keyText(c.source)}` : `key ${c.password}`}`;
    const had = out.get(id);
    if (!had) {
      const { source, use, ...rest } = c;
      out.set(id, { ...rest, sources: [source], uses: [use] });
      return;
    }
    had.uses.push(c.use);
    if (!had.sources.some((s) => s.key === c.source.key && s.stack === c.source.stack))
      had.sources.push(c.source);
  };
  type ImageValue = { repository?: string; tag?: string };
  const api = valuesOf(ccfg, "api")["api"] as { accountBootstrap?: { image?: ImageValue } } | undefined;
  const bootstrap: ImageValue = api?.accountBootstrap?.image ?? {};
  const controlProbe = probeOf(
    registry,
    String(bootstrap.repository ?? `${ccfg.images.repository}/alpine-k8s`),
    bootstrap.tag,
  );
  const secretOf = (s: CheckedStack, key: string) =>
    s.secretKeys.has(key) ? { set: true, value: s.secrets[key] } : { set: false, value: undefined };
  const noSecret = (s: CheckedStack, name: string, why: string, ok: boolean) =>
    findings.push(
      ok
        ? pass(CHECK, s.file.stack, `pull secret ${name}`, why)
        : skipped(
            CHECK,
            s.file.stack,
            `pull secret ${name}`,
            why,
            `check the Secret yourself (kubectl get secret ${name} -o jsonpath='{.data.\\.dockerconfigjson}' in each namespace), or let the stack create it: pulumi config set --path nvcf:pullSecret.create true -s ${s.file.stack} and set nvcf:registryKey`,
          ),
    );
  /**
   * The findings of a stack whose pull secret carries no credential of the config: a pass when it has none
   * (`pullSecret.name: null`), a warning when it is managed outside the stack (`pullSecret.create: false`).
   * Returns whether it pushed one (then the stack has no credential to try).
   */
  const noCredential = (s: CheckedStack, p: { name: string | null; create: boolean }): boolean => {
    if (p.name === null)
      noSecret(
        s,
        "(none)",
        `no pull secret (nvcf:pullSecret.name is null): the nodes authenticate to ${registry} themselves, so there is no credential of the stack to try`,
        true,
      );
    else if (!p.create)
      noSecret(
        s,
        p.name,
        `the pull secret ${p.name} is managed outside the stack (nvcf:pullSecret.create false), so its credential is not in the config`,
        false,
      );
    else return false;
    return true;
  };

  // The control plane's pull secret.
  const ps = ccfg.pullSecret;
  const key = secretOf(control, "registryKey");
  if (!noCredential(control, ps) && key.set)
    add({
      stack: cs,
      registry,
      username: ps.username,
      usernameFrom: `nvcf:pullSecret.username of stack ${cs}`,
      password: key.value,
      source: { key: "nvcf:registryKey", stack: cs },
      use: `${cs}: pull secret ${ps.name}`,
      probe: controlProbe,
    });

  // The worker sidecar credential (nvcf-api pulls the function sidecars with it).
  const side = secretOf(control, "sidecarRegistryKey");
  const sideKey = side.set ? side : key;
  if (sideKey.set) {
    const user = sidecarUser(ccfg);
    add({
      stack: cs,
      registry,
      username: user,
      usernameFrom:
        registry === "nvcr.io" ? "NGC's literal user for nvcr.io" : `nvcf:pullSecret.username of stack ${cs}`,
      password: sideKey.value,
      source: { key: side.set ? "nvcf:sidecarRegistryKey" : "nvcf:registryKey", stack: cs },
      use: `${cs}: worker sidecar pulls`,
      probe: controlProbe,
    });
  }

  // Each GPU cluster's pull secret: its own key, else the control plane's.
  for (const s of compute) {
    const cfg = computeConfig(s);
    const st = s.file.stack;
    if (noCredential(s, cfg.pullSecret)) continue;
    const own = secretOf(s, "registryKey");
    const k = own.set ? own : key;
    if (!k.set) {
      findings.push(
        fail(
          CHECK,
          st,
          `pull secret ${cfg.pullSecret.name}`,
          `no registry key: neither stack ${st} nor its control plane ${cs} sets nvcf:registryKey`,
          `the key the pull secret ${cfg.pullSecret.name} for ${registry} is made with`,
          `pulumi config set --secret nvcf:registryKey <key> -s ${st} (or in stack ${cs}), or pulumi config set --path nvcf:pullSecret.create false -s ${st} if the secret exists`,
        ),
      );
      continue;
    }
    const nvca = nvcaOperatorValues(
      cfg,
      blankComputeInputs({
        imageRegistry: registry,
        imageRepository: ccfg.images.repository,
        ncaID: ccfg.ncaId,
      }),
    )["image"] as ImageValue | undefined;
    add({
      stack: st,
      registry,
      username: cfg.pullSecret.username,
      usernameFrom: `nvcf:pullSecret.username of stack ${st}`,
      password: k.value,
      source: own.set ? { key: "nvcf:registryKey", stack: st } : { key: "nvcf:registryKey", stack: cs },
      use: `${st}: pull secret ${cfg.pullSecret.name}`,
      probe: probeOf(
        registry,
        String(nvca?.repository ?? `${registry}/${ccfg.images.repository}/nvca-operator`),
        nvca?.tag,
      ),
    });
  }
  return { creds: [...out.values()], findings };
}

// ---------------------------------------------------------------------------------------------------------
// HTTP: node:http/https with a deadline, the standard proxy variables and an optional fixed resolution.

/** Options of the registry client. */
export interface RegistryClientOptions {
  /** Deadline of each HTTP request in milliseconds, connection and body included (default 8000). */
  timeoutMs?: number;
  /** Extra CA certificates (PEM) trusted besides Node's (which include `NODE_EXTRA_CA_CERTS`). */
  ca?: string;
  /** Fixed addresses by host name, like curl's `--resolve` (e.g. a test's stand-in under a real-looking name). */
  resolve?: Record<string, string>;
  /** Where the proxy variables are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

/** What a request got: status, headers and (at most 64 KiB of) body text. */
interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request that got no HTTP answer, classified for the user. */
class NetworkError extends Error {
  constructor(
    readonly kind: "unknown-host" | "refused" | "tls" | "timeout" | "proxy" | "network",
    message: string,
  ) {
    super(message);
    this.name = "NetworkError";
  }
}

const TLS_CODES =
  /^(CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|ERR_TLS_|ERR_SSL_|EPROTO|HOSTNAME_MISMATCH|ERR_TLS_CERT_ALTNAME_INVALID)/;

function classify(e: NodeJS.ErrnoException): NetworkError {
  if (e instanceof NetworkError) return e;
  const code = e.code ?? "";
  const msg = e.message.split("\n")[0];
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME")
    return new NetworkError("unknown-host", `unknown host (${code})`);
  if (code === "ECONNREFUSED") return new NetworkError("refused", `connection refused (${code})`);
  if (TLS_CODES.test(code) || /certificate|ssl|tls/i.test(msg))
    return new NetworkError("tls", `TLS error: ${msg}${code ? ` (${code})` : ""}`);
  return new NetworkError("network", `${msg}${code ? ` (${code})` : ""}`);
}

/** Loopback hosts: plain HTTP, never proxied (containerd's and Go's rules). */
function isLoopback(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The proxy for a URL from the standard variables (Go's `ProxyFromEnvironment` rules), or undefined. */
export function proxyFor(url: URL, env: NodeJS.ProcessEnv = process.env): URL | undefined {
  if (isLoopback(url.hostname)) return undefined;
  const raw =
    url.protocol === "https:"
      ? (env["HTTPS_PROXY"] ?? env["https_proxy"])
      : (env["HTTP_PROXY"] ?? env["http_proxy"]);
  if (!raw) return undefined;
  const port = url.port || (url.protocol === "https:" ? "443" : "80");
  const host = url.hostname.toLowerCase();
  for (const entry of (env["NO_PROXY"] ?? env["no_proxy"] ?? "").split(/[\s,]+/).filter(Boolean)) {
    if (entry === "*") return undefined;
    const [h, p] = entry.toLowerCase().split(/:(?=\d+$)/);
    if (p && p !== port) continue;
    const name = h.replace(/^\*?\./, "");
    if (host === name || host.endsWith(`.${name}`)) return undefined;
  }
  try {
    return new URL(raw.includes("://") ? raw : `http://${raw}`);
  } catch {
    return undefined;
  }
}

const proxyAuth = (p: URL): Record<string, string> =>
  p.username
    ? {
        "Proxy-Authorization": `Basic ${Buffer.from(`${decodeURIComponent(p.username)}:${decodeURIComponent(p.password)}`).toString("base64")}`,
      }
    : {};

/**
 * One HTTP request with a deadline. Resolves to the answer (any status); rejects with `NetworkError` when
 * there is none (unknown host, refused, TLS, timeout, proxy refused the tunnel).
 */
function httpRequest(
  url: URL,
  method: "GET" | "HEAD",
  headers: Record<string, string>,
  opts: RegistryClientOptions = {},
): Promise<Answer> {
  const timeoutMs = opts.timeoutMs ?? 8000;
  const proxy = proxyFor(url, opts.env ?? process.env);
  const secure = url.protocol === "https:";
  const port = Number(url.port || (secure ? 443 : 80));
  // URL keeps an IPv6 literal's brackets; sockets want it bare, and TLS names only DNS names (no SNI for IPs).
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  const sni = isIP(hostname) ? undefined : hostname;
  const fixed = opts.resolve?.[hostname];
  const lookup: LookupFunction | undefined = fixed
    ? (_host, options, cb) => {
        const family = fixed.includes(":") ? 6 : 4;
        if ((options as { all?: boolean }).all)
          (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address: fixed, family },
          ]);
        else cb(null, fixed, family);
      }
    : undefined;
  return new Promise<Answer>((resolve, reject) => {
    let done = false;
    const inFlight: { destroy: (e?: Error) => void }[] = [];
    const finish = (e: Error | undefined, a?: Answer) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      for (const r of inFlight) r.destroy();
      if (e) {
        const n = classify(e as NodeJS.ErrnoException);
        reject(new NetworkError(n.kind, `${url.origin}${url.pathname}: ${n.message}`));
      } else resolve(a as Answer);
    };
    const timer = setTimeout(
      () =>
        finish(
          new NetworkError("timeout", `no answer within ${Math.round(timeoutMs / 100) / 10}s (timeout)`),
        ),
      timeoutMs,
    );
    const onResponse = (res: http.IncomingMessage) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => {
        if (body.length < 65536) body += d;
      });
      res.on("end", () => finish(undefined, { status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", (e) => finish(e));
    };
    const base = {
      method,
      headers: { "User-Agent": "nvcf-preflight", ...headers, Host: url.host },
      ...(opts.ca ? { ca: opts.ca } : {}),
    };
    const send = (o: https.RequestOptions, overTls: boolean) => {
      const req = (overTls ? https : http).request(o, onResponse);
      inFlight.push(req);
      req.on("error", (e) => finish(e));
      req.end();
    };
    const target = { host: hostname, port, path: `${url.pathname}${url.search}` };
    if (!proxy) {
      send({ ...base, ...target, ...(sni ? { servername: sni } : {}), lookup, agent: false }, secure);
      return;
    }
    const proxyPort = Number(proxy.port || 80);
    if (!secure) {
      // Plain HTTP through a proxy: the absolute URI on the request line.
      const headers = { ...base.headers, ...proxyAuth(proxy) };
      send({ ...base, host: proxy.hostname, port: proxyPort, path: url.href, headers, agent: false }, false);
      return;
    }
    // HTTPS through a proxy: a CONNECT tunnel, TLS to the registry inside it.
    const connect = http.request({
      host: proxy.hostname,
      port: proxyPort,
      method: "CONNECT",
      path: `${url.hostname}:${port}`,
      headers: { Host: `${url.hostname}:${port}`, ...proxyAuth(proxy) },
      agent: false,
    });
    inFlight.push(connect);
    connect.on("error", (e) =>
      finish(new NetworkError("proxy", `the proxy ${proxy.host} did not answer: ${e.message}`)),
    );
    connect.on("connect", (res, socket) => {
      inFlight.push(socket);
      if (res.statusCode !== 200) {
        finish(
          new NetworkError("proxy", `the proxy ${proxy.host} refused the tunnel (HTTP ${res.statusCode})`),
        );
        return;
      }
      const secured = tls.connect({
        socket,
        host: hostname, // the name the certificate is checked against
        ...(sni ? { servername: sni } : {}),
        ...(opts.ca ? { ca: opts.ca } : {}),
      });
      inFlight.push(secured);
      secured.on("error", (e) => finish(e));
      // The TLS socket is handed over as the connection; node:http then speaks HTTP over it.
      send({ ...base, ...target, createConnection: () => secured }, false);
    });
    connect.end();
  });
}

// ---------------------------------------------------------------------------------------------------------
// The registry token flow.

/** `WWW-Authenticate` parsed: scheme and parameters (`realm`, `service`, `scope`, `error`). */
export function parseChallenge(header: string | undefined): {
  scheme: string;
  params: Record<string, string>;
} {
  const h = (header ?? "").trim();
  const sp = h.indexOf(" ");
  const scheme = (sp < 0 ? h : h.slice(0, sp)).toLowerCase();
  const params: Record<string, string> = {};
  const rest = sp < 0 ? "" : h.slice(sp + 1);
  const re = /([A-Za-z_]+)=(?:"((?:[^"\\]|\\.)*)"|([^,\s]*))/g;
  for (let m = re.exec(rest); m; m = re.exec(rest))
    params[m[1].toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : m[3];
  return { scheme, params };
}

/** The registry's own words from an error body (`errors[].code/message`, `details`), short and one line. */
function registrySaid(a: Answer, password?: string): string {
  let text = "";
  try {
    const j = JSON.parse(a.body) as {
      errors?: { code?: string; message?: string }[];
      details?: string;
      error?: string;
      message?: string;
    };
    text =
      j.errors
        ?.map((e) => [e.code, e.message].filter(Boolean).join(": "))
        .filter(Boolean)
        .join("; ") ||
      j.details ||
      j.error ||
      j.message ||
      "";
  } catch {
    text = "";
  }
  const wa = a.headers["www-authenticate"];
  const scopeErr = wa ? parseChallenge(String(wa)).params["error"] : undefined;
  if (scopeErr && !text.includes(scopeErr)) text = text ? `${text}; ${scopeErr}` : scopeErr;
  text = text.replace(/\s+/g, " ").trim().slice(0, 200);
  if (password && text.includes(password)) text = text.split(password).join("***");
  return text ? ` (${text})` : "";
}

const STATUS_WORDS: Record<number, string> = {
  401: "401 unauthorized",
  403: "403 forbidden",
  404: "404 not found",
  429: "429 too many requests",
};
const statusText = (n: number) => STATUS_WORDS[n] ?? `HTTP ${n}`;

const MANIFEST_TYPES = [
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
  "application/vnd.oci.image.manifest.v1+json",
  "application/vnd.docker.distribution.manifest.v2+json",
].join(", ");

/** What went wrong, for the finding's cause and fix. */
type Outcome =
  | { ok: true; found: string }
  | {
      ok: false;
      kind:
        | NetworkError["kind"]
        | "not-registry"
        | "unauthorized"
        | "forbidden"
        | "no-access"
        | "manifest-unknown"
        | "repo-unknown"
        | "registry-error";
      found: string;
    };

/**
 * Logs in to one registry with one credential and looks up its probe image. `host`: the credential's registry
 * without its port. Output: a passing outcome that says how (token, basic auth, or no login needed) and what
 * was found, or the failure with what the registry answered. Never throws; the password appears in no text.
 */
async function tryCredential(
  c: ImageCredential,
  host: string,
  opts: RegistryClientOptions,
): Promise<Outcome> {
  const scheme = isLoopback(host) ? "http" : "https";
  // Docker Hub's image references say docker.io; its registry API is served by registry-1.docker.io.
  const base = `${scheme}://${c.registry === "docker.io" ? "registry-1.docker.io" : c.registry}`;
  const basic = `Basic ${Buffer.from(`${c.username}:${c.password ?? ""}`).toString("base64")}`;
  const repo = c.probe.repository;
  const ref = `${c.registry}/${repo}${c.probe.tag ? `:${c.probe.tag}` : ""}`;
  const said = (a: Answer) => registrySaid(a, c.password);
  try {
    const ping = await httpRequest(new URL(`${base}/v2/`), "GET", {}, opts);
    let auth: string | undefined;
    let how: string;
    if (ping.status === 200) {
      how = `${c.registry} needs no login`;
    } else if (ping.status === 401) {
      const ch = parseChallenge(String(ping.headers["www-authenticate"] ?? ""));
      if (ch.scheme === "bearer" && ch.params["realm"]) {
        const realm = new URL(ch.params["realm"]);
        if (ch.params["service"]) realm.searchParams.set("service", ch.params["service"]);
        realm.searchParams.set("scope", `repository:${repo}:pull`);
        const tok = await httpRequest(realm, "GET", { Authorization: basic }, opts);
        const where = `the token service ${realm.origin}${realm.pathname}`;
        if (tok.status === 401)
          return {
            ok: false,
            kind: "unauthorized",
            found: `${where} answered ${statusText(401)} for user ${c.username}${said(tok)}`,
          };
        if (tok.status === 403)
          return {
            ok: false,
            kind: "forbidden",
            found: `${where} answered ${statusText(403)} for user ${c.username} and scope repository:${repo}:pull${said(tok)}`,
          };
        if (tok.status !== 200)
          return {
            ok: false,
            kind: "registry-error",
            found: `${where} answered ${statusText(tok.status)}${said(tok)}`,
          };
        let token: string | undefined;
        try {
          const j = JSON.parse(tok.body) as { token?: string; access_token?: string };
          token = j.token ?? j.access_token;
        } catch {
          token = undefined;
        }
        if (!token)
          return {
            ok: false,
            kind: "registry-error",
            found: `${where} answered 200 without a token`,
          };
        auth = `Bearer ${token}`;
        how = `a token for user ${c.username} from ${realm.host}`;
      } else if (ch.scheme === "basic") {
        const again = await httpRequest(new URL(`${base}/v2/`), "GET", { Authorization: basic }, opts);
        if (again.status === 401 || again.status === 403)
          return {
            ok: false,
            kind: again.status === 401 ? "unauthorized" : "forbidden",
            found: `${base}/v2/ answered ${statusText(again.status)} to basic auth for user ${c.username}${said(again)}`,
          };
        if (again.status !== 200)
          return {
            ok: false,
            kind: "registry-error",
            found: `${base}/v2/ answered ${statusText(again.status)} to basic auth${said(again)}`,
          };
        auth = basic;
        how = `basic auth for user ${c.username}`;
      } else
        return {
          ok: false,
          kind: "not-registry",
          found: `${base}/v2/ answered 401 without a Bearer or Basic challenge`,
        };
    } else
      return {
        ok: false,
        kind: "not-registry",
        found: `${base}/v2/ answered ${statusText(ping.status)}, not a registry's 200 or 401${said(ping)}`,
      };

    const headers: Record<string, string> = auth ? { Authorization: auth } : {};
    const look = c.probe.tag
      ? await httpRequest(
          new URL(`${base}/v2/${repo}/manifests/${encodeURIComponent(c.probe.tag)}`),
          "HEAD",
          { ...headers, Accept: MANIFEST_TYPES },
          opts,
        )
      : await httpRequest(new URL(`${base}/v2/${repo}/tags/list?n=1`), "GET", headers, opts);
    const what = c.probe.tag ? `the manifest of ${ref}` : `the tags of ${ref}`;
    if (look.status === 200)
      return {
        ok: true,
        found: `logged in with ${how} and found ${what}${look.headers["docker-content-digest"] ? ` (${String(look.headers["docker-content-digest"]).slice(0, 19)}…)` : ""}`,
      };
    if (look.status === 401 || look.status === 403)
      return {
        ok: false,
        kind: "no-access",
        found: `logged in with ${how}, but reading ${what} answered ${statusText(look.status)}: no pull access to repository ${repo}${said(look)}`,
      };
    if (look.status === 404)
      return {
        ok: false,
        kind: c.probe.tag ? "manifest-unknown" : "repo-unknown",
        found: `logged in with ${how}, but ${what} answered ${statusText(404)}${said(look)}`,
      };
    return {
      ok: false,
      kind: "registry-error",
      found: `logged in with ${how}, but reading ${what} answered ${statusText(look.status)}${said(look)}`,
    };
  } catch (e) {
    const n = classify(e as NodeJS.ErrnoException);
    return { ok: false, kind: n.kind, found: n.message };
  }
}

/**
 * The likely cause and the fix for a failed outcome. `keys`: the credential's key sources as text; `host`: its
 * registry without the port.
 */
function causeAndFix(
  c: ImageCredential,
  kind: Exclude<Outcome, { ok: true }>["kind"],
  control: string,
  timeoutMs: number,
  keys: string,
  host: string,
): string {
  const setKey = c.sources.map((s) => `pulumi config set --secret ${s.key} <key> -s ${s.stack}`).join(", ");
  const setRegistry = `pulumi config set --path nvcf:images.registry <registry host> -s ${control}`;
  switch (kind) {
    case "unauthorized":
      return `likely cause: the registry refused the user ${c.username} (${c.usernameFrom}) with the key in ${keys}: a wrong, expired or revoked key, or the wrong user (NGC wants the literal $oauthtoken with an NGC API key); fix: ${setKey}${c.usernameFrom.startsWith("nvcf:") ? `, or pulumi config set --path nvcf:pullSecret.username <user> -s ${c.stack}` : ""}`;
    case "forbidden":
    case "no-access":
      return `likely cause: the credentials are accepted but may not pull ${c.probe.repository} (a key of another org or team, or nvcf:images.repository of stack ${control} names a path the key cannot read); fix: give the key pull access to ${c.registry}/${c.probe.repository.split("/").slice(0, -1).join("/")}, or pulumi config set --path nvcf:images.repository <org/team> -s ${control}, or ${setKey}`;
    case "manifest-unknown":
    case "repo-unknown":
      return `likely cause: the image is not in this registry (not copied to the mirror, or nvcf:images.repository of stack ${control} points elsewhere); fix: copy it there (docs/images-and-mirrors.md "Air-gapped installs: every image to copy"), or pulumi config set --path nvcf:images.repository <org/team> -s ${control}`;
    case "unknown-host":
      return `likely cause: ${host} (nvcf:images.registry of stack ${control}) does not resolve from this machine: misspelt, or an internal name this machine's DNS does not know; fix: ${setRegistry}, or run the preflight where the name resolves`;
    case "refused":
      return `likely cause: nothing listens on ${c.registry}: a wrong port in nvcf:images.registry of stack ${control}, or the registry is down; fix: ${setRegistry}`;
    case "tls":
      return `likely cause: the registry's certificate is not trusted here (a private CA: point NODE_EXTRA_CA_CERTS at its PEM; the nodes need it too), the name is not in the certificate, or the registry does not speak HTTPS; fix: trust the CA, or ${setRegistry} with the name in the certificate`;
    case "timeout":
      return `likely cause: no answer within ${timeoutMs / 1000}s: a firewall drops the traffic, or this network needs a proxy (HTTPS_PROXY, NO_PROXY); fix: open the way to ${c.registry} or set HTTPS_PROXY`;
    case "proxy":
      return `likely cause: the proxy in HTTPS_PROXY refused or could not reach ${c.registry}; fix: check the proxy, or exempt the registry with NO_PROXY=${host}`;
    case "not-registry":
      return `likely cause: ${c.registry} (nvcf:images.registry of stack ${control}) is not a Docker/OCI registry API v2 host (a web page, or a path instead of a host); fix: ${setRegistry}`;
    default:
      return `likely cause: the registry failed the request; fix: retry, or check the registry's status`;
  }
}

/**
 * One finding for one credential: tries it (`tryCredential`) unless its key was not decrypted (warning). An
 * unknown host under `.test` — reserved for testing (RFC 6761) and never resolvable publicly, as the embedded
 * default's `registry.nvcf.test` — is a stand-in no registry serves: a warning that says it was not checked.
 */
export async function checkCredential(
  c: ImageCredential,
  control: string,
  opts: RegistryClientOptions = {},
): Promise<Finding> {
  const obj = `image registry ${c.registry}`;
  const used = `used by ${c.uses.join(", ")}`;
  const keys = c.sources.map(keyText).join(", ");
  const host = c.registry.replace(/:\d+$/, "");
  if (c.password === undefined)
    return skipped(
      CHECK,
      c.stack,
      obj,
      `the login needs the secret ${keys}, which was not decrypted for the checks (${used})`,
      "run the checks through `nvcf preflight`, which reads the stack's secrets",
    );
  const r = await tryCredential(c, host, opts);
  if (r.ok) return pass(CHECK, c.stack, obj, `${r.found}; ${used}`);
  if (r.kind === "unknown-host" && /\.test$/i.test(host))
    return skipped(
      CHECK,
      c.stack,
      obj,
      `${host} does not resolve and is under .test, a name reserved for testing (RFC 6761): a stand-in no registry serves, as on the embedded default, so the credentials of ${keys} could not be tried (${used})`,
      `point nvcf:images.registry of stack ${control} at the real registry to have its credentials checked`,
    );
  return fail(
    CHECK,
    c.stack,
    obj,
    r.found,
    `a login to ${c.registry} as ${c.username} with ${keys} that may pull ${c.registry}/${c.probe.repository}, ${used}`,
    causeAndFix(c, r.kind, control, opts.timeoutMs ?? 8000, keys, host),
  );
}

/**
 * Every image credential of the environment, tried against its registry (at most four at a time). Input: the
 * checked stacks (control plane first) and client options. Output: the findings of `imageCredentials` and one
 * per distinct credential. Never throws.
 */
export async function checkImages(
  stacks: readonly CheckedStack[],
  opts: RegistryClientOptions = {},
): Promise<Finding[]> {
  const [control, ...compute] = stacks;
  let listed: ReturnType<typeof imageCredentials>;
  try {
    listed = imageCredentials(control, compute);
  } catch (e) {
    return [
      fail(
        CHECK,
        control.file.stack,
        "image pull secrets",
        `the check failed to run: ${(e as Error).message.split("\n")[0]}`,
        "the pull secrets' registries and credentials, derived from the config",
        "report this as a bug of the preflight",
      ),
    ];
  }
  const { creds, findings } = listed;
  const out = await mapBounded(creds, 4, (c) => checkCredential(c, control.file.stack, opts));
  return [...findings, ...out];
}
