// The inputs of a study run, checked before the run folder is touched: the options, the spec and its two arms,
// the run's identity (run.json) and a fresh summary.json.
import { createHash } from 'node:crypto';
import path from 'node:path';
import { loadEstimatorModule } from '../estimators/module.js';
import { RlAdvantagesError } from '../errors.js';
import { VERSION } from '../version.js';
import type { StudyQuestions } from './load-questions.js';
import type { StudyOptions } from './options.js';
import { isKernelAdvantage } from './gate-metrics.js';
import { specTuning } from './kernel-arm-spec.js';
import type { RunKernelRecord } from './run-kernels.js';
import { loadStudySpec, SPEC_FILE_MAX_BYTES, type StudyArm, type StudySpec } from './spec.js';
import { STUDY_CALIBRATION, TUNING_TASKS, type StudySummary } from './summary.js';
import { readUserFile, usage } from './usage.js';
import { readBoundedFile } from '../internal/bounded-read.js';

/** run.json: what must match for --resume to continue a run. */
export type RunIdentity = {
  format: 'rl-adv/study-run';
  spec_sha256: string;
  questions: StudyQuestions['questions'];
  data_sha256: string;
  seed: number;
  backend: string;
  backend_settings: Record<string, unknown>;
  steps: number | null;
  eval_limit: number | null;
  calibration_batches: number;
  calibration_bootstrap: number;
  /** Present only with the tuning phase, so runs without it keep their identity. */
  tuning?: { tasks: number; batches: number | null };
  /** The sha256 of every kernel file (`kernel:PATH`) and of the oracle kernel, by advantage; absent without such arms. */
  kernels?: Record<string, RunKernelRecord>;
  version: string;
  /** Present only for a spec with lr_grid arms (lr-split.ts): the grids and the selection rule a resume must match. */
  lr_grid?: { arms: Record<string, readonly number[]>; selection: unknown };
};

/** Checks the numeric options; returns the study seed. */
export function checkOptions(options: StudyOptions): number {
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0) throw usage(`--seed must be an integer >= 0, got ${String(options.seed)}`);
  if (options.steps !== undefined && !(Number.isInteger(options.steps) && options.steps >= 1)) {
    throw usage(`--steps must be an integer >= 1, got ${String(options.steps)}`);
  }
  for (const [flag, value] of [['--tuning-tasks', options.tuningTasks], ['--tuning-batches', options.tuningBatches]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) throw usage(`${flag} must be an integer >= 1, got ${String(value)}`);
    if (value !== undefined && options.tuneKernel !== true) throw usage(`${flag} applies with --tune-kernel only (or fix the tuning phase in the spec's field "tuning")`);
  }
  if (options.jobs !== undefined && !(Number.isInteger(options.jobs) && options.jobs >= 1)) {
    throw usage(`--jobs must be an integer >= 1, got ${String(options.jobs)}`);
  }
  if (options.evalLimit !== undefined && !(Number.isInteger(options.evalLimit) && options.evalLimit >= 1)) {
    throw usage(`--eval-limit must be an integer >= 1, got ${String(options.evalLimit)}`);
  }
  return seed;
}

/**
 * Registers the spec's `estimator_modules` (paths relative to the spec file) so its arms may name a user's estimator;
 * a spec that is not JSON, or has no such field, registers nothing (readSpec reports its problems).
 */
export async function loadSpecModules(specPath: string): Promise<void> {
  let modules: unknown;
  try {
    modules = (JSON.parse(readBoundedFile(specPath, SPEC_FILE_MAX_BYTES).toString('utf8')) as { estimator_modules?: unknown }).estimator_modules;
  } catch {
    return;
  }
  if (!Array.isArray(modules)) return;
  const dir = path.dirname(path.resolve(specPath));
  for (const [i, file] of modules.entries()) {
    if (typeof file !== 'string' || file.trim() === '') continue;
    try {
      await loadEstimatorModule(file, dir, `spec field "estimator_modules[${i}]"`);
    } catch (error) {
      if (error instanceof RlAdvantagesError) throw new RlAdvantagesError(error.message, { code: error.code, field: `estimator_modules[${i}]`, index: i });
      throw error;
    }
  }
}

/** Reads and parses the spec file. */
export function readSpec(specPath: string): { specText: string; spec: StudySpec } {
  let specText: string;
  try {
    specText = readUserFile(specPath, '--spec', SPEC_FILE_MAX_BYTES).toString('utf8');
  } catch (error) {
    if (error instanceof RlAdvantagesError && error.code === 'file_not_found') throw usage(error.message, 'spec_not_found');
    throw error;
  }
  return { specText, spec: loadStudySpec(specText) };
}

