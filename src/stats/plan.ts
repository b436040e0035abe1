// Planning a decision before training: the Hoeffding thresholds per criterion (docs/method.md section 5.2).
import { checkPositiveInteger } from '../internal/validate.js';
import { parseDecisionRule, type DecisionCriterion } from './decision-rule.js';
import { criterionRange, differenceExtremes } from './criteria.js';
import { hoeffdingHalfWidth } from './hoeffding.js';

/** The plan of one criterion: how far the estimate must be from the margin for a verdict. */
export interface CriterionPlan {
  readonly id: string;
  readonly metric: string;
  readonly margin: number;
  /** R, the width of the range of d_i. */
  readonly range: number;
  /** R * sqrt(ln(2k / alpha) / (2n)). */
  readonly halfWidth: number;
  /** margin + halfWidth: the criterion validates only if the observed mean difference is strictly above this. */
  readonly validatesAbove: number;
  /** margin - halfWidth: the criterion fails only if the observed mean difference is strictly below this. */
  readonly failsBelow: number;
  /** Whether any data could validate: the largest possible mean difference exceeds `validatesAbove`. */
  readonly canValidate: boolean;
  /** Whether any data could fail: the smallest possible mean difference is below `failsBelow`. */
  readonly canFail: boolean;
}

/** What a decision with n items can conclude, per criterion. */
export interface DecisionPlan {
  readonly n: number;
  readonly alpha: number;
  /** k, the number of criteria (Bonferroni: alpha / k each). */
  readonly comparisons: number;
  readonly criteria: readonly CriterionPlan[];
}

/**
 * Plans a decision before any training: for n paired items, per criterion the half-width
 * h = R * sqrt(ln(2k / alpha) / (2n)), the threshold margin + h the observed mean difference must exceed to
 * validate, margin - h below which it fails, and whether either is reachable at all. A study whose `canValidate`
 * is false can never conclude in favour of the treatment, whatever the models do.
 *
 * Reference: docs/method.md section 5.2 (for the spec: n = 1319, alpha = 0.05, R = 2 gives h = 0.0748, so with margin
 * -0.05 the study validates only above about +0.025).
 *
 * @param options.n - number of paired items, an integer >= 1.
 * @param options.alpha - family-wise error rate in (0, 1).
 * @param options.criteria - the decision rule's criteria (a whole validated rule can be spread in).
 * @throws {StudySpecError} (`invalid_spec`) for bad alpha or criteria, listing every problem;
 *   `RlAdvantagesError` `bad_integer` for n.
 * @example
 * ```ts
 * import { planDecision } from 'rl-advantages/stats';
 * const plan = planDecision({
 *   n: 1319, alpha: 0.05,
 *   criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
 * });
 * console.log(plan.criteria[0]?.halfWidth.toFixed(4), plan.criteria[0]?.validatesAbove.toFixed(4)); // "0.0748" "0.0248"
 * ```
 */
export function planDecision(options: {
  n: number;
  alpha: number;
  criteria: readonly DecisionCriterion[];
}): DecisionPlan {
  const n = checkPositiveInteger('n', options.n);
  const rule = parseDecisionRule({ method: 'paired_hoeffding', alpha: options.alpha, criteria: options.criteria }, '');
  const k = rule.criteria.length;
  const criteria = rule.criteria.map((c): CriterionPlan => {
    const range = criterionRange(c);
    const halfWidth = hoeffdingHalfWidth({ n, alpha: rule.alpha, range, comparisons: k });
    const [dMin, dMax] = differenceExtremes(c);
    const validatesAbove = c.margin + halfWidth;
    const failsBelow = c.margin - halfWidth;
    return {
      id: c.id,
      metric: c.metric,
      margin: c.margin,
      range,
      halfWidth,
      validatesAbove,
      failsBelow,
      canValidate: dMax > validatesAbove,
      canFail: dMin < failsBelow,
    };
  });
  return { n, alpha: rule.alpha, comparisons: k, criteria };
}
