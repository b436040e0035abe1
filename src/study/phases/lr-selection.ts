// The arms phase of a spec with lr_grid arms (docs/method.md section 8, step 6; docs/study.md, "Learning-rate
// grids"): every arm x seed trains at every learning rate of its grid (each its own job and folder,
// <arm>/lr-<i>), a greedy eval on the held-out split of train scores each trained policy, and the spec's rule picks
// one learning rate per arm. Only the picked runs go on to the eval on test and the decision.
import path from 'node:path';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import { RlAdvantagesError } from '../../errors.js';
import { formatFigure } from '../../internal/figures.js';
import { writeJsonAtomic } from '../backends/files.js';
import type { ArmRunResult, EvalRow } from '../backends/types.js';
import { armLrGrid, lrSelectionOf, selectLr, type LrRunSummary, type LrSelectionSummary } from '../lr-grid.js';
import { runHeldOut } from '../lr-split.js';
import { gateCalibrationTasks } from '../task-sets.js';
import { armRuns, runArmJobs, type ArmRun } from './arm-runs.js';
import { heldOutEvalJob, trainJob } from './job-graph.js';
import type { PhaseContext } from './context.js';
import { accuracy } from './figures.js';

/** The run folder's record of the selection, with the split's rows. */
export const LR_SELECTION_FILE = 'lr_selection.json';

/** The split's rows as the run took them, with where they sit in the data order. */
function splitRows(ctx: PhaseContext): { rows: readonly number[]; first: number; end: number; tuning: readonly number[] } {
  const o = ctx.options;
  // The tuning phase's tasks when the run has one (--tune-kernel or the spec's own tuning section), as run.json records them.
  const tuningTasks = ctx.summary.options.tuning_tasks ?? null;
  const split = runHeldOut(ctx.spec, ctx.study.train, ctx.study.order, { backend: ctx.backend.name, ...(o.steps === undefined ? {} : { steps: o.steps }), tuningTasks });
  if (split === null) throw new Error('lr selection without lr_selection');
  const tuning = ctx.summary.tuning === undefined ? [] : Array.from(ctx.study.order.slice(ctx.summary.tuning.order_first, ctx.summary.tuning.order_end));
  return { ...split, tuning };
}

/** The split's overlaps with every other set the run uses (all must be 0) and its questions' shared texts. */
function overlaps(ctx: PhaseContext, runs: readonly ArmRun[], rows: readonly number[], tuning: readonly number[]): LrSelectionSummary['split']['overlap'] & { sameText: LrSelectionSummary['split']['same_text'] } {
  const split = new Set(rows);
  const count = (xs: Iterable<number>): number => [...new Set(xs)].filter((q) => split.has(q)).length;
  const training = new Set<number>();
  for (const r of runs) for (const q of (r.request.order ?? ctx.study.order).slice(0, r.request.steps * (r.arm.groups_per_batch ?? 1))) training.add(q);
  const calibration = [...gateCalibrationTasks(ctx.spec, ctx.study.train).map((t) => t.index), ...ctx.study.order.slice(-64)];
  const testIds = new Set(ctx.study.test.map((t) => t.id));
  const items = rows.map((q) => ctx.study.train[q] as Gsm8kItem);
  const testTexts = new Set(ctx.study.test.map((t) => t.question));
  const trainingTexts = new Set([...training].map((q) => ctx.study.train[q]?.question));
  return {
    training: count(training),
    calibration: count(calibration),
    tuning: count(tuning),
    test: items.filter((t) => testIds.has(t.id)).length,
    sameText: { test: items.filter((t) => testTexts.has(t.question)).length, training: items.filter((t) => trainingTexts.has(t.question)).length },
  };
}

/** One learning rate's summary from its runs (one per seed) and their held-out rows. */
function lrSummary(ctx: PhaseContext, lr: number, runs: readonly { run: ArmRun; result: ArmRunResult; file: string; rows: readonly EvalRow[] }[]): LrRunSummary {
  const seeds = runs.map(({ run, result, file, rows }) => {
    const correct = rows.filter((r) => r.correct).length;
    return { seed: run.seed, correct, n: rows.length, accuracy: accuracy(rows), file: path.relative(ctx.dir, file), curve: result.curve ? [...result.curve] : null, reward_per_step: [...result.rewardPerStep] };
  });
  return { lr, mean_heldout_accuracy: seeds.reduce((s, x) => s + x.accuracy, 0) / seeds.length, seeds };
}

