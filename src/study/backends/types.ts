// What a study backend does for the orchestrator (src/study/run.ts): sample the calibration rollouts, train one
// arm (pilot or full) while logging advantages.jsonl, and evaluate a policy greedily on test items. The orchestrator
// owns the order of work (docs/method.md section 8), the gate, the decision and every summary; a backend only runs phases.
import type { CalibrationRow } from '../../calibration/beff.js';
import type { Gsm8kItem } from '../../data/gsm8k.js';
import type { LoadedKernel } from '../../kernels/kernel-file.js';
import type { TfidfVectorizer } from '../../text/tfidf.js';
import type { JobAttempt, JobDescription, JobPlan } from '../executor/types.js';
import type { StudyArm, StudySpec } from '../spec.js';

/** What every phase may read. */
export interface StudyContext {
  readonly spec: StudySpec;
  /** Absolute path of the spec file (a real backend hands it to its drivers). */
  readonly specPath: string;
  /** The run folder. */
  readonly dir: string;
  /** The study seed (--seed). */
  readonly seed: number;
  /** The GSM8K folder. */
  readonly dataDir: string;
  readonly train: readonly Gsm8kItem[];
  readonly test: readonly Gsm8kItem[];
  /** TF-IDF fitted on the train questions (docs/method.md section 3). */
  readonly vectorizer: TfidfVectorizer;
  /**
   * The data order: the arms' seed shuffle of the train indices (the backend's: `studyOrder`); the arms train from
   * its front, the last 64 are the calibration set.
   */
  readonly order: Int32Array;
  /** Loaded kernel files of the arms whose advantage is `kernel:PATH`, by that name (PATH relative to the spec file). */
  readonly kernels: Readonly<Record<string, LoadedKernel>>;
  /** Called with (done, total) as a phase advances. */
  readonly progress: (done: number, total: number) => void;
  /**
   * The study's scheduler of job processes (src/study/jobs.ts) through its executor; absent (a backend used on its
   * own): each job's process runs on this machine, one attempt, no ledger.
   */
  readonly jobs?: StudyJobRunner;
  /**
   * Train rows of the spec's `lr_selection` split (lr-split.ts), when it has one: held out of every seed's data order,
   * scored by each learning rate of an arm's grid.
   */
  readonly heldOut?: readonly number[];
}

/** How a backend runs the process of a described job. */
export interface StudyJobRunner {
  /** Runs the job (retries, cancellation and the ledger are the scheduler's); its attempt's stdout and placement. */
  run(job: JobDescription): Promise<JobAttempt>;
  /**
   * True when the simulated backend may compute its jobs inside this process (`--executor local`, today's bytes);
   * false: every sim job runs as its own process (`rl-adv study job`), as on a cluster.
   */
  readonly inProcess: boolean;
  /** How this process runs `rl-adv` (node and the CLI's script, absolute): a sim job's command starts with it. */
  readonly cli: readonly string[];
}

/** The tuning phase's request: the starting policy's rollouts, one per task. */
export interface TuningRequest {
  /** The tasks, in data order: the free range of the order from `first` on, skipping `exclude`. */
  readonly tasks: readonly Gsm8kItem[];
  /** Where they start in the data order (after the arms' tasks). */
  readonly first: number;
  /** Train rows skipped in that range (the gate's calibration set of the other backend's order). */
  readonly exclude: readonly number[];
  /** The rows' file (tuning.jsonl). */
  readonly out: string;
}

/** One arm run: the pilot (3 steps) or the full arm. */
export interface ArmRunRequest {
  readonly arm: StudyArm;
  readonly phase: 'pilot' | 'full';
  readonly steps: number;
  /** The arm's folder (holds advantages.jsonl and the backend's checkpoints). */
  readonly dir: string;
  /** A replicated run's seed (the RL seed of both arms); absent in a single run (the arms' own seed). */
  readonly seed?: number;
  /**
   * The data order this run trains on (the seed's, without the calibration set); absent: the study's. The Tinker
   * backend's drivers train on the cookbook's own order of `seed` instead (the recipe's data seed).
   */
  readonly order?: Int32Array;
  /** The learning curve: greedy accuracy on `items` at step 0, every `every` steps and at the last step. */
  readonly curve?: { readonly items: readonly Gsm8kItem[]; readonly every: number };
  /** An arm with `lr_grid`: the index of `arm.lr` in its grid (the run's folder is `.../<arm>/lr-<index>`). */
  readonly lrIndex?: number;
}

/** One point of a learning curve (curve.jsonl's rows). */
export interface CurvePoint {
  readonly step: number;
  readonly accuracy: number;
  readonly correct: number;
  readonly n: number;
}

/** What a finished arm run reports. */
export interface ArmRunResult {
  /** Mean reward of every step's rollouts, step 0 first. */
  readonly rewardPerStep: readonly number[];
  /** An opaque reference to the final policy, for {@link StudyBackend.evaluate} (a file or a tinker:// URI). */
  readonly checkpoint: string;
  /** The learning curve when one was asked for (curve.jsonl's rows). */
  readonly curve?: readonly CurvePoint[];
}

/** One evaluated test item (the `rl-adv decide` prediction format). */
export interface EvalRow {
  readonly item_id: string;
  readonly correct: boolean;
}

/** A backend-specific preflight check beside the library's own. */
export interface BackendCheck {
  readonly id: string;
  readonly passed: boolean;
  readonly detail: string;
}

/** A study backend. */
export interface StudyBackend {
  readonly name: 'sim' | 'tinker' | 'trl';
  /** True for the simulated backend: every report says so. */
  readonly simulation: boolean;
  /** Settings that identify the backend's results (a resumed run must use the same ones). */
  identity(): Record<string, unknown>;
  /**
   * Backend checks of docs/method.md section 8 step 1 (the library's estimator checks run for every backend). Each
   * method's `job` is its plan in the study's job graph (id, kind, resources, files), from which a backend
   * describes the job's process to the executor; absent when a backend is called on its own.
   */
  preflight(ctx: StudyContext, job?: JobPlan): Promise<readonly BackendCheck[]>;
  /** The starting policy's rollouts on the calibration tasks, `rollouts` each, written to `out` and returned. */
  sampleCalibration(ctx: StudyContext, tasks: readonly Gsm8kItem[], rollouts: number, out: string, job?: JobPlan): Promise<CalibrationRow[]>;
  /**
   * The tuning phase (optional): the starting policy's rollouts, one per task of `request.tasks`, written to
   * `request.out` (`{task_id, prompt, reward}` lines, the calibrate row format) and returned.
   */
  sampleTuning(ctx: StudyContext, request: TuningRequest, job?: JobPlan): Promise<CalibrationRow[]>;
  /** Trains one arm, resuming from its own checkpoint in `request.dir` when there is one. */
  trainArm(ctx: StudyContext, request: ArmRunRequest, job?: JobPlan): Promise<ArmRunResult>;
  /** Greedy eval of `checkpoint` (`init` = the starting policy) on `items`, written to `out` and returned. */
  evaluate(ctx: StudyContext, checkpoint: string, items: readonly Gsm8kItem[], out: string, job?: JobPlan): Promise<EvalRow[]>;
}

/** One preflight check. */
export interface PreflightCheck {
  readonly id: string;
  readonly passed: boolean;
  /** Largest absolute difference from the expected values. */
  readonly maxAbsError: number;
  /** The tolerance it was held to. */
  readonly tolerance: string;
  readonly detail: string;
}
