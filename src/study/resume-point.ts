// Where a resumed study run continues: the phases already done, the next one, and for a training phase how far each
// arm got (counted from the steps its advantages.jsonl logged, the same for every backend).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { StudyArm } from './spec.js';
import { OPTIONAL_PHASES, PILOT_STEPS, STUDY_PHASES, type StudyPhase, type StudySummary } from './summary.js';

function loggedSteps(file: string): number {
  if (!existsSync(file)) return 0;
  return readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '').length;
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
 */
export function describeResumePoint(
  dir: string,
  summary: StudySummary,
  arms: readonly StudyArm[],
  stepsOf: (arm: StudyArm) => number,
  skipped: readonly StudyPhase[] = OPTIONAL_PHASES.filter((p) => summary.phases[p] === undefined),
): string {
  const phases = STUDY_PHASES.filter((p) => !skipped.includes(p));
  const done = phases.filter((p) => summary.phases[p]?.status === 'done');
  const next = phases.find((p) => summary.phases[p]?.status !== 'done');
  if (next === undefined) return `resuming: every phase is done (${done.join(', ')}); nothing to continue`;
  let where = '';
  if (next === 'pilot' || next === 'arms') {
    const steps = arms.map((arm) => `${arm.name} at step ${loggedSteps(path.join(dir, next, arm.name, 'advantages.jsonl'))} of ${next === 'pilot' ? PILOT_STEPS : stepsOf(arm)}`);
    where = ` (${steps.join(', ')})`;
  } else if (next === 'tuning') {
    // The tuning phase reuses what an interrupted attempt wrote.
    const kept = ['tuning.jsonl', 'kernel.json'].filter((f) => existsSync(path.join(dir, f)));
    if (kept.length > 0) where = ` (reusing ${kept.join(' and ')})`;
  }
  return `resuming: ${done.length > 0 ? `${done.join(', ')} done` : 'no phase done yet'}; continuing with ${next}${where}`;
}
