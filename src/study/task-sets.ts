// Which train tasks a study's phases use, derived from the spec alone: the arms read the front of the data order
// (the seed-`arms[].seed` shuffle), the gate's calibration set is its last CALIBRATION_TASKS tasks, and the tuning
// phase takes the tasks in between, which neither arm reaches nor the gate uses (docs/study.md, "The tuning phase").
import type { Gsm8kItem } from '../data/gsm8k.js';
import { sharedArmSeed } from './setup.js';
import { shuffledOrder } from './sim/random.js';
import type { StudyArm, StudySpec } from './spec.js';
import { CALIBRATION_TASKS } from './summary.js';
import { usage } from './usage.js';

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
  /** The tasks free for the tuning phase, [armTasks, calibrationStart). */
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
 * The gate's calibration set of a spec on `train`, exactly as the study's calibration phase takes it: the last
 * CALIBRATION_TASKS items of the seed-`arms[].seed` data order (`shuffledOrder`).
 *
 * @example
 * ```ts
 * gateCalibrationTasks(spec, train).map((t) => t.id); // 64 ids such as "gsm8k_train_1234"
 * ```
 */
export function gateCalibrationTasks(spec: StudySpec, train: readonly Gsm8kItem[]): Gsm8kItem[] {
  const order = shuffledOrder(train.length, sharedArmSeed(spec));
  return Array.from(order.slice(-CALIBRATION_TASKS), (q) => train[q] as Gsm8kItem);
}

/**
 * The tuning phase's tasks: the first `count` tasks of the free range (after the arms' tasks, before the
 * calibration set) of the data order `order`.
 *
 * @throws {RlAdvantagesError} `bad_option` naming `--tuning-tasks` when the free range holds fewer than `count`.
 */
export function tuningTasks(spec: StudySpec, train: readonly Gsm8kItem[], order: Int32Array, count: number, steps?: number): Gsm8kItem[] {
  const ranges = studyTaskRanges(spec, train.length, steps);
  if (count > ranges.free) {
    throw usage(
      `--tuning-tasks ${count} is more than the ${ranges.free} train tasks neither arm reaches nor the gate uses ` +
        `(the arms read ${ranges.armTasks}, the gate the last ${CALIBRATION_TASKS} of ${train.length})`,
    );
  }
  return Array.from(order.slice(ranges.armTasks, ranges.armTasks + count), (q) => train[q] as Gsm8kItem);
}
