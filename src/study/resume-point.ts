// Where a resumed study run continues: the phases already done, the next one, and for a training phase how far each
// arm got (counted from the steps its advantages.jsonl logged, the same for every backend).
import { existsSync } from 'node:fs';
import { readRunBytes } from './backends/files.js';
import path from 'node:path';
import { armLrGrid } from './lr-grid.js';
import type { StudyArm } from './spec.js';
import { OPTIONAL_PHASES, PILOT_STEPS, STUDY_PHASES, type StudyPhase, type StudySummary } from './summary.js';
import { pathUnder } from '../internal/path-parts.js';

function loggedSteps(file: string): number {
  if (!existsSync(file)) return 0;
  return readRunBytes(file).toString('utf8').split('\n').filter((line) => line.trim() !== '').length;
}

/** An arm's full-run folders under arms/: its own, or one per learning rate of its lr_grid (`<arm>/lr-<i>`). */
function armFolders(arm: StudyArm): { label: string; folder: string }[] {
  const grid = armLrGrid(arm);
  return grid === null ? [{ label: arm.name, folder: arm.name }] : grid.map((lr, i) => ({ label: `${arm.name} lr ${String(lr)}`, folder: path.join(arm.name, `lr-${i}`) }));
}

/** `grpo_g8 seeds 0, 3 done, seed 7 at step 44 of 60, seed 9 at step 0 of 60`: where each seed of an arm is. */
function seededArmPoint(dir: string, arm: { label: string; folder: string }, total: number, seeds: readonly number[]): string {
  const steps = seeds.map((seed) => ({ seed, step: loggedSteps(pathUnder(dir, 'seeds', String(seed), 'arms', arm.folder, 'advantages.jsonl')) }));
  const done = steps.filter((s) => s.step >= total).map((s) => s.seed);
  const parts = done.length > 0 ? [`seed${done.length > 1 ? 's' : ''} ${done.join(', ')} done`] : [];
  for (const s of steps) if (s.step < total) parts.push(`seed ${s.seed} at step ${s.step} of ${total}`);
  return `${arm.label} ${parts.join(', ')}`;
}

/**
 * One line saying where a resumed run continues, e.g. `resuming: preflight, calibration, pilot, gate done;
 * continuing with arms (grpo_g8 at step 60 of 60, gs1_tfidf_g1 at step 23 of 60)`.
 *
 * @param dir - the run folder.
 * @param summary - summary.json as read from it.
 * @param arms - the spec's arms.
 * @param stepsOf - the steps an arm trains in the full arms phase (the pilot trains PILOT_STEPS).
 * @param skipped - the optional phases this run does not have (default: those summary.json does not record).
 * @param seeds - a replicated run's seeds (its full arms are under seeds/<seed>/arms/<arm>), or null for one seed.
 */
export function describeResumePoint(
  dir: string,
  summary: StudySummary,
  arms: readonly StudyArm[],
  stepsOf: (arm: StudyArm) => number,
  skipped: readonly StudyPhase[] = OPTIONAL_PHASES.filter((p) => summary.phases[p] === undefined),
  seeds: readonly number[] | null = null,
): string {
  const phases = STUDY_PHASES.filter((p) => !skipped.includes(p));
  const done = phases.filter((p) => summary.phases[p]?.status === 'done');
  const next = phases.find((p) => summary.phases[p]?.status !== 'done');
  if (next === undefined) return `resuming: every phase is done (${done.join(', ')}); nothing to continue`;
  let where = '';
  if (next === 'arms' && seeds !== null) {
    where = ` (${arms.flatMap((arm) => armFolders(arm).map((f) => seededArmPoint(dir, f, stepsOf(arm), seeds))).join('; ')})`;
  } else if (next === 'arms') {
    const steps = arms.flatMap((arm) => armFolders(arm).map((f) => `${f.label} at step ${loggedSteps(pathUnder(dir, 'arms', f.folder, 'advantages.jsonl'))} of ${stepsOf(arm)}`));
    where = ` (${steps.join(', ')})`;
  } else if (next === 'pilot') {
    const steps = arms.map((arm) => `${arm.name} at step ${loggedSteps(pathUnder(dir, 'pilot', arm.name, 'advantages.jsonl'))} of ${PILOT_STEPS}`);
    where = ` (${steps.join(', ')})`;
  } else if (next === 'tuning') {
    // The tuning phase reuses what an interrupted attempt wrote.
    const kept = ['tuning.jsonl', 'kernel.json'].filter((f) => existsSync(path.join(dir, f)));
    if (kept.length > 0) where = ` (reusing ${kept.join(' and ')})`;
  }
  return `resuming: ${done.length > 0 ? `${done.join(', ')} done` : 'no phase done yet'}; continuing with ${next}${where}`;
}
