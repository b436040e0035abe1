// Which train tasks a study's phases use, derived from the spec alone: the arms read the front of the data order
// (the seed-`arms[].seed` shuffle), the gate's calibration set is its last CALIBRATION_TASKS tasks, and the tuning
// phase takes tasks in between, which neither arm reaches nor the gate uses (docs/study.md, "The tuning phase").
// The sim backend's order is `shuffledOrder`; the Tinker backend's is the cookbook's (numpy's permutation), and the
// TRL backend uses that same numpy order (its drivers are handed the tasks, so any order would do; one fewer to track).
import type { Gsm8kItem } from '../data/gsm8k.js';
import { numpyPermutation } from './numpy-order.js';
import { sharedArmSeed } from './setup.js';
import { shuffledOrder } from './sim/random.js';
import type { StudyArm, StudySpec } from './spec.js';
import { CALIBRATION_TASKS } from './summary.js';
import { usage } from './usage.js';

/** The data orders: sim's, and numpy's (the tinker and trl backends'). */
export const STUDY_ORDER_BACKENDS = ['sim', 'tinker'] as const;

/**
 * The data order of a backend: `shuffledOrder(n, seed)` for sim, `numpy.random.default_rng(seed).permutation(n)`
 * (the order the cookbook's Gsm8kDataset trains in, so the Tinker drivers') for tinker and trl.
 *
 * @example
 * ```ts
 * studyOrder('tinker', 7473, 0)[0]; // 5441, as numpy.random.default_rng(0).permutation(7473)[0]
 * ```
 */
export function studyOrder(backend: (typeof STUDY_ORDER_BACKENDS)[number] | 'trl', n: number, seed: number): Int32Array {
  return backend === 'sim' ? shuffledOrder(n, seed) : numpyPermutation(n, seed);
}

/** Steps an arm trains when nothing overrides them: the arm's, else the spec's `steps`, else 60. */
export function specSteps(spec: StudySpec, arm: StudyArm): number {
  return arm.steps ?? (typeof spec.raw.steps === 'number' ? spec.raw.steps : 60);
}

/** The positions in the data order each use of a study takes (half-open ranges). */
export interface StudyTaskRanges {
  /** Tasks the arms read, [0, armTasks): the largest steps x groups_per_batch over the arms. */
  readonly armTasks: number;
  /** The gate's calibration set, [calibrationStart, trainLength). */
  readonly calibrationStart: number;
  /** How many tasks are free for the tuning phase, [armTasks, calibrationStart). */
  readonly free: number;
}

/**
 * The study's task ranges in its data order. `steps`, when given (`rl-adv study --steps`), counts only when it
 * exceeds an arm's own steps: the free range must stay free of the tasks a full run of the spec reaches.
 *
 * @throws {RlAdvantagesError} `bad_option` when the arms already reach into the calibration set.
 * @example
 * ```ts
 * studyTaskRanges(spec, 7473); // { armTasks: 1920, calibrationStart: 7409, free: 5489 } for the shipped spec
 * ```
 */
export function studyTaskRanges(spec: StudySpec, trainLength: number, steps?: number): StudyTaskRanges {
  let armTasks = 0;
  for (const arm of spec.arms) {
    const armSteps = Math.max(specSteps(spec, arm), steps ?? 0);
    armTasks = Math.max(armTasks, armSteps * (arm.groups_per_batch ?? 1));
  }
  const calibrationStart = trainLength - CALIBRATION_TASKS;
  if (armTasks > calibrationStart) {
    throw usage(`the arms read ${armTasks} training tasks but only ${calibrationStart} are outside the calibration set`);
  }
  return { armTasks, calibrationStart, free: calibrationStart - armTasks };
}

/**
 * The gate's calibration set of a spec on `train`, exactly as the study's calibration phase takes it on every
 * backend: the last CALIBRATION_TASKS items of the seed-`arms[].seed` data order of sim and of tinker (their union:
 * a revised spec may run on either).
 *
 * @example
 * ```ts
 * gateCalibrationTasks(spec, train).length; // 128 (64 per backend; they rarely share one)
 * ```
 */
export function gateCalibrationTasks(spec: StudySpec, train: readonly Gsm8kItem[]): Gsm8kItem[] {
  const seed = sharedArmSeed(spec);
  const rows = new Set<number>();
  for (const backend of STUDY_ORDER_BACKENDS) for (const q of studyOrder(backend, train.length, seed).slice(-CALIBRATION_TASKS)) rows.add(q);
  return [...rows].map((q) => train[q] as Gsm8kItem);
}

/**
 * The tuning phase's tasks (as rows of `train`): the first `count` tasks of the free range of the data order
 * `order` (after the arms' tasks, before the calibration set), skipping any task in the gate's calibration set of
 * another backend's order (so the kernel can be adopted whichever backend runs the revised spec).
 *
 * @returns the rows, in order; `first`, the position in `order` the free range starts at; `end`, the position
 *   after the last one taken.
 * @throws {RlAdvantagesError} `bad_option` naming `--tuning-tasks` when the free range holds fewer than `count`.
 */
export function tuningTaskRows(spec: StudySpec, train: readonly Gsm8kItem[], order: Int32Array, count: number, steps?: number): { rows: number[]; first: number; end: number } {
  const ranges = studyTaskRanges(spec, train.length, steps);
  const gate = new Set(gateCalibrationTasks(spec, train).map((t) => t.index));
  const rows: number[] = [];
  let at = ranges.armTasks;
  for (; at < ranges.calibrationStart && rows.length < count; at++) {
    const q = order[at] as number;
    if (!gate.has(q)) rows.push(q);
  }
  if (rows.length < count) {
    throw usage(
      `--tuning-tasks ${count} is more than the ${rows.length} train tasks neither arm reaches nor the gate uses ` +
        `(the arms read ${ranges.armTasks}, the gate the last ${CALIBRATION_TASKS} of ${train.length})`,
    );
  }
  return { rows, first: ranges.armTasks, end: at };
}
