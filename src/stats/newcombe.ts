// Newcombe's method 10 for a paired difference of 0/1 outcomes: Wilson score intervals for the two marginal
// proportions combined with the phi correlation (docs/method.md section 5.4.3). ASYMPTOTIC.
import { RlAdvantagesError } from '../errors.js';
import { normalUpperQuantile } from '../internal/normal.js';
import { checkPositiveInteger } from '../internal/validate.js';
import { checkAlpha } from './checks.js';
import { checkCounts, countDiscordant, type DiscordantCounts } from './exact-binomial.js';
import type { PairedInterval, PairedIntervalOptions } from './interval.js';

/**
 * Wilson's score interval for x successes of n at the normal quantile z (Wilson 1927):
 * (2x + z^2 -+ z sqrt(z^2 + 4 x (n - x) / n)) / (2 (n + z^2)), exactly 0 at x = 0 and 1 at x = n.
 */
export function wilsonInterval(x: number, n: number, z: number): [number, number] {
  const z2 = z * z;
  const centre = 2 * x + z2;
  const spread = z * Math.sqrt(z2 + (4 * x * (n - x)) / n);
  const denominator = 2 * (n + z2);
  return [x === 0 ? 0 : (centre - spread) / denominator, x === n ? 1 : (centre + spread) / denominator];
}

/**
 * Newcombe's phi for method 10: (a d - b c) / sqrt((a + b)(c + d)(a + c)(b + d)) with the numerator A = a d - b c
 * replaced by A - n/2 when A > n/2 and by 0 when 0 <= A <= n/2 (the correction of the paper's method 10; kept
 * when A < 0), and phi = 0 when a margin is 0.
 */
export function newcombePhi(a: number, b: number, c: number, d: number): number {
  const product = (a + b) * (c + d) * (a + c) * (b + d);
  if (product === 0) return 0;
  const n = a + b + c + d;
  const A = a * d - b * c;
  const numerator = A > n / 2 ? A - n / 2 : A >= 0 ? 0 : A;
  return numerator / Math.sqrt(product);
}

/** The 2x2 counts of a paired 0/1 comparison: n11 both right, n10 = b, n01 = c, the rest both wrong. */
export interface PairedTableCounts extends DiscordantCounts {
  /** Items where both arms' outcome is 1. */
  readonly n11: number;
}

/**
 * The counts checked for Newcombe's method: those of {@link checkCounts} and n11, required, an integer >= 0 with
 * n11 + n10 + n01 <= n.
 *
 * @throws {RlAdvantagesError} `missing_count` when n11 is not given (the method needs the concordant split),
 *   `bad_integer`, `bad_counts`.
 */
export function checkTableCounts(options: DiscordantCounts, method = 'paired_newcombe'): PairedTableCounts {
  const counts = checkCounts(options);
  if (options.n11 === undefined) {
    throw new RlAdvantagesError(
      `n11 (the items where both arms' outcome is 1) is required by ${method}: its interval depends on how the concordant items split between both-right and both-wrong`,
      { code: 'missing_count', field: 'n11' },
    );
  }
  const n11 = checkPositiveInteger('n11', options.n11, 0);
  if (n11 + counts.n10 + counts.n01 > counts.n) {
    throw new RlAdvantagesError(`n11 + n10 + n01 = ${n11 + counts.n10 + counts.n01} exceeds n = ${counts.n}: the four cells of the 2x2 table add up to n`, {
      code: 'bad_counts',
      field: 'n11',
    });
  }
  return { ...counts, n11 };
}

/**
 * The ends of Newcombe's method-10 interval from the 2x2 counts (a, b, c, d = n - a - b - c) and the Wilson
 * intervals of the two margins (already at the quantile z), without checks: what power and coverage sum over.
 */
export function newcombeEnds(a: number, b: number, c: number, n: number, w1: readonly [number, number], w2: readonly [number, number]): [number, number] {
  const p1 = (a + b) / n;
  const p2 = (a + c) / n;
  const estimate = (b - c) / n;
  const phi = newcombePhi(a, b, c, n - a - b - c);
  const dl1 = p1 - w1[0];
  const du1 = w1[1] - p1;
  const dl2 = p2 - w2[0];
  const du2 = w2[1] - p2;
  const lower = estimate - Math.sqrt(Math.max(0, dl1 * dl1 - 2 * phi * dl1 * du2 + du2 * du2));
  const upper = estimate + Math.sqrt(Math.max(0, du1 * du1 - 2 * phi * du1 * dl2 + dl2 * dl2));
  return [lower, upper];
}

