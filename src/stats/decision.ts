// The paired decision of a study with its decision_rule (docs/method.md section 5).
import { RlAdvantagesError } from '../errors.js';
import { parseDecisionRule, type DecisionRule } from './decision-rule.js';
import { criterionRange, isBinaryDifference } from './criteria.js';
import { criterionBothOnes, criterionDifferences, pairItems, type PairedItem } from './items.js';
import type { DecisionMethodName } from './method-names.js';
import { decisionMethod } from './methods.js';
import { combineVerdicts, criterionVerdict, type Verdict } from './verdict.js';

/** The outcome of one criterion. */
export interface CriterionDecision {
  readonly id: string;
  readonly metric: string;
  /** mean(d), d_i = w_t * y_t,i + w_b * y_b,i. */
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  readonly margin: number;
  readonly verdict: Verdict;
  /** (upper - lower) / 2; for Hoeffding R * sqrt(ln(2k / alpha) / (2n)) (a JSON writer may map it to `half_width`). */
  readonly halfWidth: number;
  /** R = (|w_t| + |w_b|) * (hi - lo). */
  readonly range: number;
}

/** The result of {@link decide}. */
export interface Decision {
  /** The method the intervals were made with. */
  readonly method: DecisionMethodName;
  /** The spec's method (`decision_rule.method`); differs from `method` only when overridden for exploration. */
  readonly specMethod: DecisionMethodName;
  /** The family-wise alpha of the rule. */
  readonly alpha: number;
  /** k, the number of criteria; each interval is at alpha / k. */
  readonly comparisons: number;
  /** The number of paired items. */
  readonly n: number;
  readonly verdict: Verdict;
  readonly criteria: readonly CriterionDecision[];
}

/**
 * Decides a study with its `decision_rule` (docs/method.md section 5). Items of the two arms are paired by
 * `item_id`; for criterion c with bounds [lo, hi] and weights w_t, w_b, item i gives d_i = w_t * y_t,i + w_b * y_b,i
 * in a range of width R = (|w_t| + |w_b|) * (hi - lo). With n pairs and k criteria (Bonferroni, alpha / k each) the
 * rule's method gives the interval: `paired_hoeffding` mean(d) +- R * sqrt(ln(2k / alpha) / (2n)) (section 5.2),
 * `paired_empirical_bernstein` (5.3), `paired_exact_binomial` (5.4), `paired_exact_unconditional` (5.4.1), `paired_tango`
 * (5.4.2, asymptotic) or `paired_newcombe` (5.4.3, asymptotic; it also uses n11, the items both arms got right), the
 * last four for 0/1 outcomes only. With margin m ("larger
 * favors treatment") the criterion is `validated` if lower > m, `failed` if upper < m, else `inconclusive`. The
 * overall verdict is `validated` only if every criterion is, `failed` if any is.
 *
 * The other direction ("smaller favors treatment") is expressed with the weights: treatment -1, baseline 1.
 *
 * @param decisionRule - the spec's validated `decision_rule` (`loadStudySpec(...).decisionRule`); it is validated
 *   again here, so an unchecked object cast to `DecisionRule` is still caught.
 * @param treatmentItems - the treatment arm's items, each `{ item_id, correct }`, `{ item_id, score }` or
 *   `{ item_id, metrics: { [metric]: value } }`.
 * @param baselineItems - the baseline arm's items, same forms.
 * @param options.method - another method than the rule's, for exploration (the result keeps `specMethod`).
 * @throws {StudySpecError} (`invalid_spec`) for an invalid rule. `RlAdvantagesError` naming the side,
 *   index and item id: `missing_pair` (an id on one side only), `duplicate_item`, `out_of_bounds` (a value outside
 *   the criterion's bounds), `missing_metric`, `non_finite`, `bad_item`, `empty`, `not_binary` (a value other
 *   than 0/1 under `paired_exact_binomial`); `unknown_method`, and `not_binary_criterion` when the exact method
 *   is asked for a criterion whose weights are not (1, -1) or (-1, 1).
 * @example
 * ```ts
 * import { decide, parseDecisionRule } from 'rl-advantages/stats';
 * const rule = parseDecisionRule({
 *   method: 'paired_hoeffding', alpha: 0.05,
 *   criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
 * });
 * const treatment = [{ item_id: 'q1', correct: true }, { item_id: 'q2', correct: false }];
 * const baseline = [{ item_id: 'q2', correct: false }, { item_id: 'q1', correct: false }];
 * const result = decide(rule, treatment, baseline);
 * console.log(result.criteria[0]?.estimate, result.verdict); // 0.5 "inconclusive" (n = 2 is far too few)
 * ```
 */
