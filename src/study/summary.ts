// The study's artifact types (summary.json and its parts) and the protocol's fixed sizes: what the runner writes
// and what report/ reads. Types and constants only, so a reader of a run folder never loads the runner.
import type { DecisionJson } from '../stats/decision.js';
import type { DesignPowerJson } from '../stats/design-power.js';
import type { SeedDecisionJson } from '../stats/seeds.js';
import type { SeedDesignPowerJson } from '../stats/seed-power.js';
import type { CurvePoint } from './backends/types.js';
import type { PreflightCheck } from './backends/preflight.js';
import type { GateJson } from './gate.js';
import type { GateMetrics } from './gate-metrics.js';
import type { StudyQuestionSet } from './sim/questions.js';
import type { ComparisonJson, MultiplicityJson } from './decide-comparisons.js';
import type { LrSelectionSummary } from './lr-grid.js';

/**
 * The phases, in order of work. `tuning` is optional (`rl-adv study --tune-kernel`, or the spec's `tuning`);
 * `kernel_arms` runs for a spec with kernel arms (docs/study.md, "Kernel arms"); every other phase always runs.
 */
export const STUDY_PHASES = ['preflight', 'calibration', 'tuning', 'kernel_arms', 'pilot', 'gate', 'arms', 'eval', 'decision'] as const;
export type StudyPhase = (typeof STUDY_PHASES)[number];
/** The phases that run only when asked for. */
export const OPTIONAL_PHASES: readonly StudyPhase[] = ['tuning', 'kernel_arms'];

/** Tuning phase: how many train tasks get one rollout each by default (`--tuning-tasks`). */
export const TUNING_TASKS = 1000;

/** Tasks in the calibration set (the last of the data order) and rollouts per task (docs/method.md section 8 step 3). */
export const CALIBRATION_TASKS = 64;
export const CALIBRATION_ROLLOUTS = 8;
/** Pilot: steps per arm and eval items (docs/method.md section 8 step 4). */
export const PILOT_STEPS = 3;
export const PILOT_EVAL_ITEMS = 100;
/**
 * The study's calibration settings: the recipe's 20000 batches. `bootstrap` keeps run.json's old field
 * `calibration_bootstrap` readable: 0 means no interval (`--calibration-interval none`), any other value the
 * delete-one-task jackknife (docs/method.md section 4.1); no bootstrap runs.
 */
export const STUDY_CALIBRATION = Object.freeze({ batches: 20000, bootstrap: 100 });

/** One phase in summary.json. */
export interface PhaseRecord {
  status: 'done' | 'failed' | 'stopped';
  wall_seconds: number;
  result: string;
}

