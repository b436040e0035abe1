// Tango's score statistic for a paired difference of 0/1 outcomes and its asymptotic interval
// (docs/method.md section 5.4.2).
import { normalUpperQuantile } from '../internal/normal.js';
import { checkCounts, countDiscordant, type DiscordantCounts } from './exact-binomial.js';
import { checkAlpha } from './checks.js';
import { checkPositiveInteger } from '../internal/validate.js';
import type { PairedInterval, PairedIntervalOptions } from './interval.js';

/**
 * The maximum-likelihood P(d = -1) under E[d] = delta0, given n10 = b and n01 = c of n pairs: the root of
 * 2n x^2 + (-b - c + (2n - b + c) delta0) x - c delta0 (1 - delta0) = 0 that Tango (1998) takes, evaluated without
 * cancellation and kept in [max(0, -delta0), (1 - delta0) / 2].
 */
export function tangoNullP21(b: number, c: number, n: number, delta0: number): number {
  const A = 2 * n;
  const B = -b - c + (2 * n - b + c) * delta0;
  const C = -c * delta0 * (1 - delta0);
  const s = Math.sqrt(Math.max(0, B * B - 4 * A * C));
  let x: number;
  if (B <= 0) x = (-B + s) / (2 * A);
  else x = B + s > 0 ? (-2 * C) / (B + s) : 0;
  return Math.min((1 - delta0) / 2, Math.max(Math.max(0, -delta0), x));
}

/**
 * Tango's score statistic for H0: E[d] = delta0 (Tango 1998, Stat Med 17:891-908, eq. 4):
 * Z = (b - c - n delta0) / sqrt(n (2 p21 + delta0 (1 - delta0))), p21 = {@link tangoNullP21}. 0 when numerator
 * and denominator are both 0 (b = c = 0 at delta0 = 0); +-Infinity when only the denominator is.
 */
export function tangoScore(b: number, c: number, n: number, delta0: number): number {
  const num = b - c - n * delta0;
  const variance = n * (2 * tangoNullP21(b, c, n, delta0) + delta0 * (1 - delta0));
  if (!(variance > 0)) return num === 0 ? 0 : num > 0 ? Infinity : -Infinity;
  return num / Math.sqrt(variance);
}

/**
 * The delta0 in [lo, hi] where the decreasing function f crosses 0, by bisection until the bracket is narrower
 * than `tolerance` (default 1e-13) or float64 resolution.
 */
export function bisectDecreasing(f: (x: number) => number, lo: number, hi: number, tolerance = 1e-13): number {
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (mid <= lo || mid >= hi || hi - lo < tolerance) break;
    if (f(mid) > 0) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Tango's asymptotic score interval for E[d] = P(d = +1) - P(d = -1) from the discordant counts: the delta0 with
 * |Z(delta0)| <= z, z the 1 - alpha/(2k) normal quantile (Z decreases in delta0, so each end is one bisection).
 * ASYMPTOTIC: its coverage is not guaranteed (docs/method.md section 5.7 gives the lowest measured).
 *
 * Reference: Tango (1998), "Equivalence test and confidence interval for the difference in proportions for the
 * paired-sample design", Statistics in Medicine 17:891-908, https://doi.org/10.1002/(SICI)1097-0258(19980430)17:8%3C891::AID-SIM780%3E3.0.CO;2-B
 *
 * @throws {RlAdvantagesError} `bad_integer`, `bad_counts`, `bad_alpha` as {@link exactBinomialInterval}.
 * @example
 * ```ts
 * import { tangoInterval } from 'rl-advantages';
 * const iv = tangoInterval({ n10: 132, n01: 132, n: 1319, alpha: 0.05 });
 * console.log(iv.halfWidth.toFixed(4)); // "0.0242"
 * ```
 */
export function tangoInterval(options: DiscordantCounts & { alpha: number; comparisons?: number }): PairedInterval {
  const { n10: b, n01: c, n } = checkCounts(options);
  const alpha = checkAlpha('alpha', options.alpha);
  const k = checkPositiveInteger('comparisons', options.comparisons ?? 1);
  const z = normalUpperQuantile(alpha / (2 * k));
  const est = (b - c) / n;
  // Z(-1) = +Infinity unless c = n (then the lower end is -1), Z(1) = -Infinity unless b = n.
  const lower = c === n ? -1 : bisectDecreasing((d) => tangoScore(b, c, n, d) - z, -1, est);
  const upper = b === n ? 1 : bisectDecreasing((d) => tangoScore(b, c, n, d) + z, est, 1);
  return { n, estimate: est, halfWidth: (upper - lower) / 2, lower, upper };
}

/**
 * Tango's interval's verdicts at a margin, as regions (see {@link VerdictThresholds}): lower > margin iff
 * Z_margin > z and upper < margin iff Z_margin < -z, z the 1 - alpha/(2k) normal quantile (Z decreases in delta0).
 */
export function tangoThresholds(n: number, alpha: number, k: number, margin: number): { validFrom: Int32Array; failTo: Int32Array } {
  const z = normalUpperQuantile(alpha / (2 * k));
  const validFrom = new Int32Array(n + 1);
  const failTo = new Int32Array(n + 1);
  const score = (b: number, m: number): number => (margin <= -1 ? (m === n && b === 0 ? -Infinity : Infinity) : margin >= 1 ? (m === n && b === n ? Infinity : -Infinity) : tangoScore(b, m - b, n, margin));
  for (let m = 0; m <= n; m++) {
    let lo = 0;
    let hi = m + 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (score(mid, m) > z) hi = mid;
      else lo = mid + 1;
    }
    validFrom[m] = lo;
    lo = -1;
    hi = m;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (score(mid, m) < -z) lo = mid;
      else hi = mid - 1;
    }
    failTo[m] = lo;
  }
  return { validFrom, failTo };
}

/**
 * Tango's asymptotic interval from per-item differences of 0/1 outcomes (d_i in {-1, 0, +1}); `range` is accepted
 * for a common signature and not used. ASYMPTOTIC (docs/method.md section 5.4.2).
 *
 * @throws {RlAdvantagesError} `not_binary`, `non_finite`, `empty`, and the errors of {@link tangoInterval}.
 * @example
 * ```ts
 * import { pairedTango } from 'rl-advantages';
 * console.log(pairedTango({ differences: [1, 0, 0, -1, 1, 1, 0, 0], range: 2, alpha: 0.05 }).estimate); // 0.25
 * ```
 */
export function pairedTango(options: PairedIntervalOptions): PairedInterval {
  const counts = countDiscordant(options.differences, 'paired_tango');
  return tangoInterval({ ...counts, alpha: options.alpha, comparisons: options.comparisons ?? 1 });
}