/**
 * Newcombe's method-10 interval for E[d] = p1 - p2 from the 2x2 counts: a = n11 (both 1), b = n10, c = n01,
 * d = n - a - b - c; p1 = (a + b)/n, p2 = (a + c)/n; Wilson intervals (l1, u1), (l2, u2) at z, the 1 - alpha/(2k)
 * normal quantile; phi = (a d - b c) / sqrt((a + b)(c + d)(a + c)(b + d)) with the method-10 correction of its
 * numerator (docs/method.md section 5.4.3); then
 *
 *   lower = (b - c)/n - sqrt((p1 - l1)^2 - 2 phi (p1 - l1)(u2 - p2) + (u2 - p2)^2),
 *   upper = (b - c)/n + sqrt((u1 - p1)^2 - 2 phi (u1 - p1)(p2 - l2) + (p2 - l2)^2).
 *
 * ASYMPTOTIC: its coverage is not guaranteed (docs/method.md section 5.7 gives the lowest measured).
 *
 * Reference: docs/method.md section 5.4.3; Newcombe (1998), "Improved confidence intervals for the difference
 * between binomial proportions based on paired data", Statistics in Medicine 17:2635-2650, method 10,
 * https://doi.org/10.1002/(SICI)1097-0258(19981130)17:22%3C2635::AID-SIM954%3E3.0.CO;2-C
 *
 * @throws {RlAdvantagesError} `missing_count` (n11 not given), `bad_integer`, `bad_counts`, `bad_alpha`.
 * @example
 * ```ts
 * import { newcombeInterval } from 'rl-advantages/stats';
 * // The paper's Table II example: a = 36, b = 12, c = 2, d = 0.
 * const iv = newcombeInterval({ n11: 36, n10: 12, n01: 2, n: 50, alpha: 0.05 });
 * console.log(iv.lower.toFixed(4), iv.upper.toFixed(4)); // "0.0569" "0.3404"
 * ```
 */
export function newcombeInterval(options: DiscordantCounts & { alpha: number; comparisons?: number }): PairedInterval {
  const { n11: a, n10: b, n01: c, n } = checkTableCounts(options);
  const alpha = checkAlpha('alpha', options.alpha);
  const k = checkPositiveInteger('comparisons', options.comparisons ?? 1);
  const z = normalUpperQuantile(alpha / (2 * k));
  const [lower, upper] = newcombeEnds(a, b, c, n, wilsonInterval(a + b, n, z), wilsonInterval(a + c, n, z));
  return { n, estimate: (b - c) / n, halfWidth: (upper - lower) / 2, lower, upper };
}

/**
 * Newcombe's method-10 interval from per-item differences of 0/1 outcomes (d_i in {-1, 0, +1}) and `n11`, the
 * items where both outcomes are 1 (the differences cannot tell both-right from both-wrong); `range` is accepted
 * for a common signature and not used. ASYMPTOTIC (docs/method.md section 5.4.3).
 *
 * @throws {RlAdvantagesError} `not_binary`, `non_finite`, `empty`, `missing_count` (no `n11`), and the errors of
 *   {@link newcombeInterval}.
 * @example
 * ```ts
 * import { pairedNewcombe } from 'rl-advantages/stats';
 * const iv = pairedNewcombe({ differences: [1, 0, 0, -1, 1, 1, 0, 0], n11: 3, range: 2, alpha: 0.05 });
 * console.log(iv.estimate); // 0.25
 * ```
 */
export function pairedNewcombe(options: PairedIntervalOptions): PairedInterval {
  const counts = countDiscordant(options.differences, 'paired_newcombe');
  return newcombeInterval({ ...counts, ...(options.n11 === undefined ? {} : { n11: options.n11 }), alpha: options.alpha, comparisons: options.comparisons ?? 1 });
}
