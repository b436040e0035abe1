// The exact unconditional paired interval for 0/1 outcomes, ordered by Tango's score (docs/method.md section 5.4.1).
import { checkPositiveInteger } from '../internal/validate.js';
import { checkAlpha } from './checks.js';
import { checkCounts, countDiscordant, type DiscordantCounts } from './exact-binomial.js';
import type { PairedInterval, PairedIntervalOptions } from './interval.js';
import { bisectDecreasing, tangoScore } from './tango.js';
import { normalUpperQuantile } from '../internal/normal.js';
import { methodGridPoints, supremum, type RowRegion } from './unconditional-core.js';

/** Cells whose score is within this (relative) of the observed one count as tied with it (floating point). */
const TIE = 1e-12;

/**
 * The score region {Z_delta0 >= z} row by row: from[m] = the smallest n10 in [0, m] with Z(n10, m - n10) >= z,
 * m + 1 when none. Z increases in n10 for a fixed m, so each row is one binary search.
 */
export function scoreRegion(n: number, delta0: number, z: number): RowRegion {
  const from = new Int32Array(n + 1);
  const zt = z - TIE * Math.max(1, Math.abs(z));
  const inRegion = (b: number, m: number): boolean => tangoScore(b, m - b, n, delta0) >= zt;
  for (let m = 0; m <= n; m++) {
    let lo = 0;
    let hi = m + 1;
    // The boundary moves little from row to row: bracket it around the previous row's first.
    if (m > 0) {
      const guess = Math.min(m, from[m - 1] as number);
      if (guess <= m && inRegion(guess, m)) {
        hi = guess;
        if (guess >= 1 && !inRegion(guess - 1, m)) lo = guess;
      } else {
        lo = guess + 1;
        if (lo <= m && inRegion(lo, m)) hi = lo;
        else if (lo + 1 <= m && inRegion(lo + 1, m)) [lo, hi] = [lo + 1, lo + 1];
      }
    }
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tangoScore(mid, m - mid, n, delta0) >= zt) hi = mid;
      else lo = mid + 1;
    }
    from[m] = lo;
  }
  return from;
}

/**
 * The exact unconditional p-value for H0: E[d] = delta0 against E[d] > delta0 at the observed (n10, n01):
 * sup over the discordance D in [|delta0|, 1] of P(Z_delta0 >= Z_delta0(observed)), the supremum taken on a grid
 * of 4n + 200 points with golden-section refinement of the 3 highest local maxima. With `stopAbove` it may stop
 * early once the supremum is known to exceed that level.
 */
export function upperPValue(counts: DiscordantCounts, delta0: number, stopAbove?: number): number {
  const { n10, n01, n } = counts;
  const z = tangoScore(n10, n01, n, delta0);
  return supremum(n, delta0, scoreRegion(n, delta0, z), { points: methodGridPoints(n), ...(stopAbove === undefined ? {} : { stopAbove }) });
}

/**
 * The lower end: inf{delta0 : p_up(delta0) > a}, by bisection on [-1, estimate] (p_up increases with delta0).
 */
function lowerEnd(counts: DiscordantCounts, a: number): number {
  const { n10, n01, n } = counts;
  if (n01 === n) return -1;
  const est = (n10 - n01) / n;
  // The test of delta0 rejects when p_up <= a; bisection for the first delta0 where it does not.
  return bisectDecreasing((d) => (upperPValue(counts, d, a) > a ? -1 : 1), -1, est);
}

/**
 * The exact unconditional interval for E[d] = P(d = +1) - P(d = -1) from the discordant counts, at level
 * 1 - alpha/k: lower = inf{delta0 : p_up(delta0) > a}, upper = sup{delta0 : p_down(delta0) > a}, a = alpha/(2k),
 * where p_up is the exact unconditional p-value of Tango's score (sup over the nuisance discordance D) and
 * p_down(delta0) for (n10, n01) is p_up(-delta0) for (n01, n10) (the score is antisymmetric under the swap). Each
 * end misses the truth with probability <= a whatever D, so coverage >= 1 - alpha/k (the supremum is taken on a
 * fine grid with local refinement: docs/method.md section 5.4.1 states the enumerated worst case).
 *
 * Reference: docs/method.md section 5.4.1; Tango (1998), https://doi.org/10.1002/(SICI)1097-0258(19980430)17:8%3C891::AID-SIM780%3E3.0.CO;2-B
 * (the score); Chan and Zhang (1999), Biometrics 55:1202-1209, https://doi.org/10.1111/j.0006-341X.1999.01202.x
 * (exact unconditional intervals by inverting two one-sided tests, the tail method).
 *
 * @throws {RlAdvantagesError} `bad_integer`, `bad_counts`, `bad_alpha` as {@link exactBinomialInterval}.
 * @example
 * ```ts
 * import { exactUnconditionalInterval } from 'rl-advantages';
 * const iv = exactUnconditionalInterval({ n10: 6, n01: 1, n: 30, alpha: 0.05 });
 * console.log(iv.lower.toFixed(4), iv.upper.toFixed(4)); // "-0.0108" "0.3741"
 * ```
 */
