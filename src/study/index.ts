// rl-advantages/study: the study protocol (docs/method.md section 8): its spec, the activation gate, runStudy, backends.

// Study spec and activation gate
export {
  loadStudySpec,
  parseDecisionRule,
  parseActivationGate,
  parseArms,
  StudySpecError,
  type StudySpec,
  type DecisionRule,
  type DecisionCriterion,
  type ActivationGate,
  type GateCheck,
  type StudyArm,
  type SpecProblem,
} from './spec.js';
export {
  evaluateGate,
  gateJson,
  type GateResult,
  type GateCheckResult,
  type GateCheckStatus,
  type GateJson,
} from './gate.js';
export {
  gateMetrics,
  gateArms,
  parseAdvantageLog,
  groupAdvantageLogByArm,
  GATE_METRIC_NAMES,
  NONZERO_ADVANTAGE_THRESHOLD,
  PILOT_BASELINE_STEPS,
  type AdvantageLogRow,
  type GateMetrics,
  type GateMetricName,
} from './gate-metrics.js';
export { missingGateMetricReasons } from './gate-metrics-missing.js';

// The study protocol (rl-adv study)
export { runStudy } from './run.js';
export { studyArms } from './setup.js';
export {
  STUDY_PHASES,
  STUDY_CALIBRATION,
  CALIBRATION_TASKS,
  CALIBRATION_ROLLOUTS,
  PILOT_STEPS,
  PILOT_EVAL_ITEMS,
  OPTIONAL_PHASES,
  TUNING_TASKS,
  type StudySummary,
  type PhaseRecord,
  type StudyPhase,
  type CalibrationSummary,
  type StudyDesignPower,
  type StudySeedDesignPower,
  type ComparisonDesignPower,
  type TuningSummary,
  type TuningKernelSummary,
  type ReplicateSummary,
  type ReplicateArmSummary,
  type LearningSummary,
  type ArtifactManifest,
  type ArtifactRecord,
  type KernelArmsSummary,
  type KernelArmSummary,
} from './summary.js';
export { TUNED_KERNEL, ORACLE_CELL_KERNEL, type SpecTuning } from './kernel-arm-spec.js';
export { oracleKernelJson, arithCell, ORACLE_KERNEL_FILE, ORACLE_TEMPERATURE } from './oracle-kernel.js';
export { runJobs, JobScheduler, DEFAULT_JOB_RETRIES, type StudyJob, type JobSchedulerOptions, type JobEvent } from './jobs.js';
export { createExecutor, setRayFactory, EXECUTOR_NAMES, LocalExecutor, type RayFactory, type ExecutorName, type ExecutorOptions, type LocalExecutorOptions } from './executor/index.js';
export { readLedger, LEDGER_FILE, type LedgerLine, type AttemptOutcome } from './executor/ledger.js';
export { planStudy } from './study-job.js';
export {
  JobLostError,
  type CancelSignal,
  type Executor,
  type JobAttempt,
  type JobCommand,
  type JobDescription,
  type JobPlacement,
  type JobPlan,
  type JobResources,
} from './executor/types.js';
export { RayExecutor, type RayExecutorOptions } from './executor/index.js';
export { replicateSeeds, seedOrder, curveSettings } from './replicates.js';
export { reviseStudySpec, writeRevisedSpec, type ReviseOptions, type RevisedSpec, type SpecRevision } from './revise.js';
export {
  studyOrder,
  studyTaskRanges,
  gateCalibrationTasks,
  tuningTaskRows,
  specSteps,
  STUDY_ORDER_BACKENDS,
  type StudyTaskRanges,
} from './task-sets.js';
export { armKernels } from './arm-kernels.js';
export { COMPARISON_KINDS, comparisonRule, type ComparisonKind, type StudyComparison } from './comparisons.js';
export { decideComparisons, type ArmSeedRows, type ComparisonJson, type ComparisonSeedJson, type MultiplicityJson } from './decide-comparisons.js';
export type { StudyOptions, StudyOutcome, PhaseEvent } from './options.js';
export type { LrSelection, LrSeedScore, LrPick, LrRunSummary, LrSelectionSummary } from './lr-grid.js';
export type { StudyBackend, StudyContext, StudyJobRunner, ArmRunRequest, ArmRunResult, EvalRow, BackendCheck, TuningRequest, CurvePoint } from './backends/types.js';
export { createTinkerBackend, TINKER_DRIVERS, type TinkerBackendOptions } from './backends/tinker.js';
export { estimatorPreflight, type PreflightCheck } from './backends/preflight.js';
export { createSimBackend } from './sim/backend.js';
export { SIM_DEFAULTS, SIM_CLUSTERED_DEFAULTS, simDefaults, type SimConfig } from './sim/world.js';
export {
  clusteredQuestions,
  questionsJsonl,
  SIM_QUESTION_SETS,
  type QuestionRow,
  type QuestionFamily,
  type ClusteredQuestion,
  type ClusteredQuestionSet,
  type ClusteredQuestionsOptions,
  type SimQuestionSet,
  type StudyQuestionSet,
} from './sim/questions.js';
