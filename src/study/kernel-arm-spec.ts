// The kernel arms of a spec (docs/study.md, "Kernel arms"): the advantage names `tuned_kernel` (the kernel the run's
// own tuning phase selects, which needs the spec's `tuning` section) and `oracle_cell_kernel` (the arith world's true
// difficulty cells, docs/method.md section 2.4.1), the spec's `tuning` section, and which arms are kernel arms.
// Kept apart from spec.ts, which calls collectKernelArmProblems once the arms are read.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { isObject, type Problems } from '../internal/spec-problems.js';
import { KERNEL_NAME_PREFIX } from '../kernels/resolve.js';
import { parseName } from '../estimators/spec.js';

/** The advantage of an arm trained with the kernel the run's tuning phase selects (kernel.json, frozen before the pilot). */
export const TUNED_KERNEL = 'tuned_kernel';
/** The advantage of an arm trained with the oracle kernel on the arith world's difficulty cells (oracle-kernel.json). */
export const ORACLE_CELL_KERNEL = 'oracle_cell_kernel';
/** The study-level kernel names an arm's `advantage` may take besides the estimators and `kernel:PATH`. */
export const STUDY_KERNEL_NAMES: readonly string[] = [TUNED_KERNEL, ORACLE_CELL_KERNEL];

/** The spec's `tuning` section: the tuning phase fixed in the design (tasks, and tune-kernel's batches or null). */
export interface SpecTuning {
  readonly tasks: number;
  readonly batches: number | null;
}

const TUNING_FIELDS = ['tasks', 'batches', 'about'] as const;

/**
 * Whether `name` is one of {@link STUDY_KERNEL_NAMES}.
 *
 * @example
 * ```ts
 * isStudyKernelName('tuned_kernel'); // true
 * ```
 */
export function isStudyKernelName(name: string): boolean {
  return STUDY_KERNEL_NAMES.includes(name);
}

function positiveInteger(p: Problems, path: string, value: unknown): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isInteger(value) && value >= 1)) {
    p.add(path, `must be an integer >= 1, got ${describe(value)}`);
  }
}

/**
 * Checks the spec's `tuning` section and the arms that name a study kernel: a `tuned_kernel` arm needs `tuning` (the
 * tuning phase must be part of the design), an `oracle_cell_kernel` arm a world with cells (`dataset.name` "arith").
 * Problems are added to `p` (each with its field: `tuning.tasks`, `arms[3].advantage`, ...), not thrown.
 *
 * @example
 * ```ts
 * const p = new Problems();
 * collectKernelArmProblems(p, spec.raw, spec.arms);
 * p.throwIfAny();
 * ```
 */
export function collectKernelArmProblems(p: Problems, spec: Readonly<Record<string, unknown>>, arms: readonly { readonly advantage: unknown }[]): void {
  const tuning = spec.tuning;
  if (tuning !== undefined) {
    if (!isObject(tuning)) p.add('tuning', `must be an object {"tasks", "batches"?}, got ${describe(tuning)}`);
    else {
      if (tuning.tasks === undefined) p.add('tuning.tasks', 'is required: how many train tasks the tuning phase samples (one rollout each)');
      positiveInteger(p, 'tuning.tasks', tuning.tasks);
      positiveInteger(p, 'tuning.batches', tuning.batches);
      for (const k of Object.keys(tuning)) {
        if (!(TUNING_FIELDS as readonly string[]).includes(k)) p.add(`tuning.${k}`, `is not a field of tuning (fields: ${TUNING_FIELDS.join(', ')})`);
      }
    }
  }
  const dataset = spec.dataset;
  const cells = isObject(dataset) && dataset.name === 'arith';
  arms.forEach((arm, i) => {
    if (arm.advantage === TUNED_KERNEL && tuning === undefined) {
      p.add(`arms[${i}].advantage`, `"${TUNED_KERNEL}" needs the spec's tuning phase: add "tuning": {"tasks": N} (the kernel is tuned on N train tasks before the pilot)`);
    }
    if (arm.advantage === ORACLE_CELL_KERNEL && !cells) {
      const world = isObject(dataset) && typeof dataset.name === 'string' ? `the ${dataset.name} world` : 'this world (GSM8K or the sim)';
      p.add(`arms[${i}].advantage`, `"${ORACLE_CELL_KERNEL}" needs a world with difficulty cells (dataset.name "arith"); ${world} has none`);
    }
  });
}

/**
 * Refuses the study kernels on a backend that cannot train them: `tuned_kernel` and `oracle_cell_kernel` are files in
 * the run folder, which the TRL drivers and the sim read; the Tinker drivers do not.
 *
 * @throws {RlAdvantagesError} `invalid_spec` naming `arms[i].advantage`.
 * @example
 * ```ts
 * refuseStudyKernelsOn('tinker', spec.arms); // throws for a tuned_kernel arm
 * ```
 */
export function refuseStudyKernelsOn(backend: string, arms: readonly { readonly advantage: string }[]): void {
  if (backend === 'trl' || backend === 'sim') return;
  const i = arms.findIndex((a) => isStudyKernelName(a.advantage));
  if (i >= 0) {
    throw new RlAdvantagesError(`spec field "arms[${i}].advantage": ${arms[i]?.advantage ?? ''} runs on the trl and sim backends only, not --backend ${backend}`, {
      code: 'invalid_spec',
      field: `arms[${i}].advantage`,
    });
  }
}

/**
 * The spec's `tuning` section, when it has one (validated by {@link collectKernelArmProblems}).
 *
 * @example
 * ```ts
 * specTuning({ tuning: { tasks: 700 } }); // { tasks: 700, batches: null }
 * ```
 */
export function specTuning(raw: Readonly<Record<string, unknown>>): SpecTuning | undefined {
  const t = raw.tuning;
  if (!isObject(t)) return undefined;
  return { tasks: t.tasks as number, batches: typeof t.batches === 'number' ? t.batches : null };
}

/**
 * Whether an arm's advantage is a prompt kernel: a kernel estimator (`tfidf_kernel_loo_T<T>`, `length_bucket_loo`,
 * ...), a kernel file (`kernel:PATH`), the tuned kernel or the oracle.
 *
 * @example
 * ```ts
 * isKernelArmAdvantage('loo_batch_mean'); // false
 * isKernelArmAdvantage('oracle_cell_kernel'); // true
 * ```
 */
export function isKernelArmAdvantage(advantage: string): boolean {
  if (isStudyKernelName(advantage) || advantage.startsWith(KERNEL_NAME_PREFIX)) return true;
  // A kernel estimator, as gate-metrics.ts's isKernelAdvantage says (not imported: spec.ts imports this module).
  try {
    return parseName(advantage).descriptor.family === 'kernel';
  } catch {
    return false;
  }
}

/**
 * Whether the run measures its kernel arms (the `kernel_arms` phase and summary.json's `kernel_arms`): the spec has a
 * `tuning` section or an arm that is a kernel file, the tuned kernel, the oracle or `length_bucket_loo`. The published
 * two-arm study and the ablation have none of these, so their artifacts do not change.
 *
 * @example
 * ```ts
 * measuresKernelArms(spec.raw, spec.arms); // true for specs/arith-kernels.json, false for specs/arith-ablation.json
 * ```
 */
export function measuresKernelArms(raw: Readonly<Record<string, unknown>>, arms: readonly { readonly advantage: string }[]): boolean {
  if (raw.tuning !== undefined) return true;
  return arms.some((a) => isStudyKernelName(a.advantage) || a.advantage.startsWith(KERNEL_NAME_PREFIX) || a.advantage === 'length_bucket_loo');
}
