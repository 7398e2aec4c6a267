/**
 * AWS pieces of the production-shaped example: reach an EKS cluster and publish the route
 * hostnames in Route 53. Imported dynamically, only when `nvcf:aws` asks for them.
 */
import * as aws from "@pulumi/aws";
import * as pulumi from "@pulumi/pulumi";

/**
 * A kubeconfig (secret YAML text) for an EKS cluster, built from its endpoint, CA and a short-lived token
 * of `aws.eks.getClusterAuth`. Input: region and cluster name.
 */
export function eksKubeconfig(region: string, clusterName: string): pulumi.Output<string> {
  const opts = { provider: new aws.Provider("eks-lookup", { region }) };
  const cluster = aws.eks.getClusterOutput({ name: clusterName }, opts);
  const auth = aws.eks.getClusterAuthOutput({ name: clusterName }, opts);
  return pulumi.secret(
    pulumi
      .all([cluster.endpoint, cluster.certificateAuthorities, auth.token])
      .apply(([endpoint, cas, token]) =>
        JSON.stringify({
          apiVersion: "v1",
          kind: "Config",
          clusters: [
            { name: clusterName, cluster: { server: endpoint, "certificate-authority-data": cas[0].data } },
          ],
          users: [{ name: clusterName, user: { token } }],
          contexts: [{ name: clusterName, context: { cluster: clusterName, user: clusterName } }],
          "current-context": clusterName,
        }),
      ),
  );
}

/**
 * One CNAME (hostname address) or A record (IP address) per route hostname pointing at the gateway.
 * Input: region, hosted zone id, hostnames, the gateway address. Output: the records.
 */
export function dnsRecords(
  region: string,
  zoneId: string,
  hostnames: string[],
  address: pulumi.Output<string>,
): aws.route53.Record[] {
  const provider = new aws.Provider("dns", { region });
  const isIp = address.apply((a) => /^[0-9.]+$/.test(a));
  return hostnames.map(
    (h) =>
      new aws.route53.Record(
        `dns-${h}`,
        { zoneId, name: h, type: isIp.apply((ip) => (ip ? "A" : "CNAME")), ttl: 300, records: [address] },
        { provider },
      ),
  );
}
