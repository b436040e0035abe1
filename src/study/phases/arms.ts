// Phase 6 (docs/method.md section 8): both arms trained in full, with the same seed, learning rate and data order;
// in a replicated run, both arms for every seed (docs/study.md, "Seeds"), as independent jobs (--jobs at once).
import type { ReplicateSummary } from '../summary.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { armRuns, runArmJobs, type ArmRun } from './arm-runs.js';
import { trainJob } from './job-graph.js';
import type { ArmRunResult } from '../backends/types.js';
import { hasLrGrid } from '../lr-grid.js';
import { pickLine, trainGridArms } from './lr-selection.js';
import { formatFigure } from '../../internal/figures.js';
import { curveSettings } from '../replicates.js';

/** Every arm x seed once (a spec without lr_grid arms). */
async function trainArms(ctx: PhaseContext): Promise<{ runs: ArmRun[]; results: ArmRunResult[] }> {
  const runs = armRuns(ctx);
  ctx.events.label(`arms: ${runs.length} arm runs`);
  const results = await runArmJobs(ctx, 'arms', runs, (r) => trainJob(ctx, r).run());
  return { runs, results };
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const { summary } = ctx;
  const curve = curveSettings(ctx.spec, ctx.study.test);
  // Tinker's curve is the cookbook's test-set evaluator, which samples (examples/tinker-cookbook/README.md).
  if (curve !== null) summary.curve = { items: curve.items.length, every: curve.every, ...(ctx.backend.name === 'tinker' ? { decoding: 'sampled' as const } : {}) };
  const grid = hasLrGrid(ctx.spec);
  const { runs, results } = grid ? await trainGridArms(ctx) : await trainArms(ctx);
  const replicates: ReplicateSummary[] = [];
  runs.forEach((r, i) => {
    const result = results[i] as (typeof results)[number];
    let rep = replicates.find((x) => x.seed === r.seed);
    if (rep === undefined) replicates.push((rep = { seed: r.seed, arms: {} }));
    rep.arms[r.arm.name] = {
      advantage: r.arm.advantage,
      steps: r.request.steps,
      reward_per_step: [...result.rewardPerStep],
      curve: result.curve ? [...result.curve] : null,
      ...(r.request.lrIndex === undefined ? {} : { lr: r.arm.lr as number }),
    };
    ctx.state.checkpoints[`${r.seed}/${r.arm.name}`] = result.checkpoint;
  });
  summary.replicates = replicates;
  // A single run keeps its arms where the report and earlier runs read them.
  if (!runs.some((r) => r.replicated)) {
    summary.arms = Object.fromEntries(runs.map((r, i) => [r.arm.name, { advantage: r.arm.advantage, steps: r.request.steps, reward_per_step: [...(results[i]?.rewardPerStep ?? [])] }]));
  }
  const finalReward = (name: string): string => {
    const last = replicates.map((rep) => rep.arms[name]?.reward_per_step.at(-1) ?? 0);
    return formatFigure(last.reduce((a, b) => a + b, 0) / last.length, 3);
  };
  const over = replicates.length > 1 ? ` (mean over ${replicates.length} seeds)` : '';
  return { line: ctx.spec.arms.map((a) => `${a.name} final reward ${finalReward(a.name)}`).join(', ') + over + (grid ? `; picked on held-out train: ${pickLine(ctx)}` : '') };
}

/** The arms phase: arms/<arm>/ (RUN/seeds/<s>/arms/<arm>/ per seed) and each arm's checkpoint. */
export const armsPhase: StudyPhaseStep = { name: 'arms', run };
