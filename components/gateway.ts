/**
 * `NvcfGateway`: the Gateway API side of the control plane (docs/upstream-facts.md §1.12).
 * Either installs Envoy Gateway, the GatewayClass and a Gateway with the four listeners (opt-in), or
 * checks that the user's own Gateways have the listeners the enabled routes need. Either way it labels
 * the gateway namespace with `nvcf/platform=true` and exposes the address clients dial.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import type { ControlPlaneConfig } from "../config/schema";
import { envoyGatewayValues, envoyProxyKubernetes } from "../values/control";
import { GATEWAY_LISTENERS, type GatewayObject, missingListeners, requiredListeners } from "../config/routes";
import { NvcfRelease, type ChartSource, type ReleaseWatch } from "./release";

export interface NvcfGatewayArgs {
  config: ControlPlaneConfig;
  source: ChartSource;
  /** Namespace resources owned by the control plane (for install mode). */
  namespace: (name: string) => pulumi.Input<string>;
  /** Import id (`namespace/name`) of the Envoy Gateway release when recovery found it deployed but not in the state. */
  adopt?: string;
  /** The server-side dry run that follows Envoy Gateway's release (components/release.ts `ReleaseWatch`). */
  watch?: ReleaseWatch;
}

/** Helm release name of Envoy Gateway in install mode (`gateway.install`). */
export const ENVOY_GATEWAY_RELEASE = "eg";

/**
 * Outputs: `address` (the first Gateway status address, or `nvcf:gateway.address`; "" while none is
 * reported), `ready` (a value to depend on before routes are installed).
 * Errors: in bring-your-own mode, fails the preview when a Gateway or listener is missing, listing each.
 */
export class NvcfGateway extends pulumi.ComponentResource {
  readonly address: pulumi.Output<string>;
  readonly dependencies: pulumi.Resource[] = [];
  /** Helm releases this component installed (Envoy Gateway in install mode). */
  readonly releases: NvcfRelease[] = [];