/** summary.json. */
export interface StudySummary {
  spec: { title: string | null; path: string; sha256: string };
  /**
   * The question set (`gsm8k` or the built-in `clustered`), its folder (null for the built-in set), its row counts,
   * and the sha256 of train.jsonl followed by test.jsonl (for the built-in set, of the JSON lines it would write).
   */
  data: { questions: StudyQuestionSet; dir: string | null; train: number; test: number; sha256: string };
  seed: number;
  /** `sim` or `tinker`. */
  backend: string;
  /** True for the sim backend: its figures come from a simulation. */
  simulation: boolean;
  backend_settings: Record<string, unknown>;
  version: string;
  options: {
    steps: number | null;
    eval_limit: number | null;
    calibration_batches: number;
    /** 0: no B_eff interval; otherwise the delete-one-task jackknife (the name is kept so old runs still resume). */
    calibration_bootstrap: number;
    /** Present when the run has the tuning phase (`--tune-kernel`): its task count, and tune-kernel's batches (null: its default). */
    tuning_tasks?: number;
    tuning_batches?: number | null;
  };
  phases: Partial<Record<StudyPhase, PhaseRecord>>;
  preflight?: { passed: boolean; checks: readonly (PreflightCheck | { id: string; passed: boolean; detail: string })[] };
  calibration: CalibrationSummary | null;
  /** The tuning phase's rows and the kernel tuned on them (`--tune-kernel`, or the spec's `tuning`). */
  tuning?: TuningSummary;
  /** Each kernel arm's B_eff ratio on the calibration set beside its gain over the batch-mean arm (docs/study.md, "Kernel arms"). */
  kernel_arms?: KernelArmsSummary;
  pilot?: { arms: Record<string, { reward_per_step: number[] }>; eval: Record<string, { accuracy: number; n: number }> };
  gate: GateJson | null;
  gate_metrics?: GateMetrics;
  fallback?: { estimator: string; ratio: number; ratio_ci95: readonly [number, number] | null; note: string };
  arms?: Record<string, { advantage: string; steps: number; reward_per_step: number[] }>;
  eval?: Record<string, { accuracy: number; n: number; file: string }>;
  /** The decision: the paired one of a single run, or the decision across seeds of a replicated run (docs/method.md section 5.8). */
  decision?: DecisionJson | SeedDecisionJson;
  /** The starting policy on the eval items (eval/init.jsonl): what each arm's change is measured from. */
  start?: { accuracy: number; n: number; file: string };
  /** One object per seed (a single run has one): its arms and its own exact paired decision. */
  replicates?: ReplicateSummary[];
  /** Each arm's change from the starting policy, and the flag when no arm improved on it. */
  learning?: LearningSummary;
  /**
   * The learning curve's settings (the spec's eval.curve_items / curve_every), when it has one; `decoding: 'sampled'`
   * on Tinker, whose curve is the recipe's own evaluator (temperature 1), absent where the curve is greedy.
   */
  curve?: { items: number; every: number; decoding?: 'sampled' };
  /**
   * A spec with `decision_rule.comparisons`: every comparison decided (docs/method.md section 5.10), in the spec's
   * order; `decision` and `comparison` are then absent.
   */
  comparisons?: ComparisonJson[];
  /** The procedure over `comparisons` (Holm's step-down across seeds, Bonferroni on one seed). */
  multiplicity?: MultiplicityJson;
  /** Which arm is the treatment (the kernel arm) and which the baseline (the group_mean arm) of the decision. */
  comparison?: { treatment: string; baseline: string };
  plan?: { n: number; alpha: number; criteria: { id: string; half_width: number; validates_above: number; fails_below: number }[] };
  /**
   * What this design can conclude (docs/method.md section 5.6): the power of every decision method at the run's n
   * and the discordance its eval observed (or an assumed 0.2 when the run stopped before the eval); null when no
   * criterion compares 0/1 outcomes. The report's power chart and section read it.
   */
  design_power?: StudyDesignPower | null;
  /** A spec with `lr_grid` arms: the held-out split, every learning rate's scores per seed, the pick and why (lr-grid.ts). */
  lr_selection?: LrSelectionSummary;
  /**
   * A replicated run's own design (docs/method.md section 5.9): the seed-level decision's power at its S seeds and n
   * items under stated assumptions; `design_power` is then one seed's paired power only.
   */
  seed_design_power?: StudySeedDesignPower | null;
  /**
   * Every JSON or JSON-lines file the phases wrote, by its path in the run folder: the phase, its bytes, its sha256
   * and (JSON lines) its rows, recorded when the phase ends (src/study/artifact-manifest.ts). `--resume` rebuilds
   * a kept artifact that no longer matches; `rl-adv report` refuses one it reads. Absent in runs written before it.
   */
  artifacts?: ArtifactManifest;
  /**
   * A spec with `decision_rule.comparisons`: what each comparison's design can conclude, in the spec's order, each at
   * its Bonferroni level alpha / K (Holm's first round); `design_power` and `seed_design_power` above are the first's.
   */
  comparisons_design_power?: ComparisonDesignPower[];
  exit_code?: number;
}

/** One arm of one seed in summary.json's `replicates`. */
export interface ReplicateArmSummary {
  advantage: string;
  steps: number;
  reward_per_step: number[];
  /** Greedy accuracy on the curve items during training (null: no curve, or the backend keeps none). */
  curve: CurvePoint[] | null;
  /** An arm with `lr_grid`: the learning rate the selection picked (the run this entry describes). */
  lr?: number;
  /** Filled by the eval phase. */
  accuracy?: number;
  n?: number;
  eval_file?: string;
}

/** One seed of summary.json's `replicates`. */
export interface ReplicateSummary {
  seed: number;
  /** The starting policy's accuracy (the same for every seed: one starting policy). */
  start_accuracy?: number;
  arms: Record<string, ReplicateArmSummary>;
  /** This seed's exact paired decision of treatment against baseline (about its two checkpoints only). */
  difference?: DecisionJson;
}

/** summary.json's `learning`: each arm's change from the starting policy (an arm improved when its lower bound is above 0). */
export interface LearningSummary {
  /** The method of the change intervals (the seed-level method, or the rule's paired method for one seed). */
  method: string;
  arms: Record<string, { estimate: number; interval: [number, number]; improved: boolean }>;
  no_arm_improved: boolean;
}

