/**
 * A bounded worker pool, dependency-free: the requests of the server-side dry run (kube/dryRun.ts), the Automation
 * API plumbing (cli/automation.ts) and the preflight checks (cli/preflight/*) use it without loading each other's
 * modules.
 */

/**
 * Runs `fn` over `items` with at most `limit` running at once; resolves to the results in the order of
 * `items` (each call's rejection is its own: use functions that do not throw, as `runOperation`).
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
