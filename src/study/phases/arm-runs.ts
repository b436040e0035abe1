// The full arms of a run, one per arm x seed, as the arms and eval phases schedule them: a single run has one seed
// (the arms' own, layout RUN/arms/<arm>), a replicated run one per decision_rule.seeds (RUN/seeds/<s>/arms/<arm>).
import path from 'node:path';
import type { ArmRunRequest } from '../backends/types.js';
import { runJobs, type StudyJob } from '../jobs.js';
import { studyJobLimit } from '../study-scheduler.js';
import { curveSettings, replicateSeeds, seedOrder, seedRoot } from '../replicates.js';
import type { StudyArm } from '../spec.js';
import { armLrGrid } from '../lr-grid.js';
import type { PhaseContext } from './context.js';
import { pathUnder } from '../../internal/path-parts.js';

/** One arm of one seed. */
export interface ArmRun {
  /** The seed the summary records: the replicate seed, or the arms' own seed in a single run. */
  readonly seed: number;
  /** True in a replicated run (the seed is handed to the backend and the layout is per seed). */
  readonly replicated: boolean;
  readonly arm: StudyArm;
  /** `grpo_g8 seed 2` (a replicated run) or `grpo_g8`. */
  readonly label: string;
  /** The folder of this seed's arms and evals. */
  readonly root: string;
  readonly request: ArmRunRequest;
}

/** The folder of one learning rate of an arm's grid: `<arm folder>/lr-<index>` (an index, never the number: a safe name). */
export function lrDir(armDir: string, index: number): string {
  return path.join(armDir, `lr-${index}`);
}

/**
 * The learning-rate indices an arm runs at: null for an arm without `lr_grid` (its own lr); with `every`, each index
 * of its grid (the arms phase trains them all); else the index the selection picked (summary.json's `lr_selection`).
 */
function lrIndices(ctx: PhaseContext, arm: StudyArm, every: boolean): (number | null)[] {
  const grid = armLrGrid(arm);
  if (grid === null) return [null];
  if (every) return grid.map((_, i) => i);
  const picked = ctx.summary.lr_selection?.arms[arm.name]?.picked_index;
  if (picked === undefined) throw new Error(`arm ${arm.name}: no learning rate picked yet (the arms phase picks it)`);
  return [picked];
}

/**
 * The full arm runs in a fixed order: seeds in the spec's order, arms in the spec's order within each. An arm with
 * `lr_grid` runs at the learning rate the selection picked, or with `everyLr` once per learning rate of its grid.
 */
export function armRuns(ctx: PhaseContext, everyLr = false): ArmRun[] {
  const seeds = replicateSeeds(ctx.spec);
  const curve = curveSettings(ctx.spec, ctx.study.test);
  const runs: ArmRun[] = [];
  for (const seed of seeds ?? [null]) {
    const root = seedRoot(ctx.dir, seed);
    const order = seed === null ? undefined : seedOrder(ctx.study, ctx.backend.name, seed);
    for (const specArm of ctx.spec.arms) {
      for (const lrIndex of lrIndices(ctx, specArm, everyLr)) {
        const lr = lrIndex === null ? undefined : armLrGrid(specArm)?.[lrIndex];
        const arm = lr === undefined ? specArm : { ...specArm, lr };
        const armDir = pathUnder(ctx.dir, path.relative(ctx.dir, root), 'arms', arm.name);
        const request: ArmRunRequest = {
          arm,
          phase: 'full',
          steps: ctx.settings.stepsOf(arm),
          dir: lrIndex === null ? armDir : lrDir(armDir, lrIndex),
          ...(seed === null ? {} : { seed, order }),
          ...(curve === null ? {} : { curve }),
          ...(lrIndex === null ? {} : { lrIndex }),
        };
        const label = `${arm.name}${lr === undefined ? '' : ` lr ${String(lr)}`}${seed === null ? '' : ` seed ${seed}`}`;
        runs.push({ seed: seed ?? arm.seed ?? 0, replicated: seed !== null, arm, label, root, request });
      }
    }
  }
  return runs;
}

/** The most jobs at once: --jobs, else one per --gpus GPU, else (Ray) the cluster's, else the machine's cores. */
export function jobLimit(ctx: PhaseContext): number {
  return studyJobLimit(ctx.options);
}

/**
 * Runs one job per arm run through the study's scheduler, with a progress line per job start and end.
 *
 * @returns the results in the runs' order.
 */
export function runArmJobs<T>(ctx: PhaseContext, phase: string, runs: readonly ArmRun[], work: (run: ArmRun) => Promise<T>): Promise<T[]> {
  const jobs: StudyJob<T>[] = runs.map((r) => ({ label: `${phase}: ${r.label}`, run: () => work(r) }));
  return runJobs(jobs, jobLimit(ctx), (e) => ctx.options.onPhase?.({ kind: 'note', line: `${e.label}: ${e.kind === 'start' ? 'started' : e.kind}` }));
}
