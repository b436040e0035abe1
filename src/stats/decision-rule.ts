// The decision_rule section of a study spec, its types and parser (docs/method.md section 5); src/study/spec.ts
// validates the rest of the spec and imports this.
import { describe } from '../internal/validate.js';
import { isBinaryDifference, type DecisionCriterion } from './criteria.js';
import { BINARY_DECISION_METHODS, DECISION_METHOD_NAMES, isDecisionMethodName, type DecisionMethodName } from './method-names.js';
import { finiteNumber, isObject, key, nonEmptyString, Problems } from '../internal/spec-problems.js';
import { isSeedMethodName, SEED_METHOD_NAMES, type SeedMethodName } from './seed-method-names.js';

export type { DecisionCriterion } from './criteria.js';

/** The `decision_rule` section of a spec, validated. Unvalidated keys (`estimand`, `seeds`, ...) are kept. */
export interface DecisionRule {
  /**
   * The decision method (docs/method.md section 5): `paired_hoeffding` (the spec's), `paired_empirical_bernstein`,
   * `paired_exact_binomial`, `paired_exact_unconditional`, `paired_tango` (asymptotic), `paired_newcombe` (asymptotic); the last four for
   * 0/1 outcomes.
   */
  readonly method: DecisionMethodName;
  /** Family-wise two-sided error rate, split over the criteria by Bonferroni. */
  readonly alpha: number;
  readonly criteria: readonly DecisionCriterion[];
  /** The pairing unit; the only one implemented is `fixed_checkpoint_items` (pairs by item id). */
  readonly unit?: string;
  /**
   * The seed-level method for a decision across training seeds (docs/method.md section 5.8): `seed_item_t` (the
   * default when absent) or `seed_t`.
   */
  readonly seed_method?: SeedMethodName;
  /**
   * Which items each seed was evaluated on (docs/method.md section 5.8): `shared` (the default: the same items, paired
   * across seeds) or `per_seed` (each seed its own items, e.g. fresh test items or a subsample per seed: decided by a t
   * on the per-seed means).
   */
  readonly seed_items?: 'shared' | 'per_seed';
  /** The training seeds, distinct integers, when given. */
  readonly seeds?: readonly number[];
  readonly [key: string]: unknown;
}

function collectCriterion(p: Problems, path: string, value: unknown): DecisionCriterion | undefined {
  if (!isObject(value)) {
    p.add(path, `must be an object, got ${describe(value)}`);
    return undefined;
  }
  const before = p.list.length;
  const id = nonEmptyString(p, key(path, 'id'), value.id);
  const metric = nonEmptyString(p, key(path, 'metric'), value.metric);
  const margin = finiteNumber(p, key(path, 'margin'), value.margin);

  let bounds: [number, number] | undefined;
  const b = value.bounds;
  if (!Array.isArray(b) || b.length !== 2) {
    p.add(key(path, 'bounds'), `must be an array [lo, hi] of two finite numbers, got ${describe(b)}`);
  } else {
    const lo = finiteNumber(p, `${key(path, 'bounds')}[0]`, b[0]);
    const hi = finiteNumber(p, `${key(path, 'bounds')}[1]`, b[1]);
    if (lo !== undefined && hi !== undefined) {
      if (lo < hi) bounds = [lo, hi];
      else p.add(key(path, 'bounds'), `must have lo < hi, got [${lo}, ${hi}]`);
    }
  }

  let weights: { treatment: number; baseline: number } | undefined;
  const w = value.weights;
  if (!isObject(w)) {
    p.add(key(path, 'weights'), `must be an object { treatment, baseline }, got ${describe(w)}`);
  } else {
    const t = finiteNumber(p, key(key(path, 'weights'), 'treatment'), w.treatment);
    const bl = finiteNumber(p, key(key(path, 'weights'), 'baseline'), w.baseline);
    if (t !== undefined && bl !== undefined) {
      // Both zero makes d_i = 0 for every item and R = 0: nothing is being compared.
      if (t === 0 && bl === 0) p.add(key(path, 'weights'), 'must not be all zero');
      else weights = { treatment: t, baseline: bl };
    }
  }

  // docs/method.md section 5 defines one direction only. A spec that says otherwise would silently get the
  // opposite verdict, so it is an error; the weights express the other direction (treatment -1, baseline 1).
  if (value.direction !== undefined && value.direction !== 'larger_favors_treatment') {
    p.add(
      key(path, 'direction'),
      `must be "larger_favors_treatment" (the only direction docs/method.md section 5 defines; negate the weights for the other), got ${describe(value.direction)}`,
    );
  }

  if (p.list.length > before || id === undefined || metric === undefined || margin === undefined) return undefined;
  if (bounds === undefined || weights === undefined) return undefined;
  return { ...value, id, metric, bounds, margin, weights };
}

