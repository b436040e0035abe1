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
export type {
  Batch,
  Estimator,
  EstimatorResult,
  EstimatorDiagnostics,
  Normalize,
  NormalizeOptions,
} from './estimators/types.js';
export { groupMean, groupMeanStd, rloo, type GroupMeanStdOptions, type RlooOptions } from './estimators/group.js';
export { reinforcePlusPlusBaseline, type ReinforcePlusPlusOptions } from './estimators/reinforce-plus-plus.js';
export { remax, opo, gpg } from './estimators/outcome-baselines.js';
export { grpoPassk, passk, binomialRatio, type GrpoPasskOptions, type PasskOptions } from './estimators/passk.js';
export { shrinkageLoo, type ShrinkageLooOptions } from './estimators/shrinkage-loo.js';
export {
  PromptValueEstimator,
  type PromptValueOptions,
  type PromptValueJSON,
  type StatefulEstimator,
} from './estimators/prompt-value.js';
export { looBatchMean } from './estimators/loo-batch-mean.js';
export { maxrl, type MaxrlOptions } from './estimators/maxrl.js';
export { normalized } from './estimators/normalized.js';
export { RunningNormalization, type RunningNormalizationJSON } from './estimators/normalization/stateful.js';
export { gdpo, type GdpoFlavour, type GdpoOptions } from './estimators/gdpo.js';
export type { GroupMeanOptions } from './estimators/group.js';
export type { GroupBaselineOptions } from './estimators/outcome-baselines.js';
export type { Singleton } from './internal/normalize.js';
export {
  DEFAULT_NORMALIZATION,
  INITIAL_RUNNING_STATE,
  NORMALIZATION_CHOICES,
  NORMALIZATION_PRESETS,
  NORMALIZATION_PRESET_NAMES,
  Normalizer,
  normalizationPreset,
  normalizeStep,
  readNormalization,
  type Centre,
  type EpsilonMode,
  type NormalizationBatch,
  type NormalizationDiagnostics,
  type NormalizationPreset,
  type NormalizationResult,
  type NormalizationSettings,
  type NormalizationSpec,
  type RunningState,
  type Scale,
  type Variance,
  type Weights,
} from './estimators/normalization/index.js';
export { tfidfKernelLoo, type TfidfKernelOptions } from './estimators/tfidf-kernel.js';
export { kernelLoo, type KernelLooOptions } from './estimators/kernel.js';
export { lengthBucketLoo, type LengthBucketOptions } from './estimators/length-bucket.js';
export { kernelThreadState, type KernelThreadState } from './estimators/kernel-threads.js';
export {
  createEstimator,
  createStatefulEstimator,
  isStatefulEstimator,
  parseEstimatorName,
  ESTIMATOR_NAMES,
  ESTIMATOR_BASE_NAMES,
  TEMPERATURE_ESTIMATOR_BASE_NAMES,
  type EstimatorBaseName,
  type EstimatorName,
  type TemperatureEstimatorBaseName,
  type EstimatorContext,
} from './estimators/registry.js';
export { registerEstimator, estimatorDescriptors } from './estimators/catalogue.js';
export { loadEstimatorModule } from './estimators/module.js';
export {
  canonicalEstimatorName,
  resolveEstimator,
  type EstimatorSpec,
  type ResolvedEstimator,
} from './estimators/spec.js';
export {
  catalogueJson,
  specFromWire,
  specToWire,
  CATALOGUE_PROTOCOL,
  type CatalogueJson,
  type EstimatorJson,
  type ParameterJson,
} from './estimators/catalogue-json.js';
export type {
  EstimatorDescriptor,
  UserEstimatorDescriptor,
  EstimatorOutput,
  ParameterDescriptor,
  ParameterType,
  EstimatorParams,
  EstimatorResources,
  EstimatorSource,
  ShortForm,
  BatchField,
} from './estimators/descriptor.js';

export { kernelFileLoo, type KernelFileOptions } from './estimators/kernel-file.js';

// Kernel files, kernel families and the kernel tuner
export {
  KERNEL_FAMILIES,
  TextCache,
  TEXT_FEATURE_NAMES,
  LENGTH_MEASURES,
  textFeatures,
  lengthCount,
  KERNEL_FILE_FORMAT,
  KERNEL_FILE_VERSION,
  loadKernel,
  kernelFileJson,
  kernelFamilyRows,
  type KernelFamilyChartRow,
  fitRidge,
  predictRidge,
  resolveKernelEstimatorName,
  isKernelEstimatorName,
  KERNEL_NAME_PREFIX,
  tuneKernel,
  type TuneKernelResult,
  type TuneDirection,
  type TuneKernelOptions,
  type FeatureRow,
  type Candidate,
  type HeldOutRatio,
  type Embedder,
  type KernelFamily,
  type TextFeatureName,
  type LengthMeasure,
  type KernelFile,
  type KernelInput,
  type KernelFamilyFigures,
  type KernelProvenance,
  type LoadedKernel,
  type JsonObject,
  type Embedding,
  type RidgeFit,
  type ResolvedKernelName,
} from './kernels/index.js';

// Text
export { TfidfVectorizer, type CsrMatrix, type TfidfOptions, type TfidfVectorizerJSON } from './text/tfidf.js';
export { sklearnTokenizer, compareCodePoints, type Tokenizer } from './text/tokenize.js';
export { winkTokenizer } from './text/wink.js';

