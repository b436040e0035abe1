// Loading and validating a study spec (the JSON of shared/seed/gs1-vs-grpo.spec.json).
// Only the sections the tool reads are validated; every other section is kept untouched in `raw`.
import { parseEstimatorName } from '../estimators/registry.js';
import { describe } from '../internal/validate.js';
import { finiteNumber, isObject, key, nonEmptyString, optionalInteger, Problems, StudySpecError } from './spec-problems.js';

export { StudySpecError, type SpecProblem } from './spec-problems.js';

/** The prefix of an arm advantage that names a kernel file (`kernel:PATH`, PATH relative to the spec file). */
export const KERNEL_PREFIX = 'kernel:';

/** A criterion of a `paired_hoeffding` decision rule (METHOD section 5). */
export interface DecisionCriterion {
  /** Unique name of the criterion, e.g. `primary`. */
  readonly id: string;
  /** The per-item metric the criterion compares, e.g. `accuracy`. */
  readonly metric: string;
  /** Inclusive bounds [lo, hi] that every per-item metric value lies in. */
  readonly bounds: readonly [number, number];
  /** The margin m: validated if lower > m, failed if upper < m (larger favors treatment). */
  readonly margin: number;
  /** d_i = treatment * y_t,i + baseline * y_b,i. */
  readonly weights: { readonly treatment: number; readonly baseline: number };
  /** Any other keys the spec gave, kept as-is. */
  readonly [key: string]: unknown;
}

/** The `decision_rule` section of a spec, validated. Unvalidated keys (`estimand`, `seeds`, ...) are kept. */
export interface DecisionRule {
  readonly method: 'paired_hoeffding';
  /** Family-wise two-sided error rate, split over the criteria by Bonferroni. */
  readonly alpha: number;
  readonly criteria: readonly DecisionCriterion[];
  /** The pairing unit; the only one implemented is `fixed_checkpoint_items` (pairs by item id). */
  readonly unit?: string;
  readonly [key: string]: unknown;
}

/** One check of the activation gate (METHOD section 6): `min` and/or `max`, inclusive. */
export interface GateCheck {
  readonly metric: string;
  readonly min?: number;
  readonly max?: number;
  /** What the metric measures (free text from the spec). */
  readonly measures?: string;
  readonly [key: string]: unknown;
}

/** The `activation_gate` section of a spec, validated. */
export interface ActivationGate {
  /** `false` when the spec declares that no gate applies; `true` when absent. */
  readonly applicable: boolean;
  readonly checks: readonly GateCheck[];
  readonly reason?: string;
  readonly [key: string]: unknown;
}

/** One arm of the study, validated. */
export interface StudyArm {
  readonly name: string;
  /** An estimator name of METHOD section 2, e.g. `group_mean` or `tfidf_kernel_loo_T0.1`, or `kernel:PATH` (a kernel file, PATH relative to the spec file). */
  readonly advantage: string;
  readonly group_size?: number;
  readonly groups_per_batch?: number;
  readonly lr?: number;
  readonly seed?: number;
  readonly steps?: number;
  readonly [key: string]: unknown;
}

/** A loaded study spec: the three validated sections, plus the whole spec object untouched. */
export interface StudySpec {
  readonly decisionRule: DecisionRule;
  readonly activationGate: ActivationGate;
  readonly arms: readonly StudyArm[];
  /** The full spec object as given (every section, including those the tool does not read). */
  readonly raw: Readonly<Record<string, unknown>>;
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

  // METHOD section 5 defines one direction only. A spec that says otherwise would silently get the
  // opposite verdict, so it is an error; the weights express the other direction (treatment -1, baseline 1).
  if (value.direction !== undefined && value.direction !== 'larger_favors_treatment') {
    p.add(
      key(path, 'direction'),
      `must be "larger_favors_treatment" (the only direction METHOD section 5 defines; negate the weights for the other), got ${describe(value.direction)}`,
    );
  }