/** `seeds`, when given: a non-empty array of distinct integers. */
function collectSeeds(p: Problems, path: string, seeds: unknown): void {
  if (seeds === undefined) return;
  if (!Array.isArray(seeds) || seeds.length === 0) {
    p.add(path, `must be a non-empty array of distinct integer seeds, got ${describe(seeds)}`);
    return;
  }
  const seen = new Map<number, number>();
  seeds.forEach((s: unknown, i) => {
    if (typeof s !== 'number' || !Number.isSafeInteger(s)) {
      p.add(`${path}[${i}]`, `must be an integer seed, got ${describe(s)}`);
      return;
    }
    const first = seen.get(s);
    if (first !== undefined) p.add(`${path}[${i}]`, `repeats the seed ${s} of ${path}[${first}]`);
    else seen.set(s, i);
  });
}

export function collectDecisionRule(p: Problems, path: string, value: unknown): DecisionRule | undefined {
  if (!isObject(value)) {
    p.add(path, `must be an object, got ${describe(value)}`);
    return undefined;
  }
  const before = p.list.length;
  const method = value.method;
  if (!isDecisionMethodName(method)) {
    p.add(key(path, 'method'), `must be one of ${DECISION_METHOD_NAMES.map((m) => `"${m}"`).join(', ')} (docs/method.md section 5), got ${describe(method)}`);
  }
  const alpha = value.alpha;
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0 || alpha >= 1) {
    p.add(key(path, 'alpha'), `must be a number in (0, 1), got ${describe(alpha)}`);
  }
  // Pairing by item id is the only pairing implemented; another unit would be decided wrongly.
  if (value.unit !== undefined && value.unit !== 'fixed_checkpoint_items') {
    p.add(key(path, 'unit'), `must be "fixed_checkpoint_items" (items paired by item id), got ${describe(value.unit)}`);
  }
  if (value.seed_method !== undefined && !isSeedMethodName(value.seed_method)) {
    p.add(key(path, 'seed_method'), `must be one of ${SEED_METHOD_NAMES.map((m) => `"${m}"`).join(', ')} (docs/method.md section 5.8), got ${describe(value.seed_method)}`);
  }
  if (value.seed_items !== undefined && value.seed_items !== 'shared' && value.seed_items !== 'per_seed') {
    p.add(key(path, 'seed_items'), `must be "shared" (every seed on the same items) or "per_seed" (each seed its own items), got ${describe(value.seed_items)}`);
  }
  collectSeeds(p, key(path, 'seeds'), value.seeds);
  const criteria: DecisionCriterion[] = [];
  const c = value.criteria;
  if (!Array.isArray(c)) {
    p.add(key(path, 'criteria'), `must be a non-empty array of criteria, got ${describe(c)}`);
  } else if (c.length === 0) {
    p.add(key(path, 'criteria'), 'must not be empty');
  } else {
    const seen = new Map<string, number>();
    c.forEach((item, i) => {
      const at = `${key(path, 'criteria')}[${i}]`;
      const parsed = collectCriterion(p, at, item);
      if (parsed === undefined) return;
      const first = seen.get(parsed.id);
      if (first !== undefined) {
        p.add(`${at}.id`, `${JSON.stringify(parsed.id)} repeats the id of ${key(path, 'criteria')}[${first}]`);
      } else seen.set(parsed.id, i);
      criteria.push(parsed);
      // The exact method counts discordant 0/1 pairs: d_i must be y_t - y_b or its negative.
      if (isDecisionMethodName(method) && BINARY_DECISION_METHODS.includes(method) && !isBinaryDifference(parsed)) {
        p.add(
          `${at}.weights`,
          `must be { treatment: 1, baseline: -1 } or { treatment: -1, baseline: 1 } for ${method} (a difference of 0/1 outcomes), got (${parsed.weights.treatment}, ${parsed.weights.baseline})`,
        );
      }
    });
  }
  if (p.list.length > before) return undefined;
  return { ...value, method: method as DecisionMethodName, alpha: alpha as number, criteria };
}

/**
 * Validates a `decision_rule` section (docs/method.md section 5) and returns it typed, with unvalidated keys kept.
 *
 * Checks: `method` is one of `paired_hoeffding`, `paired_empirical_bernstein`, `paired_exact_binomial`,
 * `paired_exact_unconditional`, `paired_tango` (the last three only for criteria with weights (1, -1) or (-1, 1)); `alpha` in (0, 1); `unit`, when given, is `fixed_checkpoint_items`;
 * `seed_method`, when given, is `seed_item_t` or `seed_t`; `seeds`, when given, is a non-empty array of distinct integers;
 * `criteria` is a non-empty array of criteria with unique `id`, a `metric` name, `bounds` [lo, hi] with lo < hi,
 * a finite `margin`, and finite `weights.treatment` / `weights.baseline`, not both zero.
 *
 * @param value - the parsed section.
 * @param path - JSON path prefix used in problem messages (default `decision_rule`; `''` for none).
 * @throws {StudySpecError} (`code` `invalid_spec`) listing every problem with its path.
 * @example
 * ```ts
 * import { parseDecisionRule } from 'rl-advantages/stats';
 * const rule = parseDecisionRule({
 *   method: 'paired_hoeffding', alpha: 0.05,
 *   criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
 * });
 * console.log(rule.criteria[0]?.margin); // -0.05
 * ```
 */
export function parseDecisionRule(value: unknown, path = 'decision_rule'): DecisionRule {
  const p = new Problems();
  const rule = collectDecisionRule(p, path, value);
  p.throwIfAny('decision rule');
  return rule as DecisionRule;
}
