// Paired Hoeffding interval and the spec's decision rule (METHOD section 5).
import { RlAdvantagesError } from '../errors.js';
import { checkPositiveInteger, describe, toFiniteFloat64 } from '../internal/validate.js';
import { parseDecisionRule, type DecisionCriterion, type DecisionRule } from '../study/spec.js';

/** The verdict of one criterion, or of the whole decision. */
export type Verdict = 'validated' | 'failed' | 'inconclusive';

function checkAlpha(field: string, alpha: unknown): number {
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0 || alpha >= 1) {
    throw new RlAdvantagesError(`${field} must be a number in (0, 1), got ${describe(alpha)}`, {
      code: 'bad_alpha',
      field,
    });
  }
  return alpha;
}

function checkRange(field: string, range: unknown): number {
  if (typeof range !== 'number' || !Number.isFinite(range) || range <= 0) {
    throw new RlAdvantagesError(`${field} must be a finite number > 0, got ${describe(range)}`, {
      code: 'bad_range',
      field,
    });
  }
  return range;
}

/**
 * Half-width of the two-sided Hoeffding interval for the mean of n independent values that each lie in a range of
 * width R, with Bonferroni over k simultaneous intervals:
 *
 *   h = R * sqrt(ln(2k / alpha) / (2n))
 *
 * Reference: docs/method.md section 5; Hoeffding (1963), https://doi.org/10.1080/01621459.1963.10500830.
 *
 * @param options.n - number of paired items, an integer >= 1.
 * @param options.alpha - family-wise error rate in (0, 1).
 * @param options.range - R, the width of the range each value lies in (> 0).
 * @param options.comparisons - k, the number of simultaneous intervals (default 1).
 * @throws {RlAdvantagesError} `bad_integer` for n or comparisons, `bad_alpha`, `bad_range`.
 * @example
 * ```ts
 * import { hoeffdingHalfWidth } from 'rl-advantages';
 * // The study's figures: n = 1319, alpha = 0.05, R = 2, k = 1.
 * console.log(hoeffdingHalfWidth({ n: 1319, alpha: 0.05, range: 2 }).toFixed(4)); // "0.0748"
 * ```
 */
export function hoeffdingHalfWidth(options: { n: number; alpha: number; range: number; comparisons?: number }): number {
  const n = checkPositiveInteger('n', options.n);
  const alpha = checkAlpha('alpha', options.alpha);
  const range = checkRange('range', options.range);
  const k = checkPositiveInteger('comparisons', options.comparisons ?? 1);
  return range * Math.sqrt(Math.log((2 * k) / alpha) / (2 * n));
}

/** A paired Hoeffding interval for the mean difference. */
export interface HoeffdingInterval {
  /** Number of paired items. */
  readonly n: number;
  /** mean(d). */
  readonly estimate: number;
  /** R * sqrt(ln(2k / alpha) / (2n)). */
  readonly halfWidth: number;
  /** estimate - halfWidth. */
  readonly lower: number;
  /** estimate + halfWidth. */
  readonly upper: number;
}

/**
 * The paired Hoeffding interval: given per-item paired differences d_i (each in a range of width R),
 *
 *   mean(d) +- R * sqrt(ln(2k / alpha) / (2n))
 *
 * holds with probability >= 1 - alpha / k for the expected difference (two-sided). With k intervals each at
 * alpha / k the family holds simultaneously with probability >= 1 - alpha (Bonferroni).
 *
 * Reference: docs/method.md section 5; Hoeffding (1963), https://doi.org/10.1080/01621459.1963.10500830.
 *
 * @param options.differences - d_1..d_n, finite numbers (array, typed array or 1-D ndarray).
 * @param options.range - R; the observed spread max(d) - min(d) must not exceed it.
 * @param options.alpha - family-wise error rate in (0, 1).
 * @param options.comparisons - k, the number of simultaneous intervals (default 1).
 * @throws {RlAdvantagesError} `non_finite` for a bad difference (names its index), `empty` when there is none,
 *   `out_of_range` when the differences spread wider than R, and the errors of {@link hoeffdingHalfWidth}.
 * @example
 * ```ts
 * import { pairedHoeffding } from 'rl-advantages';
 * const iv = pairedHoeffding({ differences: [1, 0, 0, -1, 1, 1, 0, 0], range: 2, alpha: 0.05 });
 * console.log(iv.estimate, iv.lower < iv.estimate && iv.estimate < iv.upper); // 0.25 true
 * ```
 */
