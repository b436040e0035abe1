// A study's job graph without running it (`rl-adv study --dry-run`), and one job of a run in its own process
// (`rl-adv study job --run-dir RUN --job ID`: the simulated backend's job command, so a sim job runs on any node).
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import { readJson } from './backends/files.js';
import type { JobPlan } from './executor/types.js';
import type { StudyOptions } from './options.js';
import { studyJobGraph } from './phases/job-graph.js';
import { phaseContext, studyInputs } from './run.js';
import type { RunIdentity } from './setup.js';
import { createSimBackend } from './sim/backend.js';
import type { SimQuestionSet } from './sim/questions.js';
import type { SimConfig } from './sim/world.js';
import { initialSummary } from './setup.js';
import type { StudySummary } from './summary.js';

/**
 * Every job a run of `options` would run, in order, with its resources and files; nothing is written, nothing runs
 * (the inputs are checked as by runStudy).
 *
 * @throws {RlAdvantagesError} as runStudy for bad input.
 * @example
 * ```ts
 * const plans = await planStudy({ specPath: 'specs/arith-ablation.json', dir: 'run', backend: createSimBackend() });
 * plans.map((p) => p.id); // ['preflight', 'calibration', 'eval/pilot/init', ...]
 * ```
 */
export async function planStudy(options: StudyOptions): Promise<JobPlan[]> {
  const inputs = await studyInputs(options);
  const summary = initialSummary(options, inputs.spec, inputs.specPath, inputs.identity, inputs.data);
  return studyJobGraph(phaseContext({ ...inputs, summary })).map((job) => job.plan);
}

/** The options of the run in `runDir`, rebuilt from its run.json and summary.json (a sim run). */
function runOptions(runDir: string): StudyOptions {
  const run = readJson<RunIdentity>(path.join(runDir, 'run.json'));
  const summary = readJson<StudySummary>(path.join(runDir, 'summary.json'));
  if (run.backend !== 'sim') {
    throw new RlAdvantagesError(`${runDir}: rl-adv study job runs the simulated backend's jobs; this run's backend is ${run.backend}`, { code: 'bad_option', field: 'run-dir' });
  }
  const tuning = run.tuning;
  return {
    specPath: summary.spec.path,
    dir: runDir,
    backend: createSimBackend(run.backend_settings as unknown as SimConfig),
    seed: run.seed,
    ...(run.questions === 'arith' ? {} : { questions: run.questions as SimQuestionSet }),
    ...(summary.data.dir === null ? {} : { dataDir: summary.data.dir }),
    ...(run.steps === null ? {} : { steps: run.steps }),
    ...(run.eval_limit === null ? {} : { evalLimit: run.eval_limit }),
    calibrationBatches: run.calibration_batches,
    calibrationBootstrap: run.calibration_bootstrap,
    ...(tuning === undefined ? {} : { tuneKernel: true, tuningTasks: tuning.tasks, ...(tuning.batches === null ? {} : { tuningBatches: tuning.batches }) }),
  };
}

/**
 * Runs one job of the simulated run in `runDir` in this process, through the same code and durable writes as the
 * in-process run (so its artifacts are byte-identical), and returns its result (printed as the job's JSON line).
 * The orchestrator holds the run folder's lock; this process only writes the job's own files.
 *
 * @throws {RlAdvantagesError} `bad_option` (field `job`) for a job the run does not have, (field `run-dir`) for a run
 *   of another backend or whose spec or data changed since run.json.
 * @example
 * ```ts
 * const rows = await runStudyJob('/runs/a', 'eval/full/grpo_g8/seed-2');
 * ```
 */
export async function runStudyJob(runDir: string, jobId: string): Promise<unknown> {
  const dir = path.resolve(runDir);
  const options = runOptions(dir);
  const inputs = await studyInputs(options);
  const recorded = readJson<RunIdentity>(path.join(dir, 'run.json'));
  // What makes the job's numbers: the spec, the data, the seed and the sim's settings must be the run's.
  const keys = ['spec_sha256', 'data_sha256', 'seed', 'backend', 'backend_settings', 'steps', 'eval_limit', 'calibration_batches', 'calibration_bootstrap', 'tuning'] as const;
  const same = keys.every((key) => JSON.stringify(inputs.identity[key]) === JSON.stringify(recorded[key]));
  if (!same) {
    throw new RlAdvantagesError(`${path.join(dir, 'run.json')}: the spec, data or settings differ from the run's; a job runs only on the run it belongs to`, { code: 'bad_option', field: 'run-dir' });
  }
  const summary = readJson<StudySummary>(path.join(dir, 'summary.json'));
  const jobs = studyJobGraph(phaseContext({ ...inputs, summary }));
  const job = jobs.find((j) => j.plan.id === jobId);
  if (job === undefined) {
    throw new RlAdvantagesError(`--job: the run has no job ${JSON.stringify(jobId)} (its jobs: ${jobs.map((j) => j.plan.id).join(', ')})`, { code: 'bad_option', field: 'job' });
  }
  return job.run();
}
