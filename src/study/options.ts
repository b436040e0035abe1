// What runStudy takes and returns, and its progress events. Types only: the phases and the CLI share them
// without importing the runner.
import type { CancelSignal } from './executor/types.js';
import type { StudyBackend } from './backends/types.js';
import type { Executor } from './executor/types.js';
import type { SimQuestionSet } from './sim/questions.js';
import type { StudySummary } from './summary.js';

/** What {@link runStudy} needs. */
export interface StudyOptions {
  /** The spec file. */
  readonly specPath: string;
  /** The run folder. */
  readonly dir: string;
  readonly backend: StudyBackend;
  /** The study seed (default 0). */
  readonly seed?: number;
  /** Continue a run in `dir` instead of refusing a non-empty folder. */
  readonly resume?: boolean;
  /** GSM8K folder (default: GSM8K_DIR); refused with `questions: 'clustered'`. */
  readonly dataDir?: string;
  /**
   * The questions: `gsm8k` (default, read from `dataDir`) or `clustered`, the built-in templated set of
   * `clusteredQuestions()` (a simulated backend only; docs/sim.md).
   */
  readonly questions?: SimQuestionSet;
  /** Override every arm's steps (for quick runs; recorded in the summary). */
  readonly steps?: number;
  /** Evaluate only the first N test items in the eval phase (for quick runs; recorded). */
  readonly evalLimit?: number;
  /** Calibration batches, and `calibrationBootstrap`: 0 for no B_eff interval, else the jackknife (defaults {@link STUDY_CALIBRATION}). */
  readonly calibrationBatches?: number;
  readonly calibrationBootstrap?: number;
  /**
   * Run the optional tuning phase (docs/study.md): the starting policy's rollouts, one per task, on `tuningTasks`
   * (default TUNING_TASKS) train tasks neither arm reaches nor the gate uses, written to tuning.jsonl, and a kernel
   * tuned on them (kernel.json). The run's arms never change: a kernel is adopted only through `study revise`.
   */
  readonly tuneKernel?: boolean;
  readonly tuningTasks?: number;
  /** tune-kernel's scoring batches per candidate (default: tune-kernel's own). */
  readonly tuningBatches?: number;
  /**
   * The most arm x seed jobs (train, eval) running at once (`--jobs`; default: the machine's cores). Each job is
   * single-threaded; the artifacts are the same for any value.
   */
  readonly jobs?: number;
  /**
   * Where every job's process runs (`--executor`; default: a LocalExecutor, the sim's jobs computed in this process).
   * The artifacts are the same for any executor.
   */
  readonly executor?: Executor;
  /** Retries of a job whose node or worker was lost (`--job-retries`, default 2); a driver's failure is never retried. */
  readonly jobRetries?: number;
  /** Each job's GPUs and CPUs (`--job-gpus`, `--job-cpus`; defaults per backend and spec: docs/study.md, "Jobs"). */
  readonly jobGpus?: number;
  readonly jobCpus?: number;
  /**
   * The simulated backend's jobs: `in-process` (the default under the local executor) or `process`, each job its own
   * `rl-adv study job` process as on a cluster (always so under another executor). The artifacts are the same.
   */
  readonly simJobs?: 'in-process' | 'process';
  /** The CLI's entry (dist/cli.js) that a sim job's process runs (default: the running script, process.argv[1]). */
  readonly cliPath?: string;
  /** Ctrl-C: every running job is cancelled and the run stops (resumable). */
  readonly signal?: CancelSignal;
  /** Progress: a phase starts, advances, ends. */
  readonly onPhase?: (event: PhaseEvent) => void;
  /**
   * Called after every write of summary.json (the run folder and the summary just written): where a caller keeps
   * files drawn from the summary up to date, as `runStudyWithReports` (src/report/write.ts) does with report.md.
   * The study itself writes no report.
   */
  readonly onSummary?: (dir: string, summary: StudySummary) => void;
  /**
   * Called once after the last phase, while the run folder is still locked (the CLI writes the reports here, so no
   * second process can start on the folder before they are complete).
   */
  readonly finish?: (dir: string, summary: StudySummary) => Promise<void>;
}

/** Progress events for a terminal or a log. */
export type PhaseEvent =
  | { readonly kind: 'start'; readonly phase: string; readonly label: string }
  | { readonly kind: 'progress'; readonly phase: string; readonly label: string; readonly done: number; readonly total: number }
  | { readonly kind: 'end'; readonly phase: string; readonly line: string; readonly seconds: number }
  /** A line about the run as a whole, e.g. where a resumed run continues. */
  | { readonly kind: 'note'; readonly line: string };

/** The outcome of {@link runStudy}: the exit code (0 done, 1 gate failed) and the summary. */
export interface StudyOutcome {
  readonly exitCode: 0 | 1;
  readonly summary: StudySummary;
}
