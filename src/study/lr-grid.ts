// Learning-rate grids selected on held-out train (docs/study.md, "Learning-rate grids"; docs/method.md section 8):
// an arm may declare `lr_grid` (two or more learning rates) and the spec `lr_selection` (the held-out split of train
// and the rule that picks one learning rate per arm), both fixed before any phase runs. This module validates the
// two fields and holds the selection rule; the arms phase (phases/lr-selection.ts) trains, scores and picks.
import { describe } from '../internal/validate.js';
import { isObject, type Problems } from '../internal/spec-problems.js';

/** What this module reads of an arm and of a loaded spec (structural: spec.ts imports this module). */
type GridArm = { readonly name: string; readonly lr_grid?: unknown };
type GridSpec = { readonly arms: readonly GridArm[]; readonly raw: Readonly<Record<string, unknown>> };

/** The selection rules: the learning rate with the highest mean held-out accuracy over seeds. */
export const LR_SELECTION_RULES = ['max_mean_heldout_accuracy'] as const;
/** How a tie of the rule is broken: the lower learning rate. */
export const LR_SELECTION_TIES = ['lower_lr'] as const;

/** The spec's `lr_selection`, validated. */
export interface LrSelection {
  /** The held-out part of train that scores every learning rate: `items` train tasks from the data order's free range. */
  readonly split: { readonly from: 'train'; readonly items: number };
  readonly rule: (typeof LR_SELECTION_RULES)[number];
  readonly ties: (typeof LR_SELECTION_TIES)[number];
}

const SELECTION_KEYS = ['split', 'rule', 'ties', 'about'];
const SPLIT_KEYS = ['from', 'items'];

/** An arm's learning-rate grid, or null when it has none. */
export function armLrGrid(arm: GridArm): readonly number[] | null {
  return Array.isArray(arm.lr_grid) ? (arm.lr_grid as number[]) : null;
}

/** True when any arm of the spec declares a learning-rate grid. */
export function hasLrGrid(spec: GridSpec): boolean {
  return spec.arms.some((arm) => armLrGrid(arm) !== null);
}

/** Checks one arm's `lr_grid`: two or more finite learning rates > 0 in ascending order; `lr`, when given, one of them. */
function collectArmGrid(p: Problems, at: string, arm: Readonly<Record<string, unknown>>): boolean {
  const grid = arm.lr_grid;
  if (grid === undefined) return false;
  if (!Array.isArray(grid) || grid.length < 2) {
    const got = Array.isArray(grid) ? `${grid.length} learning rate${grid.length === 1 ? '' : 's'}` : describe(grid);
    p.add(`${at}.lr_grid`, `must be an array of two or more learning rates (one learning rate is the arm's "lr"), got ${got}`);
    return true;
  }
  grid.forEach((lr, j) => {
    if (typeof lr !== 'number' || !Number.isFinite(lr) || lr <= 0) p.add(`${at}.lr_grid[${j}]`, `must be a finite number > 0, got ${describe(lr)}`);
    else if (j > 0 && typeof grid[j - 1] === 'number' && lr <= (grid[j - 1] as number)) {
      p.add(`${at}.lr_grid[${j}]`, `must be above lr_grid[${j - 1}] (${String(grid[j - 1])}): the grid is in ascending order, each learning rate once`);
    }
  });
  if (arm.lr !== undefined && typeof arm.lr === 'number' && !grid.includes(arm.lr)) {
    p.add(`${at}.lr`, `must be one of lr_grid (${grid.map(String).join(', ')}) when both are given: "lr" is the learning rate of the pilot, got ${String(arm.lr)}`);
  }
  return true;
}