export function decide(
  decisionRule: DecisionRule,
  treatmentItems: readonly PairedItem[],
  baselineItems: readonly PairedItem[],
  options: { method?: string } = {},
): Decision {
  const rule = parseDecisionRule(decisionRule);
  const method = decisionMethod(options.method ?? rule.method);
  if (method.binaryOnly) {
    const bad = rule.criteria.find((c) => !isBinaryDifference(c));
    if (bad !== undefined) {
      throw new RlAdvantagesError(
        `criterion ${JSON.stringify(bad.id)} has weights (${bad.weights.treatment}, ${bad.weights.baseline}): ${method.name} needs a difference of 0/1 outcomes, weights (1, -1) or (-1, 1)`,
        { code: 'not_binary_criterion', field: 'method' },
      );
    }
  }
  const pairs = pairItems(treatmentItems, baselineItems);
  const n = pairs.length;
  const k = rule.criteria.length;
  const criteria = rule.criteria.map((c): CriterionDecision => {
    const range = criterionRange(c);
    const d = criterionDifferences(pairs, c, method.binaryOnly ? method.name : false);
    // For 0/1 outcomes the concordant split too (paired_newcombe uses it; the others ignore it).
    const n11 = method.needsConcordantSplit ? { n11: criterionBothOnes(pairs, c) } : {};
    const iv = method.interval({ differences: d, range, alpha: rule.alpha, comparisons: k, ...n11 });
    const verdict = criterionVerdict({ lower: iv.lower, upper: iv.upper, margin: c.margin });
    return { id: c.id, metric: c.metric, estimate: iv.estimate, lower: iv.lower, upper: iv.upper, margin: c.margin, verdict, halfWidth: iv.halfWidth, range };
  });
  return {
    method: method.name,
    specMethod: rule.method,
    alpha: rule.alpha,
    comparisons: k,
    n,
    verdict: combineVerdicts(criteria.map((c) => c.verdict)),
    criteria,
  };
}

/** A decision's plain JSON form, as `rl-adv decide --json` prints it and a study's summary.json holds it. */
export interface DecisionJson {
  method: string;
  /** Present only when `method` is not the spec's: the spec's method. */
  spec_method?: string;
  /** Present only when `method` is not the spec's: says so. */
  note?: string;
  alpha: number;
  n: number;
  verdict: Verdict;
  criteria: { id: string; metric: string; estimate: number; lower: number; upper: number; margin: number; verdict: Verdict }[];
}

/**
 * What a decision's interval covers, as `rl-adv decide` and the study report say it: each arm is one training run,
 * so the interval is about the sampling of test items given those two checkpoints (docs/method.md section 5.1).
 */
export const DECISION_SCOPE_WORDS =
  'each arm is one training run (one seed); the interval covers which test items were drawn, not the run-to-run variation of training';

/** The words `decide` prints when the method is not the spec's. */
export function notSpecMethodNote(method: string, specMethod: string): string {
  return `${method} is not the spec's method (${specMethod}): for exploration only`;
}

/**
 * The plain JSON form of a decision:
 * `{method, alpha, n, verdict, criteria: [{id, metric, estimate, lower, upper, margin, verdict}]}`, with
 * `spec_method` and `note` after `method` when the method is not the spec's.
 *
 * @example
 * ```ts
 * console.log(JSON.stringify(decisionJson(decide(spec.decisionRule, treatment, baseline))));
 * ```
 */
export function decisionJson(d: Decision): DecisionJson {
  return {
    method: d.method,
    ...(d.method !== d.specMethod ? { spec_method: d.specMethod, note: notSpecMethodNote(d.method, d.specMethod) } : {}),
    alpha: d.alpha,
    n: d.n,
    verdict: d.verdict,
    criteria: d.criteria.map((c) => ({
      id: c.id,
      metric: c.metric,
      estimate: c.estimate,
      lower: c.lower,
      upper: c.upper,
      margin: c.margin,
      verdict: c.verdict,
    })),
  };
}
