// Phase 4 (docs/method.md section 8): the timing pilot, PILOT_STEPS steps per arm and an eval on PILOT_EVAL_ITEMS items.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PILOT_STEPS } from '../summary.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { pilotEvalJob, pilotInitEvalJob, pilotItems as pilotEvalItems, pilotTrainJob } from './job-graph.js';
import { FIGURE_DIGITS } from '../../internal/figures.js';
import { accuracy } from './figures.js';
import { formatFigure } from '../../internal/figures.js';

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const { events } = ctx;
  const pilotDir = path.join(ctx.dir, 'pilot');
  const pilotItems = pilotEvalItems(ctx);
  const arms: Record<string, { reward_per_step: number[] }> = {};
  const evals: Record<string, { accuracy: number; n: number }> = {};
  mkdirSync(pilotDir, { recursive: true });
  events.label(`pilot: eval of the starting policy on ${pilotItems.length} items`);
  evals.init = { accuracy: accuracy(await pilotInitEvalJob(ctx).run()), n: pilotItems.length };
  for (const arm of ctx.spec.arms) {
    events.label(`pilot: ${arm.name} (${PILOT_STEPS} steps)`);
    const result = await pilotTrainJob(ctx, arm).run();
    arms[arm.name] = { reward_per_step: [...result.rewardPerStep] };
    events.label(`pilot: eval of ${arm.name}`);
    const rows = await pilotEvalJob(ctx, arm, result.checkpoint).run();
    evals[arm.name] = { accuracy: accuracy(rows), n: rows.length };
  }
  ctx.summary.pilot = { arms, eval: evals };
  return { line: Object.entries(evals).map(([k, v]) => `${k} ${formatFigure(v.accuracy, FIGURE_DIGITS.accuracy)}`).join(', ') + ` (accuracy on ${pilotItems.length} items)` };
}

/** The pilot phase: pilot/<arm>/advantages.jsonl and pilot/eval_<policy>.jsonl. */
export const pilotPhase: StudyPhaseStep = { name: 'pilot', run };
