// An outlying seed among the per-seed differences (docs/method.md section 5.8): a leave-one-out prediction t test with
// Bonferroni over the seeds, so that normal run effects flag any seed with probability at most 1%.
import { studentTUpperQuantile } from '../internal/student-t.js';

/** The family-wise false-alarm rate of the outlier flag under normal per-seed differences. */
export const OUTLIER_FALSE_ALARM = 0.01;

/** A seed whose difference lies far from the others'. */
export interface OutlyingSeed {
  /** Its index among the replicates. */
  readonly index: number;
  /** Its per-seed difference. */
  readonly estimate: number;
  /** |d_s - mean of the others| / (sd of the others sqrt(1 + 1/(S-1))), the sd floored at `noiseSd`. */
  readonly score: number;
  /** The score's cutoff, t_{S-2} at OUTLIER_FALSE_ALARM / (2S). */
  readonly cutoff: number;
}

/**
 * The seeds whose difference d_s is an outlier among the S seeds' (docs/method.md section 5.8): for each s, the others'
 * mean m and sample SD sd (S - 1 values) predict a new value with d_s - m ~ sd sqrt(1 + 1/(S - 1)) t_{S-2} under
 * normal per-seed differences, so s is flagged when |d_s - m| / (max(sd, noiseSd) sqrt(1 + 1/(S - 1))) exceeds
 * t_{S-2, 0.01/(2S)} (Bonferroni over the S seeds: P(any flag) <= 0.01 for normal differences; the floor `noiseSd`,
 * the SD a per-seed mean has from the run-by-item noise alone, sqrt(MS_error / n), only lowers it). Leaving s out keeps a
 * collapsed run from inflating its own yardstick. Fewer than 3 seeds: never (t needs S - 2 >= 1 df). A median/MAD rule
 * (|d_s - median| / (1.4826 MAD) > 3.5) was measured first and rejected: it flags 29%, 20%, 13% of normal samples at
 * S = 3, 5, 10.
 *
 * @param d - the per-seed differences.
 * @param noiseSd - the floor of the others' SD (default 0).
 * @returns the outlying seeds, in order.
 * @example
 * ```ts
 * import { outlyingSeeds } from 'rl-advantages/stats';
 * console.log(outlyingSeeds([0.01, 0.02, 0.015, -0.14, 0.012]).map((o) => o.index)); // [3]
 * ```
 */
export function outlyingSeeds(d: readonly number[], noiseSd = 0): OutlyingSeed[] {
  const S = d.length;
  if (S < 3) return [];
  const cutoff = studentTUpperQuantile(OUTLIER_FALSE_ALARM / (2 * S), S - 2);
  return d.flatMap((x, index) => {
    const others = d.filter((_, j) => j !== index);
    const m = others.reduce((a, v) => a + v, 0) / (S - 1);
    const sd = Math.sqrt(others.reduce((a, v) => a + (v - m) ** 2, 0) / (S - 2));
    const scale = Math.max(sd, noiseSd) * Math.sqrt(1 + 1 / (S - 1));
    // Every other seed equal and no noise floor: nothing to measure a distance against.
    if (!(scale > 0)) return [];
    const score = Math.abs(x - m) / scale;
    return score > cutoff ? [{ index, estimate: x, score, cutoff }] : [];
  });
}
