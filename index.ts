/**
 * Entry point: validates this stack's config (every problem at once, before any resource is registered or a
 * kubeconfig is read, apart from one read-only warm-up request to the API server, engine/warmup.ts
 * `warmUpFromRawConfig`), then runs the control-plane or the compute-plane stack program chosen by `nvcf:plane`.
 * Each stack program first reads what its own last `pulumi up` deployed (stacks/installedSettings.ts) and refuses changes
 * that cannot be made in place, before it registers anything else.
 * An invalid config ends the run with `ConfigError` (a Pulumi RunError), which `pulumi preview` and
 * `pulumi up` print as the plain list of problems and nothing else (config/problems.ts). Each program is
 * loaded only when used, so a stack does not pay for the other's modules; under `pulumi preview`/`up` the
 * project's modules load through the transpile cache of engine/loader.ts
 * (docs/performance.md#start-up-of-the-stack-program).
 */
import { installFastLoader } from "./engine/loader";

installFastLoader();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { warmUpFromRawConfig } = require("./engine/warmup") as typeof import("./engine/warmup");

export = async () => {
  // Read-only and best effort: the API server builds the OpenAPI document the Kubernetes provider reads first
  // while the rest of the program loads (engine/warmup.ts). Per run: `nvcf` runs this function once per stack.
  warmUpFromRawConfig();
  const { loadConfig } = await import("./config/load");
  const cfg = loadConfig();
  if (cfg.plane === "compute") {
    const { computePlaneStack } = await import("./stacks/compute");
    return computePlaneStack(cfg);
  }
  const { controlPlaneStack } = await import("./stacks/control");
  return controlPlaneStack(cfg);
};
