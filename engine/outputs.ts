/**
 * Stack outputs that stay meaningful when a `pulumi up` fails part-way.
 *
 * The Node.js SDK registers a stack's outputs once, after every one of them is known. When a resource fails,
 * the outputs that depend on it never resolve (the SDK leaves them pending), so the stack's outputs are never
 * registered and the engine keeps the previous run's outputs, or none on a first run: a release that failed
 * still reads "deployed", and a stack whose first run failed has no outputs at all.
 *
 * The engine accepts the root stack's outputs more than once and keeps the last registration it received; when
 * the update fails it merges that registration over the previous outputs, key by key
 * (pulumi/pkg/v3 resource/deploy/step_executor.go `executeRegisterResourceOutputs`, deployment_executor.go:
 * "we only replace outputs that have new outputs"). So `publishAsKnown` registers the outputs again each time
 * one more becomes known: after a failure the stack holds every output the run got to, and map outputs such
 * as `releases` list each entry's value or a placeholder for the entries the run did not finish.
 *
 * Registrations go out one at a time, each after the engine acknowledged the previous one, and the program's
 * own final registration waits until the last of them is acknowledged (`settled`), so the final, complete set
 * is always the last one the engine sees. Nothing is published during a preview.
 *
 * The engine stops taking registrations the moment a step fails (pulumi/pkg/v3 resource/deploy
 * deployment_executor.go: the main loop returns on the cancelled context), so a registration still on its way
 * then is lost. A resource that must not start before the engine holds some outputs as known waits for
 * `Acknowledgements.wait` (the control plane's releases wait so for their prerequisites' entries of `releases`:
 * when a release fails, every release it waited for reads `deployed`).
 */
import * as path from "node:path";
import * as pulumi from "@pulumi/pulumi";

/**
 * What to publish: top-level outputs once known; maps from the start, with a placeholder per unknown entry; held
 * outputs from the start, with the value they had until the new one is known.
 */
export interface ProgressiveOutputs {
  /** Top-level outputs, each included as soon as it is known (secret outputs stay secret). */
  values: Record<string, pulumi.Output<unknown>>;
  /** Map outputs: known entries as they are, the others as `placeholder`. */
  maps: Record<string, { entries: Record<string, pulumi.Output<unknown>>; placeholder: string }>;
  /**
   * Top-level outputs registered as `until` while `value` is not known, and as `value` once it is. Every
   * registration then carries them: an update that stops early (failed, or cancelled, where the engine keeps only
   * the last registration) leaves `until`, e.g. the bundle the stack was at before (stacks/control.ts).
   */
  held?: Record<string, { value: pulumi.Output<unknown>; until: unknown }>;
}

/** Sends one registration of the root stack's outputs and resolves when the engine acknowledged it. */
export type OutputSender = (outputs: Record<string, unknown>) => Promise<void>;

/**
 * The snapshot of outputs to register (pure). Input: the spec and the names known so far (`values` and `held`
 * keys, and `<map>/<entry>` for map entries). Output: known values as given (Outputs, serialized by the SDK), each
 * map with its placeholder for unknown entries, each held output as its value or, while unknown, its `until`.
 */
export function snapshot(spec: ProgressiveOutputs, known: ReadonlySet<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(spec.values)) if (known.has(k)) out[k] = v;
  for (const [k, h] of Object.entries(spec.held ?? {})) out[k] = known.has(k) ? h.value : h.until;
  for (const [k, m] of Object.entries(spec.maps))
    out[k] = Object.fromEntries(
      Object.entries(m.entries).map(([e, v]) => [e, known.has(`${k}/${e}`) ? v : m.placeholder]),
    );
  return out;
}

/**
 * Which outputs the engine has acknowledged as known, for resources that wait until it holds them. Names are
 * those of `snapshot`: a `values` key, or `<map>/<entry>`.
 */
export class Acknowledgements {
  private readonly acked = new Set<string>();
  private ended = false;
  private waiters: { names: string[]; resolve: () => void }[] = [];

  /**
   * Resolves once every one of `names` was known in a registration the engine acknowledged, or once publishing
   * ended without it (`end`: the engine refused a registration, or the program never started publishing).
   * Never rejects. A name that never becomes known (its resource failed) keeps it pending until `end`, as the
   * SDK keeps a failed resource's dependents pending.
   */
  wait(names: readonly string[]): Promise<void> {
    if (this.ended || names.every((n) => this.acked.has(n))) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ names: [...names], resolve }));
  }

  /** Records the names known in a registration the engine acknowledged; resolves the waits they complete. */
  record(known: Iterable<string>): void {
    for (const n of known) this.acked.add(n);
    this.waiters = this.waiters.filter((w) => {
      if (!w.names.every((n) => this.acked.has(n))) return true;
      w.resolve();
      return false;
    });
  }

  /** Publishing is over: every wait, current and later, resolves. */
  end(): void {
    this.ended = true;
    for (const w of this.waiters) w.resolve();
    this.waiters = [];
  }
}

