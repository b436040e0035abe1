// The tuning phase's kernel: tune-kernel (src/tuning) on the tuning rows, written to kernel.json in the run
// folder, and the figures summary.json keeps from its provenance. A kernel.json already there (a resumed run) is
// reused as it is: the same rows give the same kernel, so it is never tuned twice.
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CalibrationRow } from '../calibration/beff.js';
import { kernelFileJson, loadKernel } from '../kernels/kernel-file.js';
import { tuneKernel } from '../tuning/tune.js';
import { readRunBytes, writeFileAtomic } from './backends/files.js';
import type { PhaseContext } from './phases/context.js';
import type { TuningKernelSummary } from './summary.js';

type Obj = Record<string, unknown>;
const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** What summary.json keeps of a kernel file: its family and the figures of its provenance. */
function kernelSummary(text: string, file: string): TuningKernelSummary {
  const kernel = loadKernel(text).file;
  const p = (kernel.provenance ?? {}) as Obj;
  const heldOut = (p.held_out ?? {}) as Obj;
  const ci = heldOut.ratio_ci95;
  return {
    file,
    sha256: createHash('sha256').update(text).digest('hex'),
    family: kernel.family,
    candidates: num(p.candidates),
    tuning_ratio: num((p.tuning as Obj | undefined)?.ratio),
    held_out: {
      ratio: num(heldOut.ratio),
      ratio_ci95: Array.isArray(ci) && ci.length === 2 ? [ci[0] as number, ci[1] as number] : null,
      interval_method: typeof heldOut.interval_method === 'string' ? heldOut.interval_method : null,
    },
    selection_bias: num(p.selection_bias),
    per_family: Array.isArray(p.per_family) ? (p.per_family as TuningKernelSummary['per_family']) : [],
  };
}

/**
 * Tunes a kernel on the tuning rows (tune-kernel's defaults: every family, holdout 0.5, cross-fitted, seeded by the
 * study seed; B the treatment arm's batch size; `--tuning-batches` batches when given) and writes `out`, unless `out`
 * already holds one.
 */
export function tuneStudyKernel(
  ctx: PhaseContext,
  rows: readonly CalibrationRow[],
  input: { readonly file: string; readonly sha256: string },
  out: string,
): Promise<TuningKernelSummary> {
  if (!existsSync(out)) {
    const result = tuneKernel(rows, {
      batchSize: ctx.settings.batchSize,
      seed: `rl-adv-study/${ctx.study.seed}/tuning`,
      ...(typeof ctx.summary.options.tuning_batches === 'number' ? { batches: ctx.summary.options.tuning_batches } : {}),
      corpus: ctx.study.train.map((t) => t.question),
      inputs: [{ role: 'input', path: path.basename(input.file), sha256: input.sha256, rows: rows.length }],
      onProgress: (_stage, done, total) => ctx.study.progress(done, total),
    });
    writeFileAtomic(out, kernelFileJson(result.kernel));
  }
  return Promise.resolve(kernelSummary(readRunBytes(out).toString('utf8'), path.basename(out)));
}
