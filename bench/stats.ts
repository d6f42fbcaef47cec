// Small numeric helpers.

/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

export interface Spread {
  p50: number;
  p99: number;
  max: number;
  count: number;
}

/** p50 / p99 / max of unsorted samples (NaN when empty). */
export function spread(samples: ArrayLike<number>): Spread {
  const sorted = Float64Array.from(samples).sort();
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    max: sorted.length === 0 ? Number.NaN : (sorted[sorted.length - 1] ?? Number.NaN),
    count: sorted.length,
  };
}
