// The paired exact binomial interval for 0/1 outcomes (docs/method.md section 5.4).
import { RlAdvantagesError } from '../errors.js';
import { clopperPearson } from '../internal/beta.js';
import { checkPositiveInteger, describe, toFiniteFloat64 } from '../internal/validate.js';
import { checkAlpha } from './checks.js';
import type { PairedInterval, PairedIntervalOptions } from './interval.js';

/** The counts of a paired 0/1 comparison: n10 items favour the treatment (d = +1), n01 the baseline (d = -1). */
export interface DiscordantCounts {
  /** Items with d_i = +1. */
  readonly n10: number;
  /** Items with d_i = -1. */
  readonly n01: number;
  /** All paired items (concordant ones included), n >= n10 + n01 (+ n11), n >= 1. */
  readonly n: number;
  /**
   * Items where both outcomes are 1 (the concordant both-right items): optional for the methods that use only the
   * discordant counts, required by `paired_newcombe`.
   */
  readonly n11?: number;
}

function checkCount(field: string, value: unknown): number {
  return checkPositiveInteger(field, value, 0);
}

/**
 * The counts checked: integers n10, n01 >= 0, n >= 1, n10 + n01 <= n.
 *
 * @throws {RlAdvantagesError} `bad_integer`, `bad_counts` (n10 + n01 > n).
 */
export function checkCounts(options: DiscordantCounts): DiscordantCounts {
  const n10 = checkCount('n10', options.n10);
  const n01 = checkCount('n01', options.n01);
  const n = checkPositiveInteger('n', options.n);
  if (n10 + n01 > n) {
    throw new RlAdvantagesError(`n10 + n01 = ${n10 + n01} exceeds n = ${n}: discordant pairs are a subset of the items`, { code: 'bad_counts', field: 'n' });
  }
  return { n10, n01, n };
}

/**
 * The exact interval for E[d] = p (2q - 1) from the discordant counts: Clopper-Pearson intervals at level
 * 1 - alpha/(2k) for the discordance rate p = m/n and for q = n10/m given m (q in [0, 1] when m = 0), combined
 * over the box [pL, pU] x [qL, qU]:
 *
 *   lower = min(pL (2qL - 1), pU (2qL - 1)),  upper = max(pL (2qU - 1), pU (2qU - 1)).
 *
 * Coverage >= 1 - alpha/k by Bonferroni over the two intervals. halfWidth is (upper - lower) / 2.
 *
 * Reference: docs/method.md section 5.4; Clopper and Pearson (1934), https://doi.org/10.1093/biomet/26.4.404.
 *
 * @param options - the counts, alpha in (0, 1) and k (`comparisons`, default 1).
 * @throws {RlAdvantagesError} `bad_integer` for a count that is not an integer >= 0 (n >= 1) or for comparisons,
 *   `bad_counts` when n10 + n01 > n, `bad_alpha`.
 * @example
 * ```ts
 * import { exactBinomialInterval } from 'rl-advantages/stats';
 * // The audit's setting: n = 1319, 264 discordant pairs split evenly, alpha = 0.05.
 * const iv = exactBinomialInterval({ n10: 132, n01: 132, n: 1319, alpha: 0.05 });
 * console.log(iv.lower.toFixed(4), iv.upper.toFixed(4)); // "-0.0319" "0.0319"
 * ```
 */
export function exactBinomialInterval(options: DiscordantCounts & { alpha: number; comparisons?: number }): PairedInterval {
  const { n10, n01, n } = checkCounts(options);
  const alpha = checkAlpha('alpha', options.alpha);
  const k = checkPositiveInteger('comparisons', options.comparisons ?? 1);
  const m = n10 + n01;
  const level = alpha / (2 * k);
  const [pL, pU] = clopperPearson(m, n, level);
  const [qL, qU] = clopperPearson(n10, m, level);
  const lower = Math.min(pL * (2 * qL - 1), pU * (2 * qL - 1));
  const upper = Math.max(pL * (2 * qU - 1), pU * (2 * qU - 1));
  return { n, estimate: (n10 - n01) / n, halfWidth: (upper - lower) / 2, lower, upper };
}

/**
 * The paired exact binomial interval from per-item differences of 0/1 outcomes, d_i in {-1, 0, +1}
 * (treatment minus baseline, or its negative): counts n10 = #{d_i = +1}, n01 = #{d_i = -1} and applies
 * {@link exactBinomialInterval}. `range` is not used (the values fix it) but is accepted so every decision
 * method takes the same options.
 *
 * Reference: docs/method.md section 5.4.
 *
 * @throws {RlAdvantagesError} `not_binary` naming the index of a d_i outside {-1, 0, +1} (the outcomes were not
 *   0/1), `non_finite`, `empty`, and the errors of {@link exactBinomialInterval}.
 * @example
 * ```ts
 * import { pairedExactBinomial } from 'rl-advantages/stats';
 * const iv = pairedExactBinomial({ differences: [1, 0, 0, -1, 1, 1, 0, 0], range: 2, alpha: 0.05 });
 * console.log(iv.estimate, iv.lower < 0 && iv.upper > 0.25); // 0.25 true
 * ```
 */
export function pairedExactBinomial(options: PairedIntervalOptions): PairedInterval {
  const counts = countDiscordant(options.differences, 'paired_exact_binomial');
  return exactBinomialInterval({ ...counts, alpha: options.alpha, comparisons: options.comparisons ?? 1 });
}

/**
 * n10 = #{d_i = +1}, n01 = #{d_i = -1} and n of per-item differences of 0/1 outcomes.
 *
 * @throws {RlAdvantagesError} `not_binary` naming the index of a d_i outside {-1, 0, +1} and the method that needs
 *   them, `non_finite`, `empty`.
 */
export function countDiscordant(differences: unknown, method: string): DiscordantCounts {
  const d = toFiniteFloat64('differences', differences);
  if (d.length === 0) {
    throw new RlAdvantagesError('differences must hold at least one item', { code: 'empty', field: 'differences' });
  }
  let n10 = 0;
  let n01 = 0;
  d.forEach((x, index) => {
    if (x === 1) n10 += 1;
    else if (x === -1) n01 += 1;
    else if (x !== 0) {
      throw new RlAdvantagesError(
        `differences[${index}] is ${describe(x)}: ${method} needs 0/1 outcomes, so each difference must be -1, 0 or +1`,
        { code: 'not_binary', field: 'differences', index },
      );
    }
  });
  return { n10, n01, n: d.length };
}
