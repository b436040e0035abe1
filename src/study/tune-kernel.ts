// The tuning phase's call of tune-kernel (placeholder until the tuner lands).
import type { CalibrationRow } from '../calibration/beff.js';
import { RlAdvantagesError } from '../errors.js';
import type { PhaseContext } from './phases/context.js';
import type { TuningKernelSummary } from './summary.js';

/** Tunes a kernel on the tuning rows and writes kernel.json. */
export function tuneStudyKernel(_ctx: PhaseContext, _rows: readonly CalibrationRow[], _input: { file: string; sha256: string }, _out: string): Promise<TuningKernelSummary> {
  return Promise.reject(new RlAdvantagesError('tune-kernel is not available yet', { code: 'not_implemented' }));
}