// B_eff calibration
export { inSampleTasks, type InSampleTasks } from './calibration/in-sample.js';
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

// Statistics: the paired decision (methods, verdicts), its plan and its power
export { decide, decisionJson, notSpecMethodNote, type DecisionJson, type Decision, type CriterionDecision } from './stats/decision.js';
export { criterionVerdict, combineVerdicts, type Verdict } from './stats/verdict.js';
export type { PairedItem } from './stats/items.js';
export { planDecision, type DecisionPlan, type CriterionPlan } from './stats/plan.js';
export { pairedHoeffding, hoeffdingHalfWidth, type HoeffdingInterval } from './stats/hoeffding.js';
export { pairedEmpiricalBernstein, empiricalBernsteinHalfWidth } from './stats/bernstein.js';
export { pairedExactBinomial, exactBinomialInterval, type DiscordantCounts } from './stats/exact-binomial.js';
export { pairedExactUnconditional, exactUnconditionalInterval, type VerdictThresholds } from './stats/exact-unconditional.js';
export { pairedTango, tangoInterval } from './stats/tango.js';
export type { PairedInterval, PairedIntervalOptions } from './stats/interval.js';
export { decisionMethod, type DecisionMethod } from './stats/methods.js';
export { DECISION_METHOD_NAMES, type DecisionMethodName } from './stats/method-names.js';
export {
  verdictProbabilities,
  powerTable,
  observedThresholds,
  nForPower,
  POWER_DIFFERENCES,
  POWER_N_CAP,
  type PowerDesign,
  type PowerTableRow,
  type VerdictProbabilities,
} from './stats/power.js';
export { designPower, ASSUMED_DISCORDANCE, type DesignPowerJson } from './stats/design-power.js';

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
  KERNEL_PREFIX,
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
  gateArms,
  parseAdvantageLog,
  groupAdvantageLogByArm,
  GATE_METRIC_NAMES,
  NONZERO_ADVANTAGE_THRESHOLD,
  PILOT_BASELINE_STEPS,
  type AdvantageLogRow,
  type GateMetrics,
  type GateMetricName,
} from './study/gate-metrics.js';
export { missingGateMetricReasons } from './study/gate-metrics-missing.js';

// The study protocol (rl-adv study)
export { runStudy } from './study/run.js';
export { studyArms } from './study/setup.js';
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
  type TuningSummary,
  type TuningKernelSummary,
} from './study/summary.js';
export { reviseStudySpec, writeRevisedSpec, type ReviseOptions, type RevisedSpec, type SpecRevision } from './study/revise.js';
export {
  studyOrder,
  studyTaskRanges,
  gateCalibrationTasks,
  tuningTaskRows,
  specSteps,
  STUDY_ORDER_BACKENDS,
  type StudyTaskRanges,
} from './study/task-sets.js';
export { numpyPermutation } from './study/numpy-order.js';
export { armKernels } from './study/arm-kernels.js';
export type { StudyOptions, StudyOutcome, PhaseEvent } from './study/options.js';
export { renderReport } from './report/markdown.js';

// Report: report.html and the charts
export { writeStudyReports, type WrittenReports } from './report/write.js';
export { readStudyArtifacts, parseEvalItems, studyKernelFamilyRows } from './report/artifacts.js';
export { renderStudyHtml, gateBar, SIM_BANNER, type StudyArtifacts } from './report/study-html.js';
export { calibrationPage, decisionPage, powerPage, kernelPage } from './report/pages.js';
export type { CalibrationFigures, CalibrationEstimatorFigures, DecisionFigures } from './report/sections.js';
export { renderHtmlPage, type HtmlPage, type HtmlSection } from './report/html.js';
export { renderChartSvg, CHART_WIDTH, type VegaLiteSpec } from './report/charts/render.js';
export { rewardChartSpec, rewardPoints, type ArmRewards, type RewardPoint } from './report/charts/reward.js';
export { beffChartSpec, type BeffRatioRow } from './report/charts/beff.js';
export { gateChartSpec, type GateCheckRow } from './report/charts/gate.js';
export { decisionChartSpec, type DecisionCriterionRow } from './report/charts/decision.js';
export { powerChartSpec, type PowerRow } from './report/charts/power.js';
export { accuracyChartSpec, wilsonInterval, pairedTable, type ArmAccuracy, type PairedTable } from './report/charts/accuracy.js';
export { kernelChartSpec, type KernelFamilyRow } from './report/charts/kernel.js';
export type { StudyBackend, StudyContext, ArmRunRequest, ArmRunResult, EvalRow, BackendCheck, TuningRequest } from './study/backends/types.js';
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

// GSM8K grading
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

// GSM8K data: finding it, the cache, downloading and verifying it
export { gsm8kHowToProvide, loadGsm8k, resolveGsm8kDir, type Gsm8kItem, type Gsm8kSplit } from './data/gsm8k.js';
export { gsm8kCacheDir, rlAdvCacheDir } from './data/cache.js';
export { GSM8K_COMMIT, GSM8K_DEFAULT_BASE_URL, GSM8K_FILES, gsm8kBaseUrl, type Gsm8kFile } from './data/gsm8k-source.js';
export { copyGsm8k, downloadGsm8k, type FetchGsm8kOptions, type FetchGsm8kResult, type Gsm8kProgress } from './data/download.js';
export { ensureGsm8kDir, isOffline, type EnsureGsm8kOptions } from './data/ensure.js';
