/**
 * Entry point: validates this stack's config (every problem at once, before any resource is registered or a
 * kubeconfig is read), then runs the control-plane or the compute-plane stack program chosen by `nvcf:plane`.
 * An invalid config ends the run with `ConfigError` (a Pulumi RunError), which `pulumi preview` and
 * `pulumi up` print as the plain list of problems and nothing else (config/problems.ts). Each program is
 * loaded only when used, so a stack does not pay for the other's modules; under `pulumi preview`/`up` the
 * project's modules load through the transpile cache of stacks/loader.ts (docs/performance.md).
 */
import { installFastLoader } from "./stacks/loader";

installFastLoader();

export = async () => {
  const { loadConfig } = await import("./config/load");
  const cfg = loadConfig();
  if (cfg.plane === "compute") {
    const { computePlaneStack } = await import("./stacks/compute");
    return computePlaneStack(cfg);
  }
  const { controlPlaneStack } = await import("./stacks/control");
  return controlPlaneStack(cfg);
};