/** summary.json's `seed_design_power`: the seed-level power with its assumptions in words, or why it could not be computed. */
export type StudySeedDesignPower = (SeedDesignPowerJson & { assumptions: string }) | { error: string; assumptions: string };

/** One comparison's design in summary.json's `comparisons_design_power`. */
export interface ComparisonDesignPower {
  id: string;
  treatment: string;
  reference: string;
  /** The two-sided level the design is planned at: alpha / K. */
  alpha: number;
  /** One seed's paired power at alpha / K (section 5.6). */
  design_power: StudyDesignPower | null;
  /** Several seeds: the seed-level power at alpha / K (section 5.9). */
  seed_design_power?: StudySeedDesignPower | null;
}

/** summary.json's `design_power`: the design's power and the spec's method (the one the study decides with). */
export type StudyDesignPower = DesignPowerJson & { spec_method: string };

/** The calibration figures summary.json keeps. */
export interface CalibrationSummary {
  tasks: number;
  rollouts: number;
  mean_reward: number;
  sigma_eps2: number | null;
  batch_size: number;
  batches: number;
  /** How the ratios' 95% intervals were made (`jackknife`: delete-one-task, docs/method.md section 4; `none`). */
  interval_method: string;
  seed: string | number;
  reference: string;
  estimators: Record<string, { mse_corrected: number; ratio: number; ratio_se: number; ratio_ci95: readonly [number, number] | null }>;
}

/** What summary.json keeps of the tuning phase (docs/study.md, "The tuning phase"). */
export interface TuningSummary {
  /** Tasks sampled (one rollout each), their rows' file in the run folder and its sha256. */
  tasks: number;
  rows: number;
  file: string;
  sha256: string;
  mean_reward: number;
  /** Where the tasks start in the data order (after the arms' tasks) and where the last one is (exclusive). */
  order_first: number;
  order_end: number;
  /** The kernel tuned on the rows (kernel.json in the run folder), or null before it is tuned. */
  kernel: TuningKernelSummary | null;
}

/** The tuned kernel's figures, as its kernel.json provenance states them. */
export interface TuningKernelSummary {
  file: string;
  sha256: string;
  family: string;
  candidates: number | null;
  tuning_ratio: number | null;
  held_out: { ratio: number | null; ratio_ci95: readonly [number, number] | null; interval_method: string | null };
  selection_bias: number | null;
  /** The best candidate of each family (the report's kernel chart). */
  per_family: readonly { family: string; tuning: number; held_out: number | null; held_out_ci95?: readonly [number, number] | null }[];
}

/** One artifact in summary.json's `artifacts`, keyed by its path in the run folder (`/`-separated). */
export interface ArtifactRecord {
  /** The phase that wrote it (a torn one is rebuilt by redoing this phase and every one after it). */
  phase: StudyPhase;
  bytes: number;
  sha256: string;
  /** JSON lines: the non-blank lines it holds. */
  rows?: number;
}

/** summary.json's `artifacts`, in the phases' order, then by path. */
export type ArtifactManifest = Record<string, ArtifactRecord>;

/** One kernel arm in summary.json's `kernel_arms`. */
export interface KernelArmSummary {
  arm: string;
  advantage: string;
  /** sha256 of the arm's kernel file (a kernel file, the tuned kernel, the oracle), from run.json; null for a named estimator. */
  kernel_sha256: string | null;
  /** B_eff ratio against the LOO batch mean on the calibration set, and its 95% interval (null without one). */
  beff_ratio: number;
  beff_ratio_ci95: readonly [number, number] | null;
  /**
   * The arm's mean accuracy minus the batch-mean arm's: the comparison of the two (its estimate, interval at its
   * level, verdict) and each seed's difference; null before the decision or without that comparison.
   */
  gain: {
    comparison: string;
    estimate: number;
    interval: readonly [number, number];
    level: number;
    verdict: string;
    per_seed: { seed: number; gain: number }[];
  } | null;
}

/** summary.json's `kernel_arms`: the calibration the ratios come from, the batch-mean arm, and each kernel arm. */
export interface KernelArmsSummary {
  /** calibration/kernel-arms.json in the run folder. */
  file: string;
  reference: string;
  /** The arm whose advantage is `loo_batch_mean` (the gains' reference), or null when the spec has none. */
  reference_arm: string | null;
  batch_size: number;
  batches: number;
  interval_method: string;
  arms: KernelArmSummary[];
}
