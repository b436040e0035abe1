// Kernel families and kernel files (docs/method.md sections 2.4 and 2.5); the tuner is src/tuning/
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
export { resolveKernelEstimatorName, isKernelEstimatorName, KERNEL_NAME_PREFIX, KERNEL_FILE_MAX_BYTES, type ResolvedKernelName } from './resolve.js';
