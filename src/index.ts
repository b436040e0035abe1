/**
 * rl-advantages: advantage estimators for RL post-training of LLMs (GRPO group mean,
 * leave-one-out, GS1 prompt-similarity kernels), B_eff calibration, the activation gate and the
 * paired Hoeffding decision. Every formula follows docs/method.md.
 *
 * @packageDocumentation
 */
export { RlAdvantagesError } from './errors.js';
export { VERSION } from './version.js';
export type { NdArrayLike } from './internal/validate.js';

// Estimators
export type { Batch, Estimator, EstimatorResult } from './estimators/types.js';
export { groupMean, groupMeanStd, rloo, type GroupMeanStdOptions } from './estimators/group.js';
export { looBatchMean } from './estimators/loo-batch-mean.js';
export { tfidfKernelLoo, type TfidfKernelOptions } from './estimators/tfidf-kernel.js';
export { kernelLoo, type KernelLooOptions } from './estimators/kernel.js';
export { lengthBucketLoo, type LengthBucketOptions } from './estimators/length-bucket.js';
export {
  createEstimator,
  parseEstimatorName,
  ESTIMATOR_NAMES,
  type EstimatorBaseName,
  type EstimatorContext,
} from './estimators/registry.js';

// Text
export { TfidfVectorizer, type CsrMatrix, type TfidfOptions, type TfidfVectorizerJSON } from './text/tfidf.js';
export { sklearnTokenizer, compareCodePoints, type Tokenizer } from './text/tokenize.js';
export { winkTokenizer } from './text/wink.js';

// B_eff calibration
export {
  calibrateBeff,
  groupCalibrationRows,
  beffRatioFromFigures,
  beffFromFigures,
  DEFAULT_CALIBRATION_ESTIMATOR,
  type CalibrateBeffOptions,
  type BeffCalibration,
  type EstimatorCalibration,
  type CalibrationTask,
  type CalibrationRow,
  type BeffRatioFigures,
  type CalibrationInterval,
  type NoiseModel,
} from './calibration/beff.js';
export {
  calibrationJson,
  parseCalibrationJson,
  type CalibrationJson,
  type EstimatorCalibrationJson,
  type VectorizerSource,
} from './calibration/json.js';

// Statistics and the study's decision rule
export {
  decide,
  planDecision,
  pairedHoeffding,
  hoeffdingHalfWidth,
  criterionVerdict,
  combineVerdicts,
  decisionJson,
  type DecisionJson,
  type Verdict,
  type PairedItem,
  type Decision,
  type CriterionDecision,
  type DecisionPlan,
  type CriterionPlan,
  type HoeffdingInterval,
} from './stats/hoeffding.js';

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
} from './study/spec.js';
export {
  evaluateGate,
  gateJson,
  type GateResult,
  type GateCheckResult,
  type GateCheckStatus,
  type GateJson,
} from './study/gate.js';
export {
  gateMetrics,
  parseAdvantageLog,
  groupAdvantageLogByArm,
  GATE_METRIC_NAMES,
  NONZERO_ADVANTAGE_THRESHOLD,
  PILOT_BASELINE_STEPS,
  type AdvantageLogRow,
  type GateMetrics,
  type GateMetricName,
} from './study/gate-metrics.js';

// The study protocol (rl-adv study)
export {
  runStudy,
  studyArms,
  STUDY_PHASES,
  STUDY_CALIBRATION,
  CALIBRATION_TASKS,
  CALIBRATION_ROLLOUTS,
  PILOT_STEPS,
  PILOT_EVAL_ITEMS,
  type StudyOptions,
  type StudyOutcome,
  type StudySummary,
  type PhaseEvent,
  type PhaseRecord,
  type StudyPhase,
  type CalibrationSummary,
} from './study/run.js';
export { renderReport } from './study/report.js';
export type { StudyBackend, StudyContext, ArmRunRequest, ArmRunResult, EvalRow, BackendCheck } from './study/backends/types.js';
export { createTinkerBackend, TINKER_DRIVERS, type TinkerBackendOptions } from './study/backends/tinker.js';
export { estimatorPreflight, type PreflightCheck } from './study/backends/preflight.js';
export { createSimBackend } from './study/sim/backend.js';
export { SIM_DEFAULTS, SIM_CLUSTERED_DEFAULTS, simDefaults, type SimConfig } from './study/sim/world.js';
export {
  clusteredQuestions,
  questionsJsonl,
  SIM_QUESTION_SETS,
  CLUSTERED_FAMILIES,
  CLUSTERED_COMMON_WORDS,
  CLUSTERED_DEFAULT_FAMILIES,
  CLUSTERED_QUESTIONS_SEED,
  type QuestionRow,
  type QuestionFamily,
  type ClusteredQuestion,
  type ClusteredQuestionSet,
  type ClusteredQuestionsOptions,
  type SimQuestionSet,
} from './study/sim/questions.js';

// GSM8K grading and data
export { extractBoxed } from './grading/boxed.js';
export {
  normalizeAnswer,
  parseExactNumber,
  formatExactNumber,
  exactNumbersEqual,
  MAX_ANSWER_DIGITS,
  type ExactNumber,
} from './grading/exact-number.js';
export {
  gsm8kReferenceAnswer,
  gradeNumericExact,
  gsm8kReward,
  gradeGsm8kResponse,
  GSM8K_FORMAT_COEF,
  type Gsm8kRewardOptions,
  type Gsm8kGrade,
} from './grading/gsm8k.js';
export { loadGsm8k, resolveGsm8kDir, type Gsm8kItem, type Gsm8kSplit } from './grading/gsm8k-data.js';