export function exactUnconditionalInterval(options: DiscordantCounts & { alpha: number; comparisons?: number }): PairedInterval {
  const counts = checkCounts(options);
  const alpha = checkAlpha('alpha', options.alpha);
  const k = checkPositiveInteger('comparisons', options.comparisons ?? 1);
  const a = alpha / (2 * k);
  const lower = lowerEnd(counts, a);
  const upper = -lowerEnd({ n10: counts.n01, n01: counts.n10, n: counts.n }, a);
  return { n: counts.n, estimate: (counts.n10 - counts.n01) / counts.n, halfWidth: (upper - lower) / 2, lower, upper };
}

/**
 * The exact unconditional interval from per-item differences of 0/1 outcomes (d_i in {-1, 0, +1}); `range` is
 * accepted for a common signature and not used.
 *
 * @throws {RlAdvantagesError} `not_binary`, `non_finite`, `empty`, and the errors of {@link exactUnconditionalInterval}.
 * @example
 * ```ts
 * import { pairedExactUnconditional } from 'rl-advantages';
 * const iv = pairedExactUnconditional({ differences: [1, 0, 0, -1, 1, 1, 0, 0], range: 2, alpha: 0.05 });
 * console.log(iv.estimate); // 0.25
 * ```
 */
export function pairedExactUnconditional(options: PairedIntervalOptions): PairedInterval {
  const counts = countDiscordant(options.differences, 'paired_exact_unconditional');
  return exactUnconditionalInterval({ ...counts, alpha: options.alpha, comparisons: options.comparisons ?? 1 });
}

/** The verdict regions of a decision method at a margin: per m, validated iff n10 >= validFrom[m], failed iff n10 <= failTo[m]. */
export interface VerdictThresholds {
  /** Per m = 0..n: the smallest n10 that validates (m + 1: none). */
  readonly validFrom: Int32Array;
  /** Per m = 0..n: the largest n10 that fails (-1: none). */
  readonly failTo: Int32Array;
}

const regionCache = new Map<string, RowRegion>();

/**
 * The rejection region of the one-sided exact unconditional test of H0: E[d] = delta0 against E[d] > delta0 at
 * level a: {Z_delta0 >= z*}, z* the smallest score whose p-value is <= a (the p-value decreases with the score, so
 * the region is one score threshold). Found by bisection on z, then the cells between the last two brackets are
 * tried one by one. Cached per (n, delta0, a).
 */
export function rejectionRegion(n: number, delta0: number, a: number): RowRegion {
  const key = `${n}:${delta0}:${a}`;
  const cached = regionCache.get(key);
  if (cached !== undefined) return cached;
  const points = methodGridPoints(n);
  const h = (from: RowRegion): number => supremum(n, delta0, from, { points, stopAbove: a });
  const z0 = normalUpperQuantile(a);
  let lo = z0 - 1;
  let hi = z0 + 1;
  while (h(scoreRegion(n, delta0, lo)) <= a && lo > -40) lo -= 2;
  while (h(scoreRegion(n, delta0, hi)) > a) hi += 2;
  while (hi - lo > 1e-6) {
    const mid = (lo + hi) / 2;
    if (h(scoreRegion(n, delta0, mid)) > a) lo = mid;
    else hi = mid;
  }
  // Cells with a score in (lo, hi], best first: each joins while its own p-value is <= a.
  const outer = scoreRegion(n, delta0, lo);
  const inner = scoreRegion(n, delta0, hi);
  const between: number[] = [];
  for (let m = 0; m <= n; m++) {
    for (let b = outer[m] as number; b < (inner[m] as number); b++) between.push(tangoScore(b, m - b, n, delta0));
  }
  between.sort((x, y) => y - x);
  let region = inner;
  for (const z of between) {
    const candidate = scoreRegion(n, delta0, z);
    if (h(candidate) > a) break;
    region = candidate;
  }
  if (regionCache.size > 64) regionCache.clear();
  regionCache.set(key, region);
  return region;
}

/**
 * The exact unconditional interval's verdicts at a margin, as regions: validated (lower > margin) iff the test of
 * H0: E[d] = margin rejects upwards at a = alpha/(2k), failed (upper < margin) iff the swapped counts are rejected
 * upwards at -margin. This equals the interval's verdict because p_up increases with delta0 (checked for every
 * (n10, n01) at small n in test/stats/exact-unconditional.test.ts).
 */
export function exactUnconditionalThresholds(n: number, alpha: number, k: number, margin: number): VerdictThresholds {
  const a = alpha / (2 * k);
  // At |margin| >= 1 there is no nuisance left: lower = -1 only for n01 = n, upper = 1 only for n10 = n.
  const edge = (d0: number): RowRegion => {
    const from = new Int32Array(n + 1);
    for (let m = 0; m <= n; m++) from[m] = d0 >= 1 ? m + 1 : d0 < -1 ? 0 : m === n ? 1 : 0;
    return from;
  };
  const validFrom = Math.abs(margin) >= 1 ? edge(margin) : rejectionRegion(n, margin, a);
  let failTo: Int32Array | undefined;
  return {
    validFrom,
    // Computed on first use: the n for 80% power needs only the validating side.
    get failTo(): Int32Array {
      if (failTo === undefined) {
        const down = Math.abs(margin) >= 1 ? edge(-margin) : rejectionRegion(n, -margin, a);
        failTo = new Int32Array(n + 1);
        for (let m = 0; m <= n; m++) failTo[m] = m - (down[m] as number);
      }
      return failTo;
    },
  };
}
