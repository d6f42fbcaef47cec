// How long the servers' write transactions held the write lock: `leasehold_write_lock_held_seconds{form}`
// and `leasehold_write_lock_writes_total{form}` scraped from every instance's /metrics and added up, with
// p50 and p99 read from the histogram's buckets (linear within a bucket, so each is known to a bucket's width).

export interface LockHolds {
  /** `statement` (a batch of review writes as one call, PostgreSQL) or `transaction` (interactive). */
  form: string;
  /** Write transactions (group-commit batches). */
  holds: number;
  /** Writes (group-commit jobs) they held it for. */
  writes: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

const SAMPLE = /^(leasehold_write_lock_(?:held_seconds_bucket|held_seconds_sum|held_seconds_count|writes_total))\{([^}]*)\}\s+(\S+)$/;

/** Every form's holds since the instances started, added up over `ports`. */
export async function scrapeLockHolds(ports: readonly number[], authorization: string): Promise<LockHolds[]> {
  const buckets = new Map<string, Map<number, number>>();
  const sums = new Map<string, number>();
  const counts = new Map<string, number>();
  const writes = new Map<string, number>();
  const add = (map: Map<string, number>, form: string, value: number) => map.set(form, (map.get(form) ?? 0) + value);
  for (const port of ports) {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { headers: { authorization } });
    if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
    for (const line of (await response.text()).split('\n')) {
      const match = SAMPLE.exec(line);
      if (!match) continue;
      const [, name, labels = '', raw] = match;
      const form = /form="([^"]+)"/.exec(labels)?.[1] ?? '';
      const value = Number(raw);
      if (name === 'leasehold_write_lock_held_seconds_bucket') {
        const le = /le="([^"]+)"/.exec(labels)?.[1] ?? '+Inf';
        const bound = le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le);
        const byBound = buckets.get(form) ?? new Map<number, number>();
        byBound.set(bound, (byBound.get(bound) ?? 0) + value);
        buckets.set(form, byBound);
      } else if (name === 'leasehold_write_lock_held_seconds_sum') add(sums, form, value);
      else if (name === 'leasehold_write_lock_held_seconds_count') add(counts, form, value);
      else add(writes, form, value);
    }
  }
  return [...counts.entries()]
    .filter(([, holds]) => holds > 0)
    .map(([form, holds]) => {
      const cumulative = [...(buckets.get(form) ?? new Map<number, number>()).entries()].sort((a, b) => a[0] - b[0]);
      return {
        form,
        holds,
        writes: writes.get(form) ?? 0,
        meanMs: ((sums.get(form) ?? 0) / holds) * 1000,
        p50Ms: quantile(cumulative, holds, 0.5) * 1000,
        p99Ms: quantile(cumulative, holds, 0.99) * 1000,
      };
    });
}

/** The q-quantile of a cumulative histogram, linear within its bucket (the last finite bound for the +Inf bucket). */
function quantile(cumulative: readonly [number, number][], total: number, q: number): number {
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const [bound, count] of cumulative) {
    if (count >= rank) {
      if (!Number.isFinite(bound)) return lower;
      const inBucket = count - below;
      return inBucket === 0 ? bound : lower + ((bound - lower) * (rank - below)) / inBucket;
    }
    if (Number.isFinite(bound)) lower = bound;
    below = count;
  }
  return lower;
}