/**
 * Registers the stack's outputs again each time one more of `spec` becomes known (see the module comment).
 * Input: the spec, how to send a registration (default: the engine's resource monitor), and optionally the
 * `Acknowledgements` to keep up to date (each acknowledged registration's known names are recorded; it is
 * ended when publishing ends). Output: a promise that resolves once every output is known and the last
 * registration was acknowledged; the program's returned outputs must wait for it. Never rejects; a
 * registration the engine refuses (it is shutting down after a failure) ends the publishing.
 */
export function publishAsKnown(
  spec: ProgressiveOutputs,
  send: OutputSender = monitorSender(),
  acks?: Acknowledgements,
): Promise<void> {
  const names = [
    ...Object.keys(spec.values),
    ...Object.keys(spec.held ?? {}),
    ...Object.entries(spec.maps).flatMap(([k, m]) => Object.keys(m.entries).map((e) => `${k}/${e}`)),
  ];
  const known = new Set<string>();
  let chain = Promise.resolve();
  let queued = false;
  let stopped = false;
  let resolveSettled: () => void = () => undefined;
  const settled = new Promise<void>((r) => (resolveSettled = r));
  // Publishing is over (everything known, or the engine refused): no wait on the acknowledgements stays.
  const finish = () => {
    acks?.end();
    resolveSettled();
  };
  const schedule = () => {
    if (queued || stopped) return;
    queued = true;
    chain = chain.then(async () => {
      queued = false;
      const complete = known.size === names.length;
      const sending = [...known];
      try {
        await send(snapshot(spec, known));
        acks?.record(sending);
      } catch (e) {
        stopped = true;
        pulumi.log.debug(`stack outputs not registered again: ${(e as Error).message}`);
      }
      if (complete || stopped) finish();
    });
  };
  const watch = (name: string, o: pulumi.Output<unknown>) =>
    o.apply(() => {
      known.add(name);
      schedule();
      return undefined;
    });
  for (const [k, v] of Object.entries(spec.values)) watch(k, v);
  for (const [k, h] of Object.entries(spec.held ?? {})) watch(k, h.value);
  for (const [k, m] of Object.entries(spec.maps))
    for (const [e, v] of Object.entries(m.entries)) watch(`${k}/${e}`, v);
  if (names.length === 0) finish();
  return settled;
}

/**
 * The default sender: a RegisterResourceOutputs call for the root stack resource on the engine's resource
 * monitor (the call the SDK makes for the final outputs), with the SDK's own serialization (secrets stay
 * secret). Throws when there is no stack resource yet.
 */
export function monitorSender(): OutputSender {
  const stack = pulumi.runtime.getStackResource();
  if (!stack) throw new Error("the root stack resource is not registered yet");
  const urn = new Promise<string>((r) => stack.urn.apply((u) => r(u)));
  // The protobuf classes the SDK itself uses (google-protobuf is a dependency of @pulumi/pulumi).
  const sdkDir = path.dirname(require.resolve("@pulumi/pulumi/package.json"));
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Struct } = require(
    require.resolve("google-protobuf/google/protobuf/struct_pb", { paths: [sdkDir] }),
  );
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { RegisterResourceOutputsRequest } = require("@pulumi/pulumi/proto/resource_pb");
  return async (outputs) => {
    const monitor = pulumi.runtime.getMonitor();
    if (!monitor) return;
    const done = pulumi.runtime.rpcKeepAlive();
    try {
      const serialized = await pulumi.runtime.serializeProperties("stack outputs", { outputs });
      const req = new RegisterResourceOutputsRequest();
      req.setUrn(await urn);
      req.setOutputs(Struct.fromJavaScript(serialized["outputs"]));
      await new Promise<void>((resolve, reject) =>
        monitor.registerResourceOutputs(req, (err: Error | null) => (err ? reject(err) : resolve())),
      );
    } finally {
      done();
    }
  };
}

/**
 * The program's outputs, each waiting until `settled` (so the SDK's final registration comes after every
 * progressive one). Secret outputs stay secret.
 */
export function afterSettled(
  outputs: Record<string, pulumi.Output<unknown>>,
  settled: Promise<void>,
): Record<string, pulumi.Output<unknown>> {
  const gate = pulumi.output(settled.then(() => true));
  return Object.fromEntries(
    Object.entries(outputs).map(([k, v]) => [k, pulumi.all([gate, v]).apply(([, x]) => x)]),
  );
}
