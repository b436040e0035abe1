export { groupMean, groupMeanStd, rloo, type GroupMeanStdOptions } from './group.js';
export { looBatchMean } from './loo-batch-mean.js';
export { tfidfKernelLoo, type TfidfKernelOptions } from './tfidf-kernel.js';
export { kernelLoo, type KernelLooOptions } from './kernel.js';
export { lengthBucketLoo, type LengthBucketOptions } from './length-bucket.js';
export {
  createEstimator,
  parseEstimatorName,
  ESTIMATOR_NAMES,
  type EstimatorBaseName,
  type EstimatorContext,
} from './registry.js';
export type { Batch, Estimator, EstimatorResult } from './types.js';
