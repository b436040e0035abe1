// Phase 7a (docs/method.md section 8): greedy eval of each arm's final policy on the test items (--eval-limit: the first N).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { StudyArm } from '../spec.js';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { accuracy } from './figures.js';
import { formatFigure } from '../../internal/figures.js';

/** The arm's final checkpoint: from the arms phase of this process, else from the backend (a resumed run). */
async function checkpointOf(ctx: PhaseContext, arm: StudyArm): Promise<string> {
  const known = ctx.state.checkpoints[arm.name];
  if (known !== undefined) return known;
  const steps = ctx.settings.stepsOf(arm);
  return (await ctx.backend.trainArm(ctx.study, { arm, phase: 'full', steps, dir: path.join(ctx.dir, 'arms', arm.name) })).checkpoint;
}

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const evalDir = path.join(ctx.dir, 'eval');
  const test = ctx.study.test;
  const evalItems = ctx.options.evalLimit === undefined ? test : test.slice(0, ctx.options.evalLimit);
  mkdirSync(evalDir, { recursive: true });
  const evals: NonNullable<PhaseContext['summary']['eval']> = {};
  ctx.summary.eval = evals;
  for (const arm of ctx.spec.arms) {
    ctx.events.label(`eval: ${arm.name} on ${evalItems.length} items`);
    const checkpoint = await checkpointOf(ctx, arm);
    const file = path.join(evalDir, `${arm.name}.jsonl`);
    const rows = await ctx.backend.evaluate(ctx.study, checkpoint, evalItems, file);
    evals[arm.name] = { accuracy: accuracy(rows), n: rows.length, file: path.relative(ctx.dir, file) };
  }
  return { line: Object.entries(evals).map(([k, v]) => `${k} ${formatFigure(v.accuracy)}`).join(', ') + ` (accuracy on ${evalItems.length} items)` };
}

/** The eval phase: eval/<arm>.jsonl. */
export const evalPhase: StudyPhaseStep = { name: 'eval', run };