/**
 * The kernel (treatment) arm and the group_mean (baseline) arm of a two-arm spec. With `decision_rule.comparisons`
 * (any number of arms), the arms the calibration and the gate are about: the kernel arm (else the first comparison's
 * treatment) and the group_mean arm (else the first comparison's reference).
 */
export function studyArms(spec: StudySpec): { treatment: StudyArm; baseline: StudyArm } {
  const byName = (name: string | undefined): StudyArm | undefined => spec.arms.find((arm) => arm.name === name);
  if (spec.comparisons !== undefined) {
    const first = spec.comparisons[0];
    const kernel = spec.arms.find((arm) => isKernelAdvantage(arm.advantage));
    const treatment = kernel ?? byName(first?.treatment) ?? (spec.arms[0] as StudyArm);
    const baseline = spec.arms.find((arm) => arm.advantage === 'group_mean' && arm !== treatment) ?? byName(first?.reference) ?? (spec.arms[1] as StudyArm);
    return { treatment, baseline };
  }
  if (spec.arms.length !== 2) {
    throw new RlAdvantagesError(`arms must hold exactly 2 arms (a baseline and a treatment) for rl-adv study, got ${spec.arms.length}`, {
      code: 'invalid_spec',
      field: 'arms',
    });
  }
  const baseline = spec.arms.find((arm) => arm.advantage === 'group_mean') ?? (spec.arms[0] as StudyArm);
  const treatment = spec.arms.find((arm) => arm !== baseline) as StudyArm;
  return { treatment, baseline };
}

/** The arms' one seed (their shared data order); refuses arms with different seeds. */
export function sharedArmSeed(spec: StudySpec): number {
  const armSeeds = new Set(spec.arms.map((arm) => arm.seed ?? 0));
  if (armSeeds.size !== 1) {
    throw new RlAdvantagesError('arms must share one seed (the same data order for every arm)', { code: 'invalid_spec', field: 'arms' });
  }
  return [...armSeeds][0] as number;
}

/**
 * The run's tuning phase: the spec's `tuning` section (the design fixes it; `--tuning-tasks` and `--tuning-batches`
 * are then refused), else `--tune-kernel` with its flags, else none.
 */
export function runTuning(options: StudyOptions, spec: StudySpec): { tasks: number; batches: number | null } | undefined {
  const fixed = specTuning(spec.raw);
  if (fixed !== undefined) {
    for (const [flag, value] of [['--tuning-tasks', options.tuningTasks], ['--tuning-batches', options.tuningBatches]] as const) {
      if (value !== undefined) throw usage(`${flag}: the spec fixes the tuning phase (its field "tuning"); drop the flag`);
    }
    return fixed;
  }
  return options.tuneKernel === true ? { tasks: options.tuningTasks ?? TUNING_TASKS, batches: options.tuningBatches ?? null } : undefined;
}

/** run.json of a run. */
export function runIdentity(options: StudyOptions, seed: number, specText: string, data: StudyQuestions, tuning?: RunIdentity['tuning']): RunIdentity {
  return {
    format: 'rl-adv/study-run',
    spec_sha256: createHash('sha256').update(specText).digest('hex'),
    questions: data.questions,
    data_sha256: data.dataSha256,
    seed,
    backend: options.backend.name,
    backend_settings: options.backend.identity(),
    steps: options.steps ?? null,
    eval_limit: options.evalLimit ?? null,
    calibration_batches: options.calibrationBatches ?? STUDY_CALIBRATION.batches,
    calibration_bootstrap: options.calibrationBootstrap ?? STUDY_CALIBRATION.bootstrap,
    ...(tuning !== undefined ? { tuning } : options.tuneKernel === true ? { tuning: { tasks: options.tuningTasks ?? TUNING_TASKS, batches: options.tuningBatches ?? null } } : {}),
    version: VERSION,
  };
}

/** summary.json before any phase has run. */
export function initialSummary(options: StudyOptions, spec: StudySpec, specPath: string, identity: RunIdentity, data: StudyQuestions): StudySummary {
  const title = typeof spec.raw.title === 'string' ? spec.raw.title : null;
  return {
    spec: { title, path: specPath, sha256: identity.spec_sha256 },
    data: { questions: data.questions, dir: data.dataDir, train: data.train.length, test: data.test.length, sha256: identity.data_sha256 },
    seed: identity.seed,
    backend: options.backend.name,
    simulation: options.backend.simulation,
    backend_settings: options.backend.identity(),
    version: VERSION,
    options: {
      steps: identity.steps,
      eval_limit: identity.eval_limit,
      calibration_batches: identity.calibration_batches,
      calibration_bootstrap: identity.calibration_bootstrap,
      ...(identity.tuning !== undefined ? { tuning_tasks: identity.tuning.tasks, tuning_batches: identity.tuning.batches } : {}),
    },
    phases: {},
    calibration: null,
    gate: null,
  };
}