function collectSelection(p: Problems, value: Readonly<Record<string, unknown>>): void {
  for (const k of Object.keys(value)) if (!SELECTION_KEYS.includes(k)) p.add(`lr_selection.${k}`, `is not a field of lr_selection (fields: ${SELECTION_KEYS.join(', ')})`);
  const split = value.split;
  if (!isObject(split)) {
    p.add('lr_selection.split', `must be an object {"from": "train", "items": N}, got ${describe(split)}`);
  } else {
    for (const k of Object.keys(split)) if (!SPLIT_KEYS.includes(k)) p.add(`lr_selection.split.${k}`, `is not a field of lr_selection.split (fields: ${SPLIT_KEYS.join(', ')})`);
    if (split.from !== 'train') {
      p.add('lr_selection.split.from', `must be "train" (the selection is scored on held-out train tasks, never on test, which decides), got ${describe(split.from)}`);
    }
    if (typeof split.items !== 'number' || !Number.isInteger(split.items) || split.items < 1) {
      p.add('lr_selection.split.items', `must be an integer >= 1 (held-out train tasks scoring each learning rate), got ${describe(split.items)}`);
    }
  }
  if (!(LR_SELECTION_RULES as readonly unknown[]).includes(value.rule)) {
    p.add('lr_selection.rule', `must be one of ${LR_SELECTION_RULES.map((r) => JSON.stringify(r)).join(', ')}, got ${describe(value.rule)}`);
  }
  if (!(LR_SELECTION_TIES as readonly unknown[]).includes(value.ties)) {
    p.add('lr_selection.ties', `must be one of ${LR_SELECTION_TIES.map((r) => JSON.stringify(r)).join(', ')}, got ${describe(value.ties)}`);
  }
}

/**
 * Validates the arms' `lr_grid` and the spec's `lr_selection` into `p`: a grid holds two or more finite learning
 * rates > 0 in ascending order (an arm's `lr`, when given, is one of them: the pilot's); a grid needs
 * `lr_selection`, and `lr_selection` needs a grid; `lr_selection` is `{"split": {"from": "train", "items": N},
 * "rule": "max_mean_heldout_accuracy", "ties": "lower_lr"}` (plus an optional `about`), nothing else. Whether the
 * split fits the data order's free range is checked once the train split is known ({@link lrSelectionRows}).
 *
 * @param p - where problems are collected (each with its JSON path).
 * @param raw - the whole spec object.
 * @example
 * ```ts
 * const p = new Problems();
 * collectLrGrid(p, { arms: [{ name: 'a', lr_grid: [1e-4] }] });
 * p.list[0]?.path; // "arms[0].lr_grid"
 * ```
 */
export function collectLrGrid(p: Problems, raw: Readonly<Record<string, unknown>>): void {
  const arms = Array.isArray(raw.arms) ? raw.arms : [];
  let grids = 0;
  arms.forEach((arm, i) => {
    if (isObject(arm) && collectArmGrid(p, `arms[${i}]`, arm)) grids++;
  });
  const selection = raw.lr_selection;
  if (selection === undefined) {
    if (grids > 0) p.add('lr_selection', 'is required with an arm\'s lr_grid: the held-out split and the rule that pick one learning rate per arm are fixed in the spec ({"split": {"from": "train", "items": N}, "rule": "max_mean_heldout_accuracy", "ties": "lower_lr"})');
    return;
  }
  if (!isObject(selection)) {
    p.add('lr_selection', `must be an object {"split", "rule", "ties"}, got ${describe(selection)}`);
    return;
  }
  if (grids === 0) p.add('lr_selection', 'selects among the learning rates of an arm\'s lr_grid, but no arm has one');
  collectSelection(p, selection);
}

/** The spec's `lr_selection` (validated by loadStudySpec), or null. */
export function lrSelectionOf(spec: GridSpec): LrSelection | null {
  const s = spec.raw.lr_selection;
  return isObject(s) ? (s as unknown as LrSelection) : null;
}

/** One learning rate's held-out score on one seed. */
export interface LrSeedScore {
  readonly seed: number;
  readonly correct: number;
  readonly n: number;
}

/** What the rule picked for one arm, and why. */
export interface LrPick {
  /** Index into the grid of the picked learning rate. */
  readonly index: number;
  /** Each learning rate's mean held-out accuracy over seeds, in grid order. */
  readonly means: readonly number[];
  /** The rule's reason in words. */
  readonly reason: string;
}

