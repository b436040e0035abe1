// Phase 4 (docs/method.md section 8): the timing pilot, PILOT_STEPS steps per arm and an eval on PILOT_EVAL_ITEMS items.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PILOT_EVAL_ITEMS, PILOT_STEPS } from '../summary.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { FIGURE_DIGITS } from '../../internal/figures.js';
import { accuracy } from './figures.js';
import { evaluateWhole } from './evaluate-whole.js';
import { formatFigure } from '../../internal/figures.js';
import { pathUnder } from '../../internal/path-parts.js';

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const { backend, study, events } = ctx;
  const pilotDir = path.join(ctx.dir, 'pilot');
  const pilotItems = study.test.slice(0, Math.min(PILOT_EVAL_ITEMS, study.test.length));
  const arms: Record<string, { reward_per_step: number[] }> = {};
  const evals: Record<string, { accuracy: number; n: number }> = {};
  mkdirSync(pilotDir, { recursive: true });
  events.label(`pilot: eval of the starting policy on ${pilotItems.length} items`);
  evals.init = { accuracy: accuracy(await evaluateWhole(ctx, 'init', pilotItems, path.join(pilotDir, 'eval_init.jsonl'))), n: pilotItems.length };
  for (const arm of ctx.spec.arms) {
    const armDir = pathUnder(ctx.dir, 'pilot', arm.name);
    mkdirSync(armDir, { recursive: true });
    events.label(`pilot: ${arm.name} (${PILOT_STEPS} steps)`);
    const result = await backend.trainArm(study, { arm, phase: 'pilot', steps: PILOT_STEPS, dir: armDir });
    arms[arm.name] = { reward_per_step: [...result.rewardPerStep] };
    events.label(`pilot: eval of ${arm.name}`);
    const rows = await evaluateWhole(ctx, result.checkpoint, pilotItems, pathUnder(ctx.dir, 'pilot', `eval_${arm.name}.jsonl`));
    evals[arm.name] = { accuracy: accuracy(rows), n: rows.length };
  }
  ctx.summary.pilot = { arms, eval: evals };
  return { line: Object.entries(evals).map(([k, v]) => `${k} ${formatFigure(v.accuracy, FIGURE_DIGITS.accuracy)}`).join(', ') + ` (accuracy on ${pilotItems.length} items)` };
}

/** The pilot phase: pilot/<arm>/advantages.jsonl and pilot/eval_<policy>.jsonl. */
export const pilotPhase: StudyPhaseStep = { name: 'pilot', run };