/**
 * Trains every arm x seed at every learning rate of its grid (arms without a grid once), scores each grid run on the
 * held-out split (greedy, per-item rows in `<run folder>/heldout.jsonl`), picks one learning rate per grid arm by the
 * spec's rule, and records it all in summary.json's `lr_selection` and lr_selection.json.
 *
 * @returns the picked runs (one per arm x seed, the order of `armRuns(ctx)`) and their results.
 * @throws {RlAdvantagesError} `internal` when the split shares a task with a set it must be disjoint from.
 */
export async function trainGridArms(ctx: PhaseContext): Promise<{ runs: ArmRun[]; results: ArmRunResult[] }> {
  const all = armRuns(ctx, true);
  const selection = lrSelectionOf(ctx.spec);
  if (selection === null) throw new Error('trainGridArms: the spec has no lr_selection');
  const { rows, first, end, tuning } = splitRows(ctx);
  const overlap = overlaps(ctx, all, rows, tuning);
  const { sameText, ...counts } = overlap;
  if (Object.values(counts).some((c) => c > 0)) {
    throw new RlAdvantagesError(`the lr_selection split shares tasks with the run's other sets (${JSON.stringify(counts)}): refusing to select on them`, { code: 'internal' });
  }
  ctx.events.label(`arms: ${all.length} arm runs (every learning rate of each grid)`);
  const results = await runArmJobs(ctx, 'arms', all, (r) => trainJob(ctx, r).run());
  const items = rows.map((q) => ctx.study.train[q] as Gsm8kItem);
  const graded = all.flatMap((run, i) => (run.request.lrIndex === undefined ? [] : [{ run, result: results[i] as ArmRunResult }]));
  ctx.events.label(`arms: ${graded.length} held-out evals on ${items.length} train items`);
  const scored = await runArmJobs(
    ctx,
    'held-out',
    graded.map((g) => g.run),
    async (r) => {
      const result = graded.find((g) => g.run === r)?.result as ArmRunResult;
      const job = heldOutEvalJob(ctx, r, result.checkpoint, items);
      return { file: job.plan.writes[0] as string, rows: await job.run() };
    },
  );
  const arms: LrSelectionSummary['arms'] = {};
  for (const arm of ctx.spec.arms) {
    const grid = armLrGrid(arm);
    if (grid === null) continue;
    const lrs = grid.map((lr, i) =>
      lrSummary(
        ctx,
        lr,
        graded.flatMap((g, j) => (g.run.arm.name === arm.name && g.run.request.lrIndex === i ? [{ ...g, ...(scored[j] as { file: string; rows: EvalRow[] }) }] : [])),
      ),
    );
    const pick = selectLr(grid, lrs.map((l) => l.seeds));
    arms[arm.name] = { grid: [...grid], picked_index: pick.index, picked_lr: grid[pick.index] as number, reason: pick.reason, lrs };
  }
  const split = { from: 'train' as const, items: rows.length, order_first: first, order_end: end, file: LR_SELECTION_FILE, overlap: counts, same_text: sameText };
  ctx.summary.lr_selection = { rule: selection.rule, ties: selection.ties, split, arms };
  writeJsonAtomic(path.join(ctx.dir, LR_SELECTION_FILE), { ...ctx.summary.lr_selection, split: { ...split, rows } });
  ctx.save();
  const picked = armRuns(ctx);
  const byDir = new Map(all.map((r, i) => [r.request.dir, results[i] as ArmRunResult]));
  return { runs: picked, results: picked.map((r) => byDir.get(r.request.dir) as ArmRunResult) };
}

/** The arms phase's line for the picks: `grpo_g8 lr 5e-05 (held-out 0.41 vs 0.39)`. */
export function pickLine(ctx: PhaseContext): string {
  const arms = ctx.summary.lr_selection?.arms ?? {};
  return Object.entries(arms)
    .map(([name, a]) => `${name} lr ${String(a.picked_lr)} (held-out ${a.lrs.map((l) => formatFigure(l.mean_heldout_accuracy, 3)).join(' vs ')})`)
    .join(', ');
}
