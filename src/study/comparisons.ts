// The comparisons of a study with two or more arms (`decision_rule.comparisons`, docs/study.md "Several arms"):
// which arm is compared with which, how (non-inferiority with a margin, or superiority), on which metric. Each
// comparison becomes a one-criterion decision rule (weights treatment 1, reference -1; superiority is margin 0), so
// it is decided by the same code as a two-arm study (docs/method.md sections 5.8 and 5.10).
import type { DecisionCriterion, DecisionRule } from '../stats/decision-rule.js';
import { describe } from '../internal/validate.js';
import { didYouMean } from '../internal/suggest.js';
import { finiteNumber, isObject, key, nonEmptyString, pathPartName, type Problems } from '../internal/spec-problems.js';

/** The kinds of comparison. */
export const COMPARISON_KINDS = ['non_inferiority', 'superiority'] as const;
export type ComparisonKind = (typeof COMPARISON_KINDS)[number];

/** One comparison of `decision_rule.comparisons`, validated. */
export interface StudyComparison {
  readonly id: string;
  /** The arm whose advantage is claimed (larger favours it). */
  readonly treatment: string;
  /** The arm it is compared with. */
  readonly reference: string;
  readonly kind: ComparisonKind;
  /** Non-inferiority: the spec's margin (validated when the interval's lower end is above it); superiority: 0. */
  readonly margin: number;
  /** The metric, one of `decision_rule.criteria`'s (its bounds are the comparison's). */
  readonly metric: string;
  /** Why a non-inferiority margin is 0 or above, when the spec says (`margin_reason`); absent otherwise. */
  readonly margin_reason?: string;
}

/** The fields a comparison may have; any other is refused by name (a typo such as `marign` never passes unread). */
export const COMPARISON_FIELDS = ['id', 'treatment', 'reference', 'kind', 'margin', 'margin_reason', 'metric'] as const;

/** Refuses every field of a comparison that is not one of {@link COMPARISON_FIELDS}, naming it. */
function refuseUnknownFields(p: Problems, at: string, value: Record<string, unknown>): void {
  const known: readonly string[] = COMPARISON_FIELDS;
  for (const name of Object.keys(value)) {
    if (!known.includes(name)) p.add(key(at, name), `is not a field of a comparison${didYouMean(name, known)}; the fields are ${known.join(', ')}`);
  }
}

/**
 * The margin of a comparison: absent for superiority (0); for non-inferiority a finite number below 0 (how much worse
 * the treatment may be), or 0 or above only with `margin_reason`, a non-empty string saying why.
 */
function collectMargin(p: Problems, at: string, kind: unknown, value: Record<string, unknown>): { margin?: number; reason?: string } {
  const reason = value.margin_reason === undefined ? undefined : nonEmptyString(p, key(at, 'margin_reason'), value.margin_reason);
  if (kind === 'superiority') {
    if (value.margin !== undefined) p.add(key(at, 'margin'), 'must be absent for a superiority comparison (its margin is 0: validated when the interval is above 0)');
    if (value.margin_reason !== undefined) p.add(key(at, 'margin_reason'), 'must be absent for a superiority comparison (it has no margin)');
    return { margin: 0 };
  }
  if (kind !== 'non_inferiority') return { margin: 0 };
  const margin = finiteNumber(p, key(at, 'margin'), value.margin);
  if (margin !== undefined && margin >= 0 && value.margin_reason === undefined) {
    p.add(
      key(at, 'margin'),
      `must be below 0 for a non-inferiority comparison (how much worse the treatment may be: -0.05 allows 5 points), got ${margin}; ` +
        'a margin of 0 or above claims more than non-inferiority: use kind "superiority", or say why in margin_reason',
    );
  }
  return { ...(margin === undefined ? {} : { margin }), ...(reason === undefined ? {} : { reason }) };
}