  if (p.list.length > before || id === undefined || metric === undefined || margin === undefined) return undefined;
  if (bounds === undefined || weights === undefined) return undefined;
  return { ...value, id, metric, bounds, margin, weights };
}

function collectDecisionRule(p: Problems, path: string, value: unknown): DecisionRule | undefined {
  if (!isObject(value)) {
    p.add(path, `must be an object, got ${describe(value)}`);
    return undefined;
  }
  const before = p.list.length;
  if (value.method !== 'paired_hoeffding') {
    p.add(key(path, 'method'), `must be "paired_hoeffding" (the only method implemented), got ${describe(value.method)}`);
  }
  const alpha = value.alpha;
  if (typeof alpha !== 'number' || !Number.isFinite(alpha) || alpha <= 0 || alpha >= 1) {
    p.add(key(path, 'alpha'), `must be a number in (0, 1), got ${describe(alpha)}`);
  }
  // Pairing by item id is the only pairing implemented; another unit would be decided wrongly.
  if (value.unit !== undefined && value.unit !== 'fixed_checkpoint_items') {
    p.add(key(path, 'unit'), `must be "fixed_checkpoint_items" (items paired by item id), got ${describe(value.unit)}`);
  }
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
    });
  }
  if (p.list.length > before) return undefined;
  return { ...value, method: 'paired_hoeffding', alpha: alpha as number, criteria };
}

function collectActivationGate(p: Problems, path: string, value: unknown): ActivationGate | undefined {
  if (!isObject(value)) {
    p.add(path, `must be an object, got ${describe(value)}`);
    return undefined;
  }
  const before = p.list.length;
  if (value.applicable !== undefined && typeof value.applicable !== 'boolean') {
    p.add(key(path, 'applicable'), `must be a boolean, got ${describe(value.applicable)}`);
  }
  const applicable = value.applicable !== false;
  if (value.reason !== undefined && typeof value.reason !== 'string') {
    p.add(key(path, 'reason'), `must be a string, got ${describe(value.reason)}`);
  }
  const checks: GateCheck[] = [];
  const c = value.checks;
  if (!Array.isArray(c)) {
    p.add(key(path, 'checks'), `must be an array of checks, got ${describe(c)}`);
  } else if (c.length === 0 && applicable) {
    // An applicable gate with no checks would pass vacuously, i.e. a relaxed gate.
    p.add(key(path, 'checks'), 'must not be empty when the gate is applicable');
  } else {
    c.forEach((check, i) => {
      const at = `${key(path, 'checks')}[${i}]`;
      if (!isObject(check)) {
        p.add(at, `must be an object, got ${describe(check)}`);
        return;
      }
      const mark = p.list.length;
      const metric = nonEmptyString(p, `${at}.metric`, check.metric);
      const min = check.min === undefined ? undefined : finiteNumber(p, `${at}.min`, check.min);
      const max = check.max === undefined ? undefined : finiteNumber(p, `${at}.max`, check.max);
      if (check.min === undefined && check.max === undefined) p.add(at, 'must have min and/or max');
      if (min !== undefined && max !== undefined && min > max) p.add(at, `has min ${min} > max ${max}`);
      if (check.measures !== undefined && typeof check.measures !== 'string') {
        p.add(`${at}.measures`, `must be a string, got ${describe(check.measures)}`);
      }
      if (p.list.length === mark && metric !== undefined) checks.push({ ...check, metric });
    });
  }
  if (p.list.length > before) return undefined;
  return { ...value, applicable, checks };
}

