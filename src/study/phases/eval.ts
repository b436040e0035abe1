// Phase 7a (docs/method.md section 8): greedy eval of the starting policy and of each arm's final policy (each arm x
// seed in a replicated run) on the test items (--eval-limit: the first N), as independent jobs.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { accuracy } from './figures.js';
import { formatFigure } from '../../internal/figures.js';
import { armRuns, runArmJobs } from './arm-runs.js';
import { armEvalFile, armEvalJob, evalItems as evalItemsOf, initEvalJob } from './job-graph.js';

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const evalItems = evalItemsOf(ctx);
  const runs = armRuns(ctx);
  mkdirSync(path.join(ctx.dir, 'eval'), { recursive: true });
  ctx.events.label(`eval: the starting policy and ${runs.length} arm runs on ${evalItems.length} items`);
  // The starting policy once: every arm's change is measured from it (summary.json `learning`).
  const startFile = path.join(ctx.dir, 'eval', 'init.jsonl');
  const start = await initEvalJob(ctx).run();
  ctx.summary.start = { accuracy: accuracy(start), n: start.length, file: path.relative(ctx.dir, startFile) };
  const rows = await runArmJobs(ctx, 'eval', runs, async (r) => ({ file: armEvalFile(r), rows: await armEvalJob(ctx, r).run() }));
  const evals: NonNullable<PhaseContext['summary']['eval']> = {};
  runs.forEach((r, i) => {
    const { file, rows: result } = rows[i] as (typeof rows)[number];
    const figures = { accuracy: accuracy(result), n: result.length, file: path.relative(ctx.dir, file) };
    const rep = ctx.summary.replicates?.find((x) => x.seed === r.seed);
    const arm = rep?.arms[r.arm.name];
    if (rep !== undefined && arm !== undefined) {
      rep.start_accuracy = ctx.summary.start?.accuracy;
      Object.assign(arm, { accuracy: figures.accuracy, n: figures.n, eval_file: figures.file });
    }
    if (!r.replicated) evals[r.arm.name] = figures;
  });
  if (!runs.some((r) => r.replicated)) ctx.summary.eval = evals;
  const mean = (name: string): number => {
    const xs = runs.flatMap((r, i) => (r.arm.name === name ? [accuracy(rows[i]?.rows ?? [])] : []));
    return xs.reduce((a, b) => a + b, 0) / xs.length;
  };
  const over = runs.some((r) => r.replicated) ? `, mean over ${new Set(runs.map((r) => r.seed)).size} seeds` : '';
  return {
    line: `init ${formatFigure(ctx.summary.start.accuracy)}, ` + ctx.spec.arms.map((a) => `${a.name} ${formatFigure(mean(a.name))}`).join(', ') + ` (accuracy on ${evalItems.length} items${over})`,
  };
}

/** The eval phase: eval/init.jsonl and eval/<arm>.jsonl (RUN/seeds/<s>/eval/<arm>.jsonl per seed). */
export const evalPhase: StudyPhaseStep = { name: 'eval', run };