function collectOne(p: Problems, at: string, value: unknown, arms: ReadonlySet<string>, criteria: readonly DecisionCriterion[]): StudyComparison | undefined {
  if (!isObject(value)) {
    p.add(at, `must be an object {id, treatment, reference, kind, margin, metric}, got ${describe(value)}`);
    return undefined;
  }
  const before = p.list.length;
  refuseUnknownFields(p, at, value);
  const id = pathPartName(p, key(at, 'id'), value.id);
  const armOf = (field: 'treatment' | 'reference'): string | undefined => {
    const name = nonEmptyString(p, key(at, field), value[field]);
    if (name !== undefined && !arms.has(name)) p.add(key(at, field), `${JSON.stringify(name)} is not an arm (arms: ${[...arms].join(', ')})`);
    return name;
  };
  const treatment = armOf('treatment');
  const reference = armOf('reference');
  if (treatment !== undefined && treatment === reference) p.add(key(at, 'reference'), `must differ from the treatment (${JSON.stringify(treatment)})`);
  const kind = value.kind;
  if (typeof kind !== 'string' || !(COMPARISON_KINDS as readonly string[]).includes(kind)) {
    p.add(key(at, 'kind'), `must be "non_inferiority" or "superiority", got ${describe(kind)}`);
  }
  const { margin, reason } = collectMargin(p, at, kind, value);
  const metric = nonEmptyString(p, key(at, 'metric'), value.metric);
  if (metric !== undefined && !criteria.some((c) => c.metric === metric)) {
    p.add(key(at, 'metric'), `${JSON.stringify(metric)} is the metric of no decision_rule.criteria entry (its bounds are needed)`);
  }
  if (p.list.length > before) return undefined;
  return {
    id: id as string,
    treatment: treatment as string,
    reference: reference as string,
    kind: kind as ComparisonKind,
    margin: margin as number,
    metric: metric as string,
    ...(reason === undefined ? {} : { margin_reason: reason }),
  };
}

/**
 * Validates `decision_rule.comparisons` against the arms: each comparison has only the fields of
 * {@link COMPARISON_FIELDS}, an id that is a safe path part, two different arms of the spec, a kind, a margin exactly
 * when the kind is non-inferiority (below 0, or 0 and above with a `margin_reason`), and a metric of the rule's
 * criteria; ids are unique; one comparison per ordered pair (treatment, reference); and every arm is in at least one
 * comparison (an arm in none would train for nothing). Without the field a spec must have
 * exactly two arms (today's meaning: the kernel arm against the `group_mean` arm).
 *
 * @returns the comparisons, or undefined (absent or invalid; problems added to `p`).
 */
export function collectComparisons(p: Problems, value: unknown, armNames: readonly string[], criteria: readonly DecisionCriterion[] | undefined): StudyComparison[] | undefined {
  const path = 'decision_rule.comparisons';
  if (value === undefined) {
    if (armNames.length > 2) p.add('arms', `holds ${armNames.length} arms: a spec with more than 2 arms needs decision_rule.comparisons (which arm is compared with which)`);
    return undefined;
  }
  if (!Array.isArray(value) || value.length === 0) {
    p.add(path, `must be a non-empty array of comparisons {id, treatment, reference, kind, margin, metric}, got ${describe(value)}`);
    return undefined;
  }
  const before = p.list.length;
  const arms = new Set(armNames);
  const out: StudyComparison[] = [];
  const ids = new Map<string, number>();
  const pairs = new Map<string, number>();
  value.forEach((item, i) => {
    const c = collectOne(p, `${path}[${i}]`, item, arms, criteria ?? []);
    if (c === undefined) return;
    const first = ids.get(c.id);
    if (first !== undefined) p.add(`${path}[${i}].id`, `${JSON.stringify(c.id)} repeats the id of ${path}[${first}]`);
    else ids.set(c.id, i);
    const pair = JSON.stringify([c.treatment, c.reference]);
    const same = pairs.get(pair);
    if (same !== undefined) {
      p.add(`${path}[${i}]`, `compares ${JSON.stringify(c.treatment)} with ${JSON.stringify(c.reference)} again, as ${path}[${same}] does: one comparison per ordered pair (treatment, reference)`);
    } else pairs.set(pair, i);
    out.push(c);
  });
  if (p.list.length > before) return undefined;
  const used = new Set(out.flatMap((c) => [c.treatment, c.reference]));
  armNames.forEach((name, i) => {
    if (!used.has(name)) p.add(`arms[${i}].name`, `${JSON.stringify(name)} is in no comparison of ${path}`);
  });
  return p.list.length > before ? undefined : out;
}

/**
 * The one-criterion decision rule of a comparison at family level `alpha` for one test: the rule's method, seed
 * method and seeds, the comparison's metric with the bounds of the rule's criterion on that metric, weights
 * treatment 1 and reference -1, the comparison's margin (0 for superiority).
 *
 * @example
 * ```ts
 * comparisonRule(spec.decisionRule, { id: 'gs1_vs_grpo', treatment: 'gs1', reference: 'grpo', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' }, 0.025);
 * ```
 */
export function comparisonRule(rule: DecisionRule, c: StudyComparison, alpha: number): DecisionRule {
  const base = rule.criteria.find((x) => x.metric === c.metric) ?? rule.criteria[0];
  const criterion: DecisionCriterion = { id: c.id, metric: c.metric, bounds: base?.bounds ?? [0, 1], margin: c.margin, weights: { treatment: 1, baseline: -1 } };
  return { ...rule, alpha, criteria: [criterion] };
}
