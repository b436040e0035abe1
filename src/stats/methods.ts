// The decision methods by name: one lookup that refuses unknown names (docs/method.md section 5).
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { empiricalBernsteinHalfWidth, pairedEmpiricalBernstein } from './bernstein.js';
import { exactBinomialInterval, pairedExactBinomial, type DiscordantCounts } from './exact-binomial.js';
import { exactUnconditionalInterval, exactUnconditionalThresholds, pairedExactUnconditional, type VerdictThresholds } from './exact-unconditional.js';
import { hoeffdingHalfWidth, pairedHoeffding } from './hoeffding.js';
import type { PairedInterval, PairedIntervalOptions } from './interval.js';
import { pairedTango, tangoInterval, tangoThresholds } from './tango.js';
import { newcombeInterval, pairedNewcombe } from './newcombe.js';
import { DECISION_METHOD_NAMES, isDecisionMethodName, type DecisionMethodName } from './method-names.js';

/** A decision method: its interval from per-item differences and, for 0/1 outcomes, from the discordant counts. */
export interface DecisionMethod {
  readonly name: DecisionMethodName;
  /** The section of docs/method.md and the paper. */
  readonly reference: string;
  /** Whether it needs 0/1 outcomes (differences in {-1, 0, +1}). */
  readonly binaryOnly: boolean;
  /** Whether its coverage is only asymptotic (not guaranteed at any n; docs/method.md section 5.7 gives the lowest measured). */
  readonly asymptotic: boolean;
  /**
   * Whether its interval depends on n11 (the concordant items where both outcomes are 1) as well as the discordant
   * counts: then `fromCounts` needs `n11`, and its power the control arm's accuracy.
   */
  readonly needsConcordantSplit: boolean;
  /** The interval from the differences d_i. */
  interval(options: PairedIntervalOptions): PairedInterval;
  /** The same interval for 0/1 outcomes (R = 2) from the counts, without the items: what power sums over. */
  fromCounts(options: DiscordantCounts & { alpha: number; comparisons?: number }): PairedInterval;
  /**
   * For 0/1 outcomes, the verdict at a margin as regions of the counts (validated iff n10 >= validFrom[m], failed
   * iff n10 <= failTo[m], m = n10 + n01), when faster than an interval per count: what power sums over.
   */
  thresholds?(n: number, alpha: number, comparisons: number, margin: number): VerdictThresholds;
}

function symmetric(n: number, estimate: number, halfWidth: number): PairedInterval {
  return { n, estimate, halfWidth, lower: estimate - halfWidth, upper: estimate + halfWidth };
}

const METHODS: Readonly<Record<DecisionMethodName, DecisionMethod>> = {
  paired_hoeffding: {
    name: 'paired_hoeffding',
    reference: 'docs/method.md section 5.2; Hoeffding (1963), https://doi.org/10.1080/01621459.1963.10500830',
    binaryOnly: false,
    asymptotic: false,
    needsConcordantSplit: false,
    interval: pairedHoeffding,
    fromCounts: ({ n10, n01, n, alpha, comparisons }) => symmetric(n, (n10 - n01) / n, hoeffdingHalfWidth({ n, alpha, range: 2, comparisons: comparisons ?? 1 })),
  },
  paired_empirical_bernstein: {
    name: 'paired_empirical_bernstein',
    reference: 'docs/method.md section 5.3; Maurer and Pontil (2009), Theorem 4, https://arxiv.org/abs/0907.3740',
    binaryOnly: false,
    asymptotic: false,
    needsConcordantSplit: false,
    interval: pairedEmpiricalBernstein,
    fromCounts: ({ n10, n01, n, alpha, comparisons }) => {
      const s = n10 - n01;
      // Sample variance of d in {-1, 0, 1}: (sum d^2 - n mean^2) / (n - 1) = (m - s^2 / n) / (n - 1).
      const variance = n > 1 ? Math.max(0, (n10 + n01 - (s * s) / n) / (n - 1)) : 0;
      return symmetric(n, s / n, empiricalBernsteinHalfWidth({ n, variance, alpha, range: 2, comparisons: comparisons ?? 1 }));
    },
  },
  paired_exact_binomial: {
    name: 'paired_exact_binomial',
    reference: 'docs/method.md section 5.4; Clopper and Pearson (1934), https://doi.org/10.1093/biomet/26.4.404',
    binaryOnly: true,
    asymptotic: false,
    needsConcordantSplit: false,
    interval: pairedExactBinomial,
    fromCounts: exactBinomialInterval,
  },
  paired_exact_unconditional: {
    name: 'paired_exact_unconditional',
    reference:
      'docs/method.md section 5.4.1; Tango (1998), https://doi.org/10.1002/(SICI)1097-0258(19980430)17:8%3C891::AID-SIM780%3E3.0.CO;2-B; Chan and Zhang (1999), https://doi.org/10.1111/j.0006-341X.1999.01202.x',
    binaryOnly: true,
    asymptotic: false,
    needsConcordantSplit: false,
    interval: pairedExactUnconditional,
    fromCounts: exactUnconditionalInterval,
    thresholds: exactUnconditionalThresholds,
  },
  paired_tango: {
    name: 'paired_tango',
    reference: 'docs/method.md section 5.4.2 (asymptotic); Tango (1998), https://doi.org/10.1002/(SICI)1097-0258(19980430)17:8%3C891::AID-SIM780%3E3.0.CO;2-B',
    binaryOnly: true,
    asymptotic: true,
    needsConcordantSplit: false,
    interval: pairedTango,
    fromCounts: tangoInterval,
    thresholds: tangoThresholds,
  },
  paired_newcombe: {
    name: 'paired_newcombe',
    reference:
      'docs/method.md section 5.4.3 (asymptotic); Newcombe (1998), method 10, https://doi.org/10.1002/(SICI)1097-0258(19981130)17:22%3C2635::AID-SIM954%3E3.0.CO;2-C',
    binaryOnly: true,
    asymptotic: true,
    needsConcordantSplit: true,
    interval: pairedNewcombe,
    fromCounts: newcombeInterval,
  },
};

/**
 * The decision method of a name (one of {@link DECISION_METHOD_NAMES}).
 *
 * @throws {RlAdvantagesError} `unknown_method` naming the methods there are.
 * @example
 * ```ts
 * import { decisionMethod } from 'rl-advantages/stats';
 * const iv = decisionMethod('paired_exact_binomial').fromCounts({ n10: 132, n01: 132, n: 1319, alpha: 0.05 });
 * console.log(iv.halfWidth.toFixed(4)); // "0.0319"
 * ```
 */
export function decisionMethod(name: string): DecisionMethod {
  if (!isDecisionMethodName(name)) {
    throw new RlAdvantagesError(`unknown decision method ${describe(name)}; the methods are ${DECISION_METHOD_NAMES.join(', ')}`, {
      code: 'unknown_method',
      field: 'method',
    });
  }
  return METHODS[name];
}
