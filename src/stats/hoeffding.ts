// The paired Hoeffding interval, the spec's decision method (docs/method.md section 5.2).
import { toFiniteFloat64 } from '../internal/validate.js';
import { checkHalfWidthParameters, checkRange, summarizeDifferences } from './checks.js';
import type { PairedInterval, PairedIntervalOptions } from './interval.js';

/**
 * Half-width of the two-sided Hoeffding interval for the mean of n independent values that each lie in a range of
 * width R, with Bonferroni over k simultaneous intervals:
 *
 *   h = R * sqrt(ln(2k / alpha) / (2n))
 *
 * Reference: docs/method.md section 5.2; Hoeffding (1963), https://doi.org/10.1080/01621459.1963.10500830.
 *
 * @param options.n - number of paired items, an integer >= 1.
 * @param options.alpha - family-wise error rate in (0, 1).
 * @param options.range - R, the width of the range each value lies in (> 0).
 * @param options.comparisons - k, the number of simultaneous intervals (default 1).
 * @throws {RlAdvantagesError} `bad_integer` for n or comparisons, `bad_alpha`, `bad_range`.
 * @example
 * ```ts
 * import { hoeffdingHalfWidth } from 'rl-advantages/stats';
 * // The study's figures: n = 1319, alpha = 0.05, R = 2, k = 1.
 * console.log(hoeffdingHalfWidth({ n: 1319, alpha: 0.05, range: 2 }).toFixed(4)); // "0.0748"
 * ```
 */
export function hoeffdingHalfWidth(options: { n: number; alpha: number; range: number; comparisons?: number }): number {
  const { n, alpha, range, k } = checkHalfWidthParameters(options);
  return range * Math.sqrt(Math.log((2 * k) / alpha) / (2 * n));
}

/** A paired Hoeffding interval for the mean difference: halfWidth is R * sqrt(ln(2k / alpha) / (2n)). */
export type HoeffdingInterval = PairedInterval;

/**
 * The paired Hoeffding interval: given per-item paired differences d_i (each in a range of width R),
 *
 *   mean(d) +- R * sqrt(ln(2k / alpha) / (2n))
 *
 * holds with probability >= 1 - alpha / k for the expected difference (two-sided). With k intervals each at
 * alpha / k the family holds simultaneously with probability >= 1 - alpha (Bonferroni).
 *
 * Reference: docs/method.md section 5.2; Hoeffding (1963), https://doi.org/10.1080/01621459.1963.10500830.
 *
 * @param options.differences - d_1..d_n, finite numbers (array, typed array or 1-D ndarray).
 * @param options.range - R; the observed spread max(d) - min(d) must not exceed it.
 * @param options.alpha - family-wise error rate in (0, 1).
 * @param options.comparisons - k, the number of simultaneous intervals (default 1).
 * @throws {RlAdvantagesError} `non_finite` for a bad difference (names its index), `empty` when there is none,
 *   `out_of_range` when the differences spread wider than R, and the errors of {@link hoeffdingHalfWidth}.
 * @example
 * ```ts
 * import { pairedHoeffding } from 'rl-advantages/stats';
 * const iv = pairedHoeffding({ differences: [1, 0, 0, -1, 1, 1, 0, 0], range: 2, alpha: 0.05 });
 * console.log(iv.estimate, iv.lower < iv.estimate && iv.estimate < iv.upper); // 0.25 true
 * ```
 */
export function pairedHoeffding(options: PairedIntervalOptions): HoeffdingInterval {
  const d = toFiniteFloat64('differences', options.differences);
  const range = checkRange('range', options.range);
  const { sum } = summarizeDifferences(d, range, 'Hoeffding');
  const n = d.length;
  const estimate = sum / n;
  const halfWidth = hoeffdingHalfWidth({ n, alpha: options.alpha, range, comparisons: options.comparisons ?? 1 });
  return { n, estimate, halfWidth, lower: estimate - halfWidth, upper: estimate + halfWidth };
}

