// An outlying seed among the per-seed differences (docs/method.md section 5.8): a robust z-score against the median.

/** The cutoff of the modified z-score (Iglewicz and Hoaglin 1993). */
export const OUTLIER_CUTOFF = 3.5;

/** A seed whose difference lies far from the others'. */
export interface OutlyingSeed {
  /** Its index among the replicates. */
  readonly index: number;
  /** Its per-seed difference. */
  readonly estimate: number;
  /** |d_s - median| / scale: the modified z-score. */
  readonly score: number;
}

function median(x: readonly number[]): number {
  const s = [...x].sort((a, b) => a - b);
  const h = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[h] as number) : ((s[h - 1] as number) + (s[h] as number)) / 2;
}

/**
 * The seeds whose difference d_s is an outlier by the modified z-score (Iglewicz and Hoaglin 1993, "How to detect and
 * handle outliers"): |d_s - median| / (1.4826 MAD) > 3.5, MAD = median |d_s - median|. When MAD = 0 (half or more of
 * the seeds tie, common at small S) the scale is 1.2533 times the mean absolute deviation from the median (the same
 * normal-consistent scale, IBM SPSS's rule); when that is 0 too, every seed is at the median and none is flagged.
 * Fewer than 3 seeds: never (with 2, each is as far from the median as the other).
 *
 * @param d - the per-seed differences.
 * @returns the outlying seeds, in order.
 * @example
 * ```ts
 * import { outlyingSeeds } from 'rl-advantages/stats';
 * console.log(outlyingSeeds([0.01, 0.02, 0.015, -0.14, 0.012]).map((o) => o.index)); // [3]
 * ```
 */
export function outlyingSeeds(d: readonly number[]): OutlyingSeed[] {
  if (d.length < 3) return [];
  const m = median(d);
  const dev = d.map((x) => Math.abs(x - m));
  const mad = median(dev);
  const scale = mad > 0 ? 1.4826 * mad : (1.2533 * dev.reduce((a, x) => a + x, 0)) / d.length;
  if (!(scale > 0)) return [];
  return d.flatMap((x, index) => {
    const score = Math.abs(x - m) / scale;
    return score > OUTLIER_CUTOFF ? [{ index, estimate: x, score }] : [];
  });
}