/** An estimator name createEstimator accepts (METHOD section 2), or `kernel:PATH` (a kernel file), or the reason it is refused. */
function advantageNameProblem(name: string): string | undefined {
  if (name.startsWith(KERNEL_PREFIX)) {
    return name.slice(KERNEL_PREFIX.length).trim() === '' ? `"${name}" names no kernel file: write kernel:PATH, PATH relative to the spec file` : undefined;
  }
  try {
    parseEstimatorName(name);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function collectArms(p: Problems, path: string, value: unknown): StudyArm[] | undefined {
  if (!Array.isArray(value) || value.length === 0) {
    p.add(path, Array.isArray(value) ? 'must not be empty' : `must be a non-empty array of arms, got ${describe(value)}`);
    return undefined;
  }
  const before = p.list.length;
  const arms: StudyArm[] = [];
  const seen = new Map<string, number>();
  value.forEach((arm, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(arm)) {
      p.add(at, `must be an object, got ${describe(arm)}`);
      return;
    }
    const name = nonEmptyString(p, `${at}.name`, arm.name);
    if (name !== undefined) {
      const first = seen.get(name);
      if (first !== undefined) p.add(`${at}.name`, `${JSON.stringify(name)} repeats the name of ${path}[${first}]`);
      else seen.set(name, i);
    }
    let advantage: string | undefined;
    if (typeof arm.advantage !== 'string') {
      p.add(`${at}.advantage`, `must be a string, got ${describe(arm.advantage)}`);
    } else {
      const problem = advantageNameProblem(arm.advantage);
      if (problem === undefined) advantage = arm.advantage;
      else p.add(`${at}.advantage`, `must name an estimator of METHOD section 2 or a kernel file (kernel:PATH): ${problem}`);
    }
    optionalInteger(p, `${at}.group_size`, arm.group_size, 1);
    optionalInteger(p, `${at}.groups_per_batch`, arm.groups_per_batch, 1);
    optionalInteger(p, `${at}.steps`, arm.steps, 1);
    optionalInteger(p, `${at}.seed`, arm.seed, 0);
    if (arm.lr !== undefined && (typeof arm.lr !== 'number' || !Number.isFinite(arm.lr) || arm.lr <= 0)) {
      p.add(`${at}.lr`, `must be a finite number > 0, got ${describe(arm.lr)}`);
    }
    // rloo needs another rollout of the same group (METHOD section 2): a group of one is an error there.
    if (advantage === 'rloo' && arm.group_size === 1) {
      p.add(`${at}.group_size`, 'must be >= 2 for advantage "rloo" (a group of one has no other rollout)');
    }
    if (name !== undefined && advantage !== undefined) arms.push({ ...arm, name, advantage });
  });
  if (p.list.length > before) return undefined;
  return arms;
}

/**
 * Validates a `decision_rule` section (METHOD section 5) and returns it typed, with unvalidated keys kept.
 *
 * Checks: `method` is `paired_hoeffding`; `alpha` in (0, 1); `unit`, when given, is `fixed_checkpoint_items`;
 * `criteria` is a non-empty array of criteria with unique `id`, a `metric` name, `bounds` [lo, hi] with lo < hi,
 * a finite `margin`, and finite `weights.treatment` / `weights.baseline`, not both zero.
 *
 * @param value - the parsed section.
 * @param path - JSON path prefix used in problem messages (default `decision_rule`; `''` for none).
 * @throws {StudySpecError} (`code` `invalid_spec`) listing every problem with its path.
 * @example
 * ```ts
 * import { parseDecisionRule } from 'rl-advantages';
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

/**
 * Validates an `activation_gate` section (METHOD section 6) and returns it typed.
 *
 * Checks: `applicable`, when given, is a boolean (absent means `true`); `checks` is an array (non-empty when
 * applicable) whose entries have a non-empty `metric` and a finite `min` and/or `max` with min <= max.
 *
 * @param value - the parsed section.
 * @param path - JSON path prefix used in problem messages (default `activation_gate`).
 * @throws {StudySpecError} (`code` `invalid_spec`) listing every problem with its path.
 * @example
 * ```ts
 * import { parseActivationGate } from 'rl-advantages';
 * const gate = parseActivationGate({ checks: [{ metric: 'self_weight_max', min: 0, max: 0 }] });
 * console.log(gate.applicable, gate.checks.length); // true 1
 * ```
 */
export function parseActivationGate(value: unknown, path = 'activation_gate'): ActivationGate {
  const p = new Problems();
  const gate = collectActivationGate(p, path, value);
  p.throwIfAny('activation gate');
  return gate as ActivationGate;
}

/**
 * Validates an `arms` section and returns it typed.
 *
 * Checks: a non-empty array; each arm has a unique non-empty `name` and an `advantage` naming an estimator of
 * METHOD section 2 (`group_mean`, `loo_batch_mean`, `group_mean_std`, `rloo`, `kernel_loo`, `length_bucket_loo`,
 * or `tfidf_kernel_loo_T<T>` with T > 0) or a kernel file as `kernel:PATH` (PATH relative to the spec file; the
 * file is read when the study runs); `group_size`, `groups_per_batch`, `steps` are integers >= 1 and `seed`
 * an integer >= 0 when given; `lr` > 0 when given; `rloo` arms do not have `group_size` 1.
 *
 * @param value - the parsed section.
 * @param path - JSON path prefix used in problem messages (default `arms`).
 * @throws {StudySpecError} (`code` `invalid_spec`) listing every problem with its path.
 * @example
 * ```ts
 * import { parseArms } from 'rl-advantages';
 * const arms = parseArms([{ name: 'gs1', advantage: 'tfidf_kernel_loo_T0.1', group_size: 1 }]);
 * console.log(arms[0]?.advantage); // "tfidf_kernel_loo_T0.1"
 * ```
 */
export function parseArms(value: unknown, path = 'arms'): readonly StudyArm[] {
  const p = new Problems();
  const arms = collectArms(p, path, value);
  p.throwIfAny('arms');
  return arms as StudyArm[];
}

/**
 * Loads a study spec (docs/method.md; the format of `shared/seed/gs1-vs-grpo.spec.json`) from JSON text or an
 * already-parsed object, validating the three sections the tool reads (`decision_rule`, `activation_gate`,
 * `arms`) and reporting every problem at once, each with its JSON path. All other sections are kept untouched
 * in `raw`; nothing the user gave is dropped.
 *
 * @param json - the spec as JSON text, or the parsed object.
 * @returns `{ decisionRule, activationGate, arms, raw }`.
 * @throws {StudySpecError} (`code` `invalid_spec`, an `RlAdvantagesError`) when the text is not JSON, the spec
 *   is not an object, or any section is invalid; `problems` lists `{ path, message }` for each.
 * @example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * import { loadStudySpec } from 'rl-advantages';
 * const spec = loadStudySpec(readFileSync('gs1-vs-grpo.spec.json', 'utf8'));
 * console.log(spec.arms.map((a) => a.advantage)); // ["group_mean", "tfidf_kernel_loo_T0.1"]
 * console.log(spec.raw.base_model); // "Qwen/Qwen3.5-2B"
 * ```
 */
export function loadStudySpec(json: unknown): StudySpec {
  let value = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json) as unknown;
    } catch (error) {
      throw new StudySpecError([{ path: '', message: `spec is not valid JSON: ${(error as Error).message}` }]);
    }
  }
  if (!isObject(value)) {
    throw new StudySpecError([{ path: '', message: `spec must be a JSON object, got ${describe(value)}` }]);
  }
  const p = new Problems();
  const decisionRule = collectDecisionRule(p, 'decision_rule', value.decision_rule);
  const activationGate = collectActivationGate(p, 'activation_gate', value.activation_gate);
  const arms = collectArms(p, 'arms', value.arms);
  p.throwIfAny();
  return {
    decisionRule: decisionRule as DecisionRule,
    activationGate: activationGate as ActivationGate,
    arms: arms as StudyArm[],
    raw: value,
  };
}
