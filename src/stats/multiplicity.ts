// Family-wise error over several comparisons (docs/method.md section 5.10): Holm's step-down procedure carried out
// with intervals, and Bonferroni.
import { RlAdvantagesError } from '../errors.js';
import type { Verdict } from './verdict.js';

/** The procedures a study names in summary.json's `multiplicity`. */
export type MultiplicityProcedure = 'holm' | 'bonferroni';

/** One comparison's outcome under a procedure: its decision, the level it was made at, and the round. */
export interface StepDecision<T> {
  readonly decision: T;
  /** The two-sided error of the interval the decision comes from: alpha / m, m the comparisons still open then. */
  readonly alpha: number;
  /** 1-based round of the step-down in which it was decided (or last examined, when inconclusive). */
  readonly round: number;
}

function checkFamily(count: number, alpha: number): void {
  if (!Number.isInteger(count) || count < 1) throw new RlAdvantagesError(`comparisons must be an integer >= 1, got ${String(count)}`, { code: 'bad_integer', field: 'comparisons' });
  if (!(alpha > 0 && alpha < 1)) throw new RlAdvantagesError(`alpha must be in (0, 1), got ${String(alpha)}`, { code: 'bad_alpha', field: 'alpha' });
}

/**
 * Holm's step-down procedure (Holm 1979, https://www.jstor.org/stable/4615733) on K comparisons, with intervals:
 * round r decides every comparison still open at two-sided level alpha / m (m of them open); those whose interval
 * excludes the margin (verdict validated or failed) are closed with that decision; the rest go to the next round at
 * alpha / (m - closed); the procedure stops when a round closes none or none is open. For intervals nested in their
 * level (a smaller alpha gives a wider interval: the t intervals of section 5.8, Hoeffding's) this is exactly Holm on
 * the two-sided p-values of "difference = margin" (the interval at 1 - a excludes the margin iff p < a), so the
 * family-wise error of those K tests is at most alpha whatever their dependence; the direction of each decided
 * comparison is its verdict. An open comparison keeps the decision of the last round it was examined in.
 *
 * @param count - K, the comparisons.
 * @param alpha - the family's two-sided error rate.
 * @param decideAt - comparison `index` decided with an interval at two-sided level `alpha`.
 * @throws {RlAdvantagesError} `bad_integer` for K < 1, `bad_alpha` for alpha outside (0, 1).
 * @example
 * ```ts
 * // two comparisons whose verdicts depend on the level: the first is decided at 0.025, the second then at 0.05
 * const out = holmStepDown(2, 0.05, (i, a) => ({ verdict: i === 0 || a >= 0.05 ? 'validated' : 'inconclusive' }));
 * console.log(out.map((o) => [o.decision.verdict, o.alpha, o.round])); // [["validated", 0.025, 1], ["validated", 0.05, 2]]
 * ```
 */
export function holmStepDown<T extends { readonly verdict: Verdict }>(count: number, alpha: number, decideAt: (index: number, alpha: number) => T): StepDecision<T>[] {
  checkFamily(count, alpha);
  const out = new Array<StepDecision<T>>(count);
  let open = Array.from({ length: count }, (_, i) => i);
  for (let round = 1; open.length > 0; round++) {
    const level = alpha / open.length;
    const still: number[] = [];
    for (const i of open) {
      const decision = decideAt(i, level);
      out[i] = { decision, alpha: level, round };
      if (decision.verdict === 'inconclusive') still.push(i);
    }
    if (still.length === open.length) break;
    open = still;
  }
  return out;
}

/**
 * Bonferroni over K comparisons: each decided once at two-sided level alpha / K (for interval-only methods, whose
 * intervals need not nest in their level, and for each seed's own decision).
 *
 * @throws {RlAdvantagesError} `bad_integer` for K < 1, `bad_alpha` for alpha outside (0, 1).
 * @example
 * ```ts
 * bonferroni(3, 0.05, (i, a) => ({ verdict: 'inconclusive', a }))[0]?.alpha; // 0.016666666666666666
 * ```
 */
export function bonferroni<T extends { readonly verdict: Verdict }>(count: number, alpha: number, decideAt: (index: number, alpha: number) => T): StepDecision<T>[] {
  checkFamily(count, alpha);
  return Array.from({ length: count }, (_, i) => ({ decision: decideAt(i, alpha / count), alpha: alpha / count, round: 1 }));
}