  constructor(name: string, args: NvcfGatewayArgs, opts?: pulumi.ComponentResourceOptions) {
    super("nvcf:index:Gateway", name, {}, opts);
    const cfg = args.config;
    const g = cfg.gateway;
    let status: pulumi.Output<GatewayObject["status"]>;
    if (g.install) {
      const eg = new NvcfRelease(
        `${name}-envoy-gateway`,
        {
          releaseName: ENVOY_GATEWAY_RELEASE,
          chart: "gateway-helm",
          version: g.envoyGateway.version,
          namespace: args.namespace(g.controllerNamespace),
          // Pull secret and, with images.thirdParty: mirror, the mirrored images (values/control.ts).
          values: envoyGatewayValues(cfg),
          // Envoy Gateway's chart comes from its own origin (catalog/sources.ts); the first-class
          // gateway.envoyGateway.{localChartPath,registry,repository} keys point that origin elsewhere,
          // and an explicit charts.mirrors.envoyGateway wins over them.
          source: {
            config: {
              ...args.source.config,
              mirrors: {
                envoyGateway: g.envoyGateway.localChartPath
                  ? { location: g.envoyGateway.localChartPath, credentials: "none" }
                  : {
                      location: `oci://${g.envoyGateway.registry}/${g.envoyGateway.repository}`,
                      credentials: "none",
                    },
                ...args.source.config.mirrors,
              },
            },
            password: args.source.password,
          },
          timeoutSeconds: cfg.charts.timeoutSeconds,
          adopt: args.adopt,
          watch: args.watch,
        },
        { parent: this },
      );
      this.releases.push(eg);
      const proxy = new k8s.apiextensions.CustomResource(
        `${name}-envoyproxy`,
        {
          apiVersion: "gateway.envoyproxy.io/v1alpha1",
          kind: "EnvoyProxy",
          metadata: {
            name: g.envoyGateway.gatewayClassName,
            namespace: args.namespace(g.controllerNamespace),
          },
          spec: { provider: { type: "Kubernetes", kubernetes: envoyProxyKubernetes(cfg) } },
        },
        { parent: this, dependsOn: [eg] },
      );
      const cls = new k8s.apiextensions.CustomResource(
        `${name}-class`,
        {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "GatewayClass",
          metadata: { name: g.envoyGateway.gatewayClassName },
          spec: {
            controllerName: "gateway.envoyproxy.io/gatewayclass-controller",
            parametersRef: {
              group: "gateway.envoyproxy.io",
              kind: "EnvoyProxy",
              name: proxy.metadata.name,
              namespace: proxy.metadata.namespace,
            },
          },
        },
        { parent: this },
      );
      const allowed = {
        namespaces: { from: "Selector", selector: { matchLabels: { "nvcf/platform": "true" } } },
      };
      const gw = new k8s.apiextensions.CustomResource(
        `${name}-gateway`,
        {
          apiVersion: "gateway.networking.k8s.io/v1",
          kind: "Gateway",
          metadata: {
            name: g.shared.name,
            namespace: args.namespace(g.shared.namespace),
            annotations: { "pulumi.com/waitFor": "condition=Programmed" },
          },
          spec: {
            gatewayClassName: cls.metadata.name,
            listeners: GATEWAY_LISTENERS.map((l) => ({
              name: l.name,
              protocol: l.protocol,
              port: l.port,
              allowedRoutes: allowed,
            })),
          },
        },
        { parent: this },
      );
      this.dependencies.push(gw);
      status = (gw as unknown as { status: pulumi.Output<GatewayObject["status"]> }).status;
    } else {
      const refs = new Map<string, { name: string; namespace: string }>();
      for (const need of requiredListeners(cfg)) {
        const r = need.gateway === "nats" ? cfg.gateway.nats : cfg.gateway[need.gateway];
        refs.set(`${r.namespace}/${r.name}`, { name: r.name, namespace: r.namespace });
      }
      const read: Record<string, pulumi.Output<GatewayObject>> = {};
      for (const [id, r] of refs) {
        // Constructed with an id: a read of the live object; spec and status are declared so they come back.
        const res = new k8s.apiextensions.CustomResource(
          `${name}-${r.namespace}-${r.name}`,
          {
            apiVersion: "gateway.networking.k8s.io/v1",
            kind: "Gateway",
            metadata: { name: r.name, namespace: r.namespace },
            spec: undefined,
            status: undefined,
          },
          { parent: this, id },
        ) as unknown as {
          spec: pulumi.Output<GatewayObject["spec"]>;
          status: pulumi.Output<GatewayObject["status"]>;
        };
        read[id] = pulumi.all([res.spec, res.status]).apply(([spec, st]) => ({ spec, status: st }));
      }
      const checked = pulumi.all(read).apply((gws) => {
        const problems = missingListeners(cfg, gws);
        if (problems.length > 0) {
          throw new pulumi.ResourceError(
            `the Gateway the routes attach to lacks what they need:\n  - ${problems.join("\n  - ")}\n` +
              `Add the listeners (spec: http 80, tcp 10081, nats 4222, worker-tcp 10086) or set nvcf:gateway.install true.`,
            this,
          );
        }
        return gws;
      });
      status = checked.apply((gws) => gws[`${g.shared.namespace}/${g.shared.name}`]?.status);
      // The routes' namespaces are ours and labelled at creation; the user's gateway namespace gets the label by patch.
      this.dependencies.push(
        new k8s.core.v1.NamespacePatch(
          `${name}-label-${g.shared.namespace}`,
          { metadata: { name: g.shared.namespace, labels: { "nvcf/platform": "true" } } },
          { parent: this },
        ),
      );
    }
    this.address = pulumi.output(status).apply((st) => g.address ?? st?.addresses?.[0]?.value ?? "");
    this.registerOutputs({ address: this.address });
  }
}
