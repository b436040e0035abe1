// Kernel families, kernel files and the tuner (docs/method.md sections 2.4, 2.5 and 4.3).
export { KERNEL_FAMILIES, TextCache, type Embedder, type KernelFamily } from './families/index.js';
export { TEXT_FEATURE_NAMES, LENGTH_MEASURES, textFeatures, lengthCount, type TextFeatureName, type LengthMeasure } from './features.js';
export {
  KERNEL_FILE_FORMAT,
  KERNEL_FILE_VERSION,
  loadKernel,
  kernelFileJson,
  kernelFamilyRows,
  type KernelFamilyChartRow,
  type KernelFile,
  type KernelInput,
  type KernelFamilyFigures,
  type KernelProvenance,
  type LoadedKernel,
} from './kernel-file.js';
export type { JsonObject } from './read.js';
export type { Embedding } from './weights.js';
export { fitRidge, predictRidge, type RidgeFit } from './ridge.js';
export { resolveKernelEstimatorName, isKernelEstimatorName, KERNEL_NAME_PREFIX, type ResolvedKernelName } from './resolve.js';
export { tuneKernel, type TuneKernelResult, type TuneDirection } from './tune/tune.js';
export type { TuneKernelOptions } from './tune/options.js';
export type { FeatureRow } from './tune/vectors.js';
export type { Candidate } from './tune/grid.js';
export type { HeldOutRatio } from './tune/heldout.js';
