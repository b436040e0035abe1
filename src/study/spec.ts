// Loading and validating a study spec (the JSON of specs/gs1-vs-grpo.json).
// Only the sections the tool reads are validated; every other section is kept untouched in `raw`.
import { specFromWire } from '../estimators/catalogue-json.js';
import { KERNEL_NAME_PREFIX } from '../kernels/resolve.js';
import { parseEstimatorName } from '../estimators/registry.js';
import { resolveEstimator, type EstimatorSpec } from '../estimators/spec.js';
import { describe } from '../internal/validate.js';

import { collectDecisionRule, type DecisionRule } from '../stats/decision-rule.js';
import { collectComparisons, type StudyComparison } from './comparisons.js';
import { collectKernelArmProblems, isStudyKernelName } from './kernel-arm-spec.js';
import { collectLrGrid } from './lr-grid.js';
import { finiteNumber, isObject, key, nonEmptyString, optionalInteger, pathPartName, Problems, StudySpecError } from '../internal/spec-problems.js';

export { StudySpecError, type SpecProblem } from '../internal/spec-problems.js';
export { parseDecisionRule, type DecisionCriterion, type DecisionRule } from '../stats/decision-rule.js';

/**
 * The prefix of an arm advantage that names a kernel file (`kernel:PATH`, PATH relative to the spec file): the
 * same constant as `KERNEL_NAME_PREFIX` (one definition, src/kernels/resolve.ts).
 */
export const KERNEL_PREFIX: typeof KERNEL_NAME_PREFIX = KERNEL_NAME_PREFIX;

/** The largest spec file read: 16 MiB (a spec is a page of JSON; checked before reading, with the file's kind). */
export const SPEC_FILE_MAX_BYTES = 16 * 1024 * 1024;



/** One check of the activation gate (docs/method.md section 6): `min` and/or `max`, inclusive. */
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
  /**
   * An estimator name of docs/method.md section 2, e.g. `group_mean` or `tfidf_kernel_loo_T0.1`, or `kernel:PATH` (a
   * kernel file, PATH relative to the spec file). For an arm whose `advantage` is a wire object (`{"name":
   * "tfidf_kernel_loo", "temperature": 0.1}`), its canonical name; the object is `advantageSpec`.
   */
  readonly advantage: string;
  /** The estimator spec (camelCase keys) when the spec's `advantage` is an object; results and logs carry `advantage`. */
  readonly advantageSpec?: EstimatorSpec;
  readonly group_size?: number;
  readonly groups_per_batch?: number;
  readonly lr?: number;
  /** Learning rates to train at, each its own run, one picked on held-out train by the spec's `lr_selection` (lr-grid.ts). */
  readonly lr_grid?: readonly number[];
  readonly seed?: number;
  readonly steps?: number;
  readonly [key: string]: unknown;
}

