// The held-out split of a spec's `lr_selection` (lr-grid.ts): which train tasks score every learning rate of an
// arm's grid, taken from the data order's free range so no arm trains on them and the gate never sees them.
import type { Gsm8kItem } from '../data/gsm8k.js';
import { StudySpecError } from '../internal/spec-problems.js';
import { armLrGrid, lrSelectionOf } from './lr-grid.js';
import type { StudySpec } from './spec.js';
import { CALIBRATION_TASKS } from './summary.js';
import { gateCalibrationTasks, studyTaskRanges, tuningTaskRows } from './task-sets.js';
import { usage } from './usage.js';

/** The held-out split's rows of train and where they sit in the data order. */
export interface LrSelectionRows {
  /** Rows of train, in data order. */
  readonly rows: readonly number[];
  /** Positions in the study's data order: the split is taken backwards from `end` (the calibration set's start). */
  readonly first: number;
  readonly end: number;
}

/**
 * The held-out split of `lr_selection`: the last `split.items` train tasks of the free range of the study's data
 * order `order` (after every task the arms read, before the gate's calibration set), skipping the gate's calibration
 * set of the other backend's order. The tuning phase takes the free range's front, so the two are disjoint unless
 * together they exceed it, which is refused. The arms of a replicated run leave the split out of every seed's order
 * (replicates.ts `seedOrder`), so no arm of any seed trains on it.
 *
 * @param tuningRows - the tuning phase's rows when the run has one (`--tune-kernel`), else null.
 * @throws {StudySpecError} (exit 2) naming `lr_selection.split.items` when the free range holds fewer tasks, or the
 *   split would reach the tuning phase's tasks.
 * @example
 * ```ts
 * lrSelectionRows(spec, train, order, null).rows.length; // spec.raw.lr_selection.split.items
 * ```
 */
export function lrSelectionRows(spec: StudySpec, train: readonly Gsm8kItem[], order: Int32Array, tuningRows: readonly number[] | null, steps?: number): LrSelectionRows {
  const selection = lrSelectionOf(spec);
  if (selection === null) throw new Error('lrSelectionRows: the spec has no lr_selection');
  const n = selection.split.items;
  const ranges = studyTaskRanges(spec, train.length, steps);
  const gate = new Set(gateCalibrationTasks(spec, train).map((t) => t.index));
  const taken: number[] = [];
  let at = ranges.calibrationStart - 1;
  for (; at >= ranges.armTasks && taken.length < n; at--) {
    const q = order[at] as number;
    if (!gate.has(q)) taken.push(q);
  }
  const refuse = (message: string): never => {
    throw new StudySpecError([{ path: 'lr_selection.split.items', message }]);
  };
  if (taken.length < n) {
    refuse(`is ${n}, more than the ${taken.length} train tasks of the data order's free range (the arms read ${ranges.armTasks} of ${train.length}, the gate's calibration set the last ${CALIBRATION_TASKS}): the held-out split must not overlap the training questions`);
  }
  if (tuningRows !== null) {
    const mine = new Set(taken);
    const shared = tuningRows.filter((q) => mine.has(q)).length;
    if (shared > 0) refuse(`is ${n}: with the tuning phase's ${tuningRows.length} tasks it exceeds the free range (${shared} tasks would be in both); lower --tuning-tasks or split.items`);
  }
  return { rows: taken.reverse(), first: at + 1, end: ranges.calibrationStart };
}

/**
 * The held-out split of a run (null when the spec has no `lr_selection`), with the tuning phase's rows when the run
 * has one (`--tune-kernel`, its `--tuning-tasks`): what `rl-adv study` checks before the run folder is touched.
 *
 * @throws {StudySpecError} as {@link lrSelectionRows}; {@link RlAdvantagesError} `bad_option` for a grid on the
 *   tinker backend (its drivers train at the spec's learning rate only).
 * @example
 * ```ts
 * runHeldOut(spec, train, order, { backend: 'trl' })?.rows.length; // the split's items
 * ```
 */
export function runHeldOut(
  spec: StudySpec,
  train: readonly Gsm8kItem[],
  order: Int32Array,
  options: { readonly backend: string; readonly steps?: number; readonly tuningTasks?: number | null },
): LrSelectionRows | null {
  if (lrSelectionOf(spec) === null) return null;
  if (options.backend === 'tinker') throw usage('--backend tinker: lr_grid arms run on the sim and trl backends only (the Tinker drivers train at the spec\'s learning rate)');
  const tuning = options.tuningTasks == null ? null : tuningTaskRows(spec, train, order, options.tuningTasks, options.steps).rows;
  return lrSelectionRows(spec, train, order, tuning, options.steps);
}

/**
 * run.json's record of the grids and the selection rule, so a resumed run whose grid or rule differ is refused by
 * name; empty for a spec without grids (its run.json keeps its bytes).
 *
 * @example
 * ```ts
 * lrGridIdentity(spec); // { lr_grid: { arms: { grpo_g8: [5e-5, 1.5e-4], ... }, selection: {...} } }
 * ```
 */
export function lrGridIdentity(spec: StudySpec): { lr_grid?: { arms: Record<string, readonly number[]>; selection: unknown } } {
  const selection = lrSelectionOf(spec);
  if (selection === null) return {};
  const arms: Record<string, readonly number[]> = {};
  for (const arm of spec.arms) {
    const grid = armLrGrid(arm);
    if (grid !== null) arms[arm.name] = grid;
  }
  return { lr_grid: { arms, selection: { split: selection.split, rule: selection.rule, ties: selection.ties } } };
}
