// The full arms of a run, one per arm x seed, as the arms and eval phases schedule them: a single run has one seed
// (the arms' own, layout RUN/arms/<arm>), a replicated run one per decision_rule.seeds (RUN/seeds/<s>/arms/<arm>).
import path from 'node:path';
import type { ArmRunRequest } from '../backends/types.js';
import { runJobs, type StudyJob } from '../jobs.js';
import { studyJobLimit } from '../study-scheduler.js';
import { curveSettings, replicateSeeds, seedOrder, seedRoot } from '../replicates.js';
import type { StudyArm } from '../spec.js';
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

/** The full arm runs in a fixed order: seeds in the spec's order, arms in the spec's order within each. */
export function armRuns(ctx: PhaseContext): ArmRun[] {
  const seeds = replicateSeeds(ctx.spec);
  const curve = curveSettings(ctx.spec, ctx.study.test);
  const runs: ArmRun[] = [];
  for (const seed of seeds ?? [null]) {
    const root = seedRoot(ctx.dir, seed);
    const order = seed === null ? undefined : seedOrder(ctx.study, ctx.backend.name, seed);
    for (const arm of ctx.spec.arms) {
      const request: ArmRunRequest = {
        arm,
        phase: 'full',
        steps: ctx.settings.stepsOf(arm),
        dir: pathUnder(ctx.dir, path.relative(ctx.dir, root), 'arms', arm.name),
        ...(seed === null ? {} : { seed, order }),
        ...(curve === null ? {} : { curve }),
      };
      runs.push({ seed: seed ?? arm.seed ?? 0, replicated: seed !== null, arm, label: seed === null ? arm.name : `${arm.name} seed ${seed}`, root, request });
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