/** A loaded study spec: the three validated sections, plus the whole spec object untouched. */
export interface StudySpec {
  readonly decisionRule: DecisionRule;
  readonly activationGate: ActivationGate;
  readonly arms: readonly StudyArm[];
  /**
   * `decision_rule.comparisons`, when the spec gives them (two or more arms, each in a comparison); absent: the
   * two-arm study (the kernel arm against the `group_mean` arm).
   */
  readonly comparisons?: readonly StudyComparison[];
  /** The full spec object as given (every section, including those the tool does not read). */
  readonly raw: Readonly<Record<string, unknown>>;
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

/** An estimator name createEstimator accepts (docs/method.md section 2), or `kernel:PATH` (a kernel file), or the reason it is refused. */
function advantageNameProblem(name: string): string | undefined {
  // `tuned_kernel` and `oracle_cell_kernel`: the run's own kernels (kernel-arm-spec.ts).
  if (isStudyKernelName(name)) return undefined;
  if (name.startsWith(KERNEL_NAME_PREFIX)) {
    return name.slice(KERNEL_NAME_PREFIX.length).trim() === '' ? `"${name}" names no kernel file: write kernel:PATH, PATH relative to the spec file` : undefined;
  }
  try {
    parseEstimatorName(name);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * The learning curve of the `eval` section, when given: `curve_items` (the first N test items) and `curve_every`
 * (steps between the curve's evals), integers >= 1, both or neither.
 */
function collectCurve(p: Problems, value: unknown): void {
  if (!isObject(value)) return;
  optionalInteger(p, 'eval.curve_items', value.curve_items, 1);
  optionalInteger(p, 'eval.curve_every', value.curve_every, 1);
  if ((value.curve_items === undefined) !== (value.curve_every === undefined)) {
    p.add(value.curve_items === undefined ? 'eval.curve_items' : 'eval.curve_every', 'must be given with the other: the learning curve needs curve_items and curve_every');
  }
}

/**
 * `estimator_modules`, when given: ES modules (paths relative to the spec file) whose default export is an estimator
 * descriptor or an array of them; `rl-adv study` registers them before it reads the arms.
 */
function collectEstimatorModules(p: Problems, value: unknown): void {
  if (value === undefined) return;
  if (!Array.isArray(value)) {
    p.add('estimator_modules', `must be an array of module paths (relative to the spec file), got ${describe(value)}`);
    return;
  }
  value.forEach((file, i) => {
    if (typeof file !== 'string' || file.trim() === '') p.add(`estimator_modules[${i}]`, `must be a non-empty path, got ${describe(file)}`);
  });
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
    const name = pathPartName(p, `${at}.name`, arm.name);
    if (name !== undefined) {
      const first = seen.get(name);
      if (first !== undefined) p.add(`${at}.name`, `${JSON.stringify(name)} repeats the name of ${path}[${first}]`);
      else seen.set(name, i);
    }
    let advantage: string | undefined;
    let advantageSpec: EstimatorSpec | undefined;
    if (isObject(arm.advantage)) {
      try {
        advantageSpec = specFromWire(arm.advantage, `${at}.advantage`) as EstimatorSpec;
        advantage = resolveEstimator(advantageSpec).name;
      } catch (error) {
        p.add(`${at}.advantage`, `must be an estimator of docs/method.md section 2 as {"name", parameters in snake_case}: ${(error as Error).message}`);
      }
    } else if (typeof arm.advantage !== 'string') {
      p.add(`${at}.advantage`, `must be an estimator name or an object {"name", parameters in snake_case}, got ${describe(arm.advantage)}`);
    } else {
      const problem = advantageNameProblem(arm.advantage);
      if (problem === undefined) advantage = arm.advantage;
      else p.add(`${at}.advantage`, `must name an estimator of docs/method.md section 2 or a kernel file (kernel:PATH): ${problem}`);
    }
    optionalInteger(p, `${at}.group_size`, arm.group_size, 1);
    optionalInteger(p, `${at}.groups_per_batch`, arm.groups_per_batch, 1);
    optionalInteger(p, `${at}.steps`, arm.steps, 1);
    optionalInteger(p, `${at}.seed`, arm.seed, 0);
    if (arm.lr !== undefined && (typeof arm.lr !== 'number' || !Number.isFinite(arm.lr) || arm.lr <= 0)) {
      p.add(`${at}.lr`, `must be a finite number > 0, got ${describe(arm.lr)}`);
    }
    // rloo needs another rollout of the same group (docs/method.md section 2): a group of one is an error there.
    if (advantage === 'rloo' && arm.group_size === 1) {
      p.add(`${at}.group_size`, 'must be >= 2 for advantage "rloo" (a group of one has no other rollout)');
    }
    if (name !== undefined && advantage !== undefined) arms.push({ ...arm, name, advantage, ...(advantageSpec === undefined ? {} : { advantageSpec }) });
  });
  if (p.list.length > before) return undefined;
  return arms;
}


/**
 * Validates an `activation_gate` section (docs/method.md section 6) and returns it typed.
 *
 * Checks: `applicable`, when given, is a boolean (absent means `true`); `checks` is an array (non-empty when
 * applicable) whose entries have a non-empty `metric` and a finite `min` and/or `max` with min <= max.
 *
 * @param value - the parsed section.
 * @param path - JSON path prefix used in problem messages (default `activation_gate`).
 * @throws {StudySpecError} (`code` `invalid_spec`) listing every problem with its path.
 * @example
 * ```ts
 * import { parseActivationGate } from 'rl-advantages/study';
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
 * Checks: a non-empty array; each arm has a unique `name` that is a safe path part (1 to 64 characters of
 * `A-Z a-z 0-9 _ - .`, not starting with `.`: it names the arm's folders and files) and an `advantage` naming an estimator of
 * docs/method.md section 2 (`group_mean`, `loo_batch_mean`, `group_mean_std`, `rloo`, `kernel_loo`, `length_bucket_loo`,
 * or `tfidf_kernel_loo_T<T>` with T > 0); `group_size`, `groups_per_batch`, `steps` are integers >= 1 and `seed`
 * an integer >= 0 when given; `lr` > 0 when given; `rloo` arms do not have `group_size` 1.
 *
 * @param value - the parsed section.
 * @param path - JSON path prefix used in problem messages (default `arms`).
 * @throws {StudySpecError} (`code` `invalid_spec`) listing every problem with its path.
 * @example
 * ```ts
 * import { parseArms } from 'rl-advantages/study';
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
 * import { loadStudySpec } from 'rl-advantages/study';
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
  const rawRule = isObject(value.decision_rule) ? value.decision_rule : {};
  const comparisons = arms === undefined ? undefined : collectComparisons(p, rawRule.comparisons, arms.map((a) => a.name), decisionRule?.criteria);
  collectEstimatorModules(p, value.estimator_modules);
  collectCurve(p, value.eval);
  collectLrGrid(p, value);
  if (arms !== undefined) collectKernelArmProblems(p, value, arms);
  p.throwIfAny();
  return {
    decisionRule: decisionRule as DecisionRule,
    activationGate: activationGate as ActivationGate,
    arms: arms as StudyArm[],
    ...(comparisons === undefined ? {} : { comparisons }),
    raw: value,
  };
}