/**
 * The selection rule `max_mean_heldout_accuracy` with ties to `lower_lr`: the learning rate whose held-out accuracy,
 * averaged over seeds, is highest; equal means (compared exactly, as correct counts when every seed scores the same
 * items) go to the lower learning rate.
 *
 * @param grid - the arm's learning rates, ascending.
 * @param scores - per learning rate (grid order), each seed's held-out correct count of n.
 * @throws {Error} when a learning rate has no scores (a programming error: every grid point is scored).
 * @example
 * ```ts
 * selectLr([5e-5, 1.5e-4], [[{ seed: 0, correct: 50, n: 100 }], [{ seed: 0, correct: 50, n: 100 }]]).index; // 0 (a tie)
 * ```
 */
export function selectLr(grid: readonly number[], scores: readonly (readonly LrSeedScore[])[]): LrPick {
  const means = scores.map((seeds, i) => {
    if (seeds.length === 0) throw new Error(`lr_grid[${i}] has no held-out scores`);
    return seeds.reduce((s, x) => s + x.correct / x.n, 0) / seeds.length;
  });
  // Exact comparison: with every seed scoring the same n items the means are sums of correct counts over the same divisor.
  const totals = scores.map((seeds) => seeds.reduce((s, x) => s + x.correct, 0));
  const sameN = scores.every((seeds) => seeds.every((x) => x.n === scores[0]?.[0]?.n && seeds.length === scores[0]?.length));
  const key = sameN ? totals : means;
  let index = 0;
  for (let i = 1; i < grid.length; i++) if ((key[i] as number) > (key[index] as number)) index = i;
  const tied = key.map((k, i) => (k === key[index] ? i : -1)).filter((i) => i >= 0);
  const fmt = (i: number): string => `lr ${String(grid[i])}: mean held-out accuracy ${(means[i] as number).toFixed(4)}`;
  const seeds = scores[0]?.length ?? 0;
  const reason =
    tied.length > 1
      ? `tie at the highest mean held-out accuracy over ${seeds} seeds (${tied.map(fmt).join('; ')}): the lower learning rate, ${String(grid[index])}`
      : `the highest mean held-out accuracy over ${seeds} seeds (${grid.map((_, i) => fmt(i)).join('; ')})`;
  return { index, means, reason };
}

/** One learning rate of one arm in summary.json's `lr_selection`: its held-out score per seed and its training. */
export interface LrRunSummary {
  readonly lr: number;
  /** The rule's figure: the held-out accuracy averaged over seeds. */
  readonly mean_heldout_accuracy: number;
  readonly seeds: readonly {
    readonly seed: number;
    readonly correct: number;
    readonly n: number;
    readonly accuracy: number;
    /** The per-item rows of the greedy held-out eval (relative to the run folder). */
    readonly file: string;
    /** The learning curve on the test's curve items (null without one): stability is read from it. */
    readonly curve: readonly { readonly step: number; readonly accuracy: number; readonly correct: number; readonly n: number }[] | null;
    readonly reward_per_step: readonly number[];
  }[];
}

/** summary.json's `lr_selection`: the split, and per grid arm every learning rate's scores, the pick and why. */
export interface LrSelectionSummary {
  readonly rule: LrSelection['rule'];
  readonly ties: LrSelection['ties'];
  readonly split: {
    readonly from: 'train';
    readonly items: number;
    /** Positions in the study's data order the split was taken from (backwards from `order_end`). */
    readonly order_first: number;
    readonly order_end: number;
    /** lr_selection.json in the run folder lists the rows. */
    readonly file: string;
    /** Split rows shared with each other set: the arms' training tasks (every seed), the gate's calibration set, the tuning tasks and test (ids); all 0, checked. */
    readonly overlap: { readonly training: number; readonly calibration: number; readonly tuning: number; readonly test: number };
    /** Split questions whose text also occurs in test or among the training tasks (distinct tasks can share a text). */
    readonly same_text: { readonly test: number; readonly training: number };
  };
  readonly arms: Record<string, { readonly grid: readonly number[]; readonly picked_index: number; readonly picked_lr: number; readonly reason: string; readonly lrs: readonly LrRunSummary[] }>;
}
