/** Types of tests/bin/gateway-status.js (the stand-in gateway controller's pure status logic), for its unit tests. */

/** A Kubernetes object as the API server returns it (only what the status logic reads). */
export interface GwObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    generation?: number;
    resourceVersion?: string;
    deletionTimestamp?: string;
    labels?: Record<string, string>;
  };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  spec?: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status?: any;
}

/** What `reconcile` reads: see its docstring in gateway-status.js. */
export interface Snapshot {
  controllerName: string;
  addresses?: { type: string; value: string }[];
  now: string;
  bundleVersions?: Record<string, string>;
  gatewayClasses?: GwObject[];
  gateways?: GwObject[];
  routes?: Partial<Record<"HTTPRoute" | "GRPCRoute" | "TCPRoute" | "TLSRoute" | "UDPRoute", GwObject[]>>;
  namespaces?: GwObject[];
  services?: Set<string>;
  secrets?: Set<string>;
  referenceGrants?: GwObject[];
}

/** One status subresource to write. */
export interface StatusWrite {
  kind: string;
  group: string;
  version: string;
  plural: string;
  namespace?: string;
  name: string;
  resourceVersion?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  status: any;
  summary: string;
}

export const GROUP: string;
export const ROUTE_KINDS: Record<string, { version: string; plural: string; hostnames: boolean }>;
export const SUPPORTED_BUNDLE_VERSIONS: string[];
export function canonical(v: unknown): string;
export function hostnamesIntersect(a: string, b: string): boolean;
export function listenerKinds(listener: unknown): { kinds: { group: string; kind: string }[]; invalid: string[] };
export function selects(selector: unknown, labels: Record<string, string> | undefined): boolean;
export function reconcile(snap: Snapshot): StatusWrite[];
