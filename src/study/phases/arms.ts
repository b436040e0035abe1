// Phase 6 (docs/method.md section 8): both arms trained in full, with the same seed, learning rate and data order.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { PhaseContext, PhaseResult, StudyPhaseStep } from './context.js';
import { formatFigure } from '../../internal/figures.js';

async function run(ctx: PhaseContext): Promise<PhaseResult> {
  const { summary, settings } = ctx;
  summary.arms ??= {};
  for (const arm of ctx.spec.arms) {
    const armDir = path.join(ctx.dir, 'arms', arm.name);
    mkdirSync(armDir, { recursive: true });
    ctx.events.label(`arms: ${arm.name} (${settings.stepsOf(arm)} steps)`);
    const result = await ctx.backend.trainArm(ctx.study, { arm, phase: 'full', steps: settings.stepsOf(arm), dir: armDir });
    summary.arms[arm.name] = { advantage: arm.advantage, steps: settings.stepsOf(arm), reward_per_step: [...result.rewardPerStep] };
    ctx.state.checkpoints[arm.name] = result.checkpoint;
    // Saved after each arm, so an interrupted run shows the finished arms.
    ctx.save();
  }
  const finals = Object.entries(summary.arms).map(([k, v]) => `${k} final reward ${formatFigure(v.reward_per_step.at(-1), 3)}`);
  return { line: finals.join(', ') };
}

/** The arms phase: arms/<arm>/advantages.jsonl and each arm's checkpoint. */
export const armsPhase: StudyPhaseStep = { name: 'arms', run };
