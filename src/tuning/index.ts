// The kernel tuner (docs/method.md section 4.3): a search over kernel families scored with the calibration's
// common random batches, cross-fitted held-out ratios, and the kernel file it writes. Above calibration/.
export { tuneKernel, type TuneKernelResult, type TuneDirection } from './tune.js';
export type { TuneKernelOptions } from './options.js';
export type { FeatureRow } from './vectors.js';
export type { Candidate } from './grid.js';
export type { HeldOutRatio } from './heldout.js';