export function pairedHoeffding(options: {
  differences: unknown;
  range: number;
  alpha: number;
  comparisons?: number;
}): HoeffdingInterval {
  const d = toFiniteFloat64('differences', options.differences);
  if (d.length === 0) {
    throw new RlAdvantagesError('differences must hold at least one item', { code: 'empty', field: 'differences' });
  }
  const range = checkRange('range', options.range);
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const x of d) {
    sum += x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  // Hoeffding's bound is only valid when every value lies in a range of width R; a wider spread means the
  // caller's R (or data) is wrong. The slack absorbs float rounding of d = w_t*y_t + w_b*y_b.
  if (max - min > range * (1 + 1e-12)) {
    throw new RlAdvantagesError(
      `differences spread over ${max - min} (from ${min} to ${max}), wider than range ${range}: the Hoeffding bound does not apply`,
      { code: 'out_of_range', field: 'differences' },
    );
  }
  const n = d.length;
  const estimate = sum / n;
  const halfWidth = hoeffdingHalfWidth({ n, alpha: options.alpha, range, comparisons: options.comparisons ?? 1 });
  return { n, estimate, halfWidth, lower: estimate - halfWidth, upper: estimate + halfWidth };
}

/**
 * The verdict of one criterion with margin m, "larger favors treatment" (METHOD section 5):
 * `validated` if lower > m (strictly), `failed` if upper < m (strictly), else `inconclusive`.
 *
 * @throws {RlAdvantagesError} `non_finite` when an argument is not a finite number.
 * @example
 * ```ts
 * import { criterionVerdict } from 'rl-advantages';
 * console.log(criterionVerdict({ lower: -0.05, upper: 0.1, margin: -0.05 })); // "inconclusive" (not strictly above)
 * ```
 */
export function criterionVerdict(interval: { lower: number; upper: number; margin: number }): Verdict {
  const lower = finite('lower', interval.lower);
  const upper = finite('upper', interval.upper);
  const margin = finite('margin', interval.margin);
  if (lower > margin) return 'validated';
  if (upper < margin) return 'failed';
  return 'inconclusive';
}

function finite(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RlAdvantagesError(`${field} must be a finite number, got ${describe(value)}`, { code: 'non_finite', field });
  }
  return value;
}

/**
 * The overall verdict: `failed` if any criterion failed, `validated` only if every criterion validated,
 * otherwise `inconclusive` (METHOD section 5).
 *
 * @throws {RlAdvantagesError} `empty` when there are no verdicts.
 * @example
 * ```ts
 * import { combineVerdicts } from 'rl-advantages';
 * console.log(combineVerdicts(['validated', 'inconclusive'])); // "inconclusive"
 * ```
 */
export function combineVerdicts(verdicts: readonly Verdict[]): Verdict {
  if (verdicts.length === 0) {
    throw new RlAdvantagesError('verdicts must hold at least one verdict', { code: 'empty', field: 'verdicts' });
  }
  if (verdicts.includes('failed')) return 'failed';
  if (verdicts.every((v) => v === 'validated')) return 'validated';
  return 'inconclusive';
}

/**
 * R = (|w_t| + |w_b|) * (hi - lo): the width of the range d_i = w_t * y_t + w_b * y_b lies in when both y are in
 * [lo, hi] (METHOD section 5).
 */
function criterionRange(c: DecisionCriterion): number {
  return (Math.abs(c.weights.treatment) + Math.abs(c.weights.baseline)) * (c.bounds[1] - c.bounds[0]);
}

