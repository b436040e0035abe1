/**
 * rl-advantages: advantage estimators for RL post-training of LLMs (GRPO group mean,
 * leave-one-out, GS1 prompt-similarity kernels): what a training loop imports (the estimators, their
 * registry, kernel files, the TF-IDF vectorizer, batch and result types). Every formula follows
 * docs/method.md. The rest is by concern: `rl-advantages/calibration` (B_eff), `/stats` (the paired
 * decision), `/tuning` (the kernel tuner), `/study` (the study protocol), `/report` (reports and
 * charts), `/data` (GSM8K and its grading).
 *
 * @packageDocumentation
 */
export { RlAdvantagesError, RlAdvantagesIoError } from './errors.js';
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
export type { Singleton } from './estimators/normalize.js';
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
export type { Singleton as NormalizationSingleton } from './estimators/normalization/spec.js';
export { tfidfKernelLoo, type TfidfKernelOptions } from './estimators/tfidf-kernel.js';
export { kernelLoo, type KernelLooOptions } from './estimators/kernel.js';
export { lengthBucketLoo, type LengthBucketOptions } from './estimators/length-bucket.js';
export { kernelThreadState, type KernelThreadState } from './kernels/kernel-threads.js';
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

// Kernel files and kernel families (the tuner: rl-advantages/tuning)
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
  KERNEL_FILE_MAX_BYTES,
  isKernelEstimatorName,
  KERNEL_NAME_PREFIX,
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