/** The smallest and largest d_i can be, for whether a verdict is reachable at all. */
function differenceExtremes(c: DecisionCriterion): [number, number] {
  const [lo, hi] = c.bounds;
  let min = 0;
  let max = 0;
  for (const w of [c.weights.treatment, c.weights.baseline]) {
    min += Math.min(w * lo, w * hi);
    max += Math.max(w * lo, w * hi);
  }
  return [min, max];
}

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
 * Reference: docs/method.md section 5 (for the spec: n = 1319, alpha = 0.05, R = 2 gives h = 0.0748, so with margin
 * -0.05 the study validates only above about +0.025).
 *
 * @param options.n - number of paired items, an integer >= 1.
 * @param options.alpha - family-wise error rate in (0, 1).
 * @param options.criteria - the decision rule's criteria (a whole validated rule can be spread in).
 * @throws {StudySpecError} (`invalid_spec`) for bad alpha or criteria, listing every problem;
 *   {@link RlAdvantagesError} `bad_integer` for n.
 * @example
 * ```ts
 * import { planDecision } from 'rl-advantages';
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

/**
 * One item of one arm's evaluation, paired across arms by `item_id`. Give exactly one of:
 * `correct` (true = 1, false = 0), `score` (a number, used for every criterion), or `metrics`
 * (a value per metric name, for rules whose criteria use several metrics).
 */
export interface PairedItem {
  /** The item's id; `7` and `"7"` are the same item. */
  readonly item_id: string | number;
  readonly correct?: boolean;
  readonly score?: number;
  readonly metrics?: Readonly<Record<string, number | boolean>>;
}

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
  /** R * sqrt(ln(2k / alpha) / (2n)) (camelCase in the library; a JSON writer may map it to `half_width`). */
  readonly halfWidth: number;
  /** R = (|w_t| + |w_b|) * (hi - lo). */
  readonly range: number;
}

/** The result of {@link decide}. */
export interface Decision {
  readonly method: 'paired_hoeffding';
  /** The family-wise alpha of the rule. */
  readonly alpha: number;
  /** k, the number of criteria; each interval is at alpha / k. */
  readonly comparisons: number;
  /** The number of paired items. */
  readonly n: number;
  readonly verdict: Verdict;
  readonly criteria: readonly CriterionDecision[];
}

type Side = 'treatment' | 'baseline';

interface IndexedItem {
  readonly index: number;
  readonly id: string;
  readonly item: Readonly<Record<string, unknown>>;
}

function itemLabel(side: Side, index: number, id: string): string {
  return `${side}[${index}] (item_id ${JSON.stringify(id)})`;
}

function indexItems(side: Side, items: unknown): Map<string, IndexedItem> {
  if (!Array.isArray(items)) {
    throw new RlAdvantagesError(`${side} must be an array of items, got ${describe(items)}`, {
      code: 'bad_type',
      field: side,
    });
  }
  if (items.length === 0) {
    throw new RlAdvantagesError(`${side} must hold at least one item`, { code: 'empty', field: side });
  }
  const byId = new Map<string, IndexedItem>();
  items.forEach((item: unknown, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      throw new RlAdvantagesError(`${side}[${index}] must be an object { item_id, ... }, got ${describe(item)}`, {
        code: 'bad_item',
        field: side,
        index,
      });
    }
    const raw = (item as Record<string, unknown>).item_id;
    const ok = (typeof raw === 'string' && raw !== '') || (typeof raw === 'number' && Number.isInteger(raw));
    if (!ok) {
      throw new RlAdvantagesError(`${side}[${index}].item_id must be a non-empty string or an integer, got ${describe(raw)}`, {
        code: 'bad_item',
        field: side,
        index,
      });
    }
    const id = String(raw);
    const first = byId.get(id);
    if (first !== undefined) {
      throw new RlAdvantagesError(
        `${itemLabel(side, index, id)} repeats the item_id of ${side}[${first.index}]; each item must appear once per arm`,
        { code: 'duplicate_item', field: side, index },
      );
    }
    const given = ['correct', 'score', 'metrics'].filter((k) => (item as Record<string, unknown>)[k] !== undefined);
    if (given.length !== 1) {
      throw new RlAdvantagesError(
        `${itemLabel(side, index, id)} must give exactly one of correct, score, metrics; got ${given.length === 0 ? 'none' : given.join(', ')}`,
        { code: 'bad_item', field: side, index },
      );
    }
    byId.set(id, { index, id, item: item as Record<string, unknown> });
  });
  return byId;
}

function missingPairs(from: Side, a: Map<string, IndexedItem>, other: Map<string, IndexedItem>): string | undefined {
  const missing = [...a.values()].filter((x) => !other.has(x.id));
  if (missing.length === 0) return undefined;
  const shown = missing.slice(0, 5).map((x) => itemLabel(from, x.index, x.id));
  const more = missing.length > 5 ? ` and ${missing.length - 5} more` : '';
  return `${missing.length} item(s) of ${from} have no pair in ${from === 'treatment' ? 'baseline' : 'treatment'}: ${shown.join(', ')}${more}`;
}

function metricValue(side: Side, entry: IndexedItem, c: DecisionCriterion): number {
  const label = itemLabel(side, entry.index, entry.id);
  const { item } = entry;
  let value: unknown;
  let what: string;
  if (item.metrics !== undefined) {
    if (typeof item.metrics !== 'object' || item.metrics === null || Array.isArray(item.metrics)) {
      throw new RlAdvantagesError(`${label}.metrics must be an object of metric values, got ${describe(item.metrics)}`, {
        code: 'bad_item',
        field: side,
        index: entry.index,
      });
    }
    value = (item.metrics as Record<string, unknown>)[c.metric];
    what = `metrics.${c.metric}`;
    if (value === undefined) {
      throw new RlAdvantagesError(`${label}.metrics has no value for metric ${JSON.stringify(c.metric)} of criterion ${JSON.stringify(c.id)}`, {
        code: 'missing_metric',
        field: side,
        index: entry.index,
      });
    }
  } else if (item.score !== undefined) {
    value = item.score;
    what = 'score';
  } else {
    value = item.correct;
    what = 'correct';
    if (typeof value !== 'boolean') {
      throw new RlAdvantagesError(`${label}.correct must be a boolean, got ${describe(value)}`, {
        code: 'bad_item',
        field: side,
        index: entry.index,
      });
    }
  }
  const y = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  if (typeof y !== 'number' || !Number.isFinite(y)) {
    throw new RlAdvantagesError(`${label}.${what} must be a finite number, got ${describe(value)}`, {
      code: 'non_finite',
      field: side,
      index: entry.index,
    });
  }
  const [lo, hi] = c.bounds;
  if (y < lo || y > hi) {
    throw new RlAdvantagesError(
      `${label}.${what} is ${y}, outside the bounds [${lo}, ${hi}] of criterion ${JSON.stringify(c.id)} (metric ${JSON.stringify(c.metric)})`,
      { code: 'out_of_bounds', field: side, index: entry.index },
    );
  }
  return y;
}

/**
 * Decides a study with its `decision_rule` (method `paired_hoeffding`, METHOD section 5). Items of the two arms
 * are paired by `item_id`; for criterion c with bounds [lo, hi] and weights w_t, w_b, item i gives
 * d_i = w_t * y_t,i + w_b * y_b,i in a range of width R = (|w_t| + |w_b|) * (hi - lo). With n pairs and k criteria
 * (Bonferroni, alpha / k each) the interval is mean(d) +- R * sqrt(ln(2k / alpha) / (2n)), and with margin m
 * ("larger favors treatment") the criterion is `validated` if lower > m, `failed` if upper < m, else
 * `inconclusive`. The overall verdict is `validated` only if every criterion is, `failed` if any is.
 *
 * The other direction ("smaller favors treatment") is expressed with the weights: treatment -1, baseline 1.
 *
 * Result keys are camelCase (`halfWidth`); a JSON writer may map them to snake_case.
 *
 * @param decisionRule - the spec's validated `decision_rule` (`loadStudySpec(...).decisionRule`); it is validated
 *   again here, so an unchecked object cast to `DecisionRule` is still caught.
 * @param treatmentItems - the treatment arm's items, each `{ item_id, correct }`, `{ item_id, score }` or
 *   `{ item_id, metrics: { [metric]: value } }`.
 * @param baselineItems - the baseline arm's items, same forms.
 * @throws {StudySpecError} (`invalid_spec`) for an invalid rule. {@link RlAdvantagesError} naming the side,
 *   index and item id: `missing_pair` (an id on one side only), `duplicate_item`, `out_of_bounds` (a value outside
 *   the criterion's bounds), `missing_metric`, `non_finite`, `bad_item`, `empty`.
 * @example
 * ```ts
 * import { decide, parseDecisionRule } from 'rl-advantages';
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
): Decision {
  const rule = parseDecisionRule(decisionRule);
  const treatment = indexItems('treatment', treatmentItems);
  const baseline = indexItems('baseline', baselineItems);
  const problems = [missingPairs('treatment', treatment, baseline), missingPairs('baseline', baseline, treatment)].filter(
    (x): x is string => x !== undefined,
  );
  if (problems.length > 0) {
    throw new RlAdvantagesError(`items must pair one-to-one by item_id: ${problems.join('; ')}`, {
      code: 'missing_pair',
      field: treatment.size >= baseline.size ? 'treatment' : 'baseline',
    });
  }
  // Pairs in treatment order: the sum, and so the estimate, is deterministic for a given input.
  const pairs = [...treatment.values()].map((t) => [t, baseline.get(t.id) as IndexedItem] as const);
  const n = pairs.length;
  const k = rule.criteria.length;
  const criteria = rule.criteria.map((c): CriterionDecision => {
    const range = criterionRange(c);
    const d = new Float64Array(n);
    pairs.forEach(([t, b], i) => {
      d[i] = c.weights.treatment * metricValue('treatment', t, c) + c.weights.baseline * metricValue('baseline', b, c);
    });
    const iv = pairedHoeffding({ differences: d, range, alpha: rule.alpha, comparisons: k });
    const verdict = criterionVerdict({ lower: iv.lower, upper: iv.upper, margin: c.margin });
    return {
      id: c.id,
      metric: c.metric,
      estimate: iv.estimate,
      lower: iv.lower,
      upper: iv.upper,
      margin: c.margin,
      verdict,
      halfWidth: iv.halfWidth,
      range,
    };
  });
  return {
    method: 'paired_hoeffding',
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
  alpha: number;
  n: number;
  verdict: Verdict;
  criteria: { id: string; metric: string; estimate: number; lower: number; upper: number; margin: number; verdict: Verdict }[];
}

/**
 * The plain JSON form of a decision:
 * `{method, alpha, n, verdict, criteria: [{id, metric, estimate, lower, upper, margin, verdict}]}`.
 *
 * @example
 * ```ts
 * console.log(JSON.stringify(decisionJson(decide(spec.decisionRule, treatment, baseline))));
 * ```
 */
export function decisionJson(d: Decision): DecisionJson {
  return {
    method: d.method,
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
