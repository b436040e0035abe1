// The oracle kernel of the arith world (docs/method.md section 2.4.1): w_ij = 1 when prompts i and j share a true
// difficulty cell (operation and operand digit counts), epsilon = e^-50 otherwise, w_ii = 0. Written as an ordinary
// kernel file (family `embedding`, cosine, T = 0.02, one-hot cell vectors keyed by prompt sha256), so every estimator
// path, the calibration and the TRL drivers' server read it as they read any kernel file.
import type { Gsm8kItem } from '../data/gsm8k.js';
import { RlAdvantagesError } from '../errors.js';
import { promptKey } from '../kernels/families/embedding.js';
import { KERNEL_FILE_FORMAT, KERNEL_FILE_VERSION, kernelFileJson, type KernelFile } from '../kernels/kernel-file.js';

/** The file the oracle kernel is written to in the run folder. */
export const ORACLE_KERNEL_FILE = 'oracle-kernel.json';
/** T of the cosine kernel on one-hot cells: epsilon = e^(-1/T) = e^-50 (about 1.9e-22), below float64 resolution. */
export const ORACLE_TEMPERATURE = 0.02;

/** An arith prompt's cell: `<operation> <d1>x<d2>` (src/data/arith.ts), or null for a prompt of another shape. */
export function arithCell(question: string): string | null {
  const m = /^(plus|minus|times) ([1-3])x([1-3]):/.exec(question);
  return m === null ? null : `${m[1] as string} ${m[2] as string}x${m[3] as string}`;
}

/**
 * The oracle kernel file of the arith world's `items` (the train split): each distinct prompt's one-hot vector of its
 * cell, cells in sorted order. The same items give the same bytes.
 *
 * @throws {RlAdvantagesError} `invalid_spec` (field `dataset`) naming the first item whose prompt has no cell.
 * @example
 * ```ts
 * const text = oracleKernelJson(arithItems(world, 'train'));
 * createEstimator('kernel_file', { kernel: loadKernel(text) });
 * ```
 */
export function oracleKernelJson(items: readonly Gsm8kItem[]): string {
  const cellOf = items.map((item, i) => {
    const cell = arithCell(item.question);
    if (cell === null) {
      throw new RlAdvantagesError(`train item ${i} (${item.id}) has no arith cell (operation and digit counts): the oracle kernel needs the arith world`, {
        code: 'invalid_spec',
        field: 'dataset',
      });
    }
    return cell;
  });
  const cells = [...new Set(cellOf)].sort();
  const vectors: Record<string, number[]> = {};
  items.forEach((item, i) => {
    vectors[promptKey(item.question)] = cells.map((c) => (c === cellOf[i] ? 1 : 0));
  });
  const counts = cells.map((c) => cellOf.filter((x) => x === c).length);
  const n = items.length;
  const means = counts.map((k) => k / n);
  const sds = means.map((m) => Math.max(Math.sqrt(m * (1 - m)), 1e-12));
  const file: KernelFile = {
    format: KERNEL_FILE_FORMAT,
    version: KERNEL_FILE_VERSION,
    family: 'embedding',
    params: { metric: 'cosine', bandwidth: ORACLE_TEMPERATURE },
    fitted: { dimension: cells.length, means, sds, vectors },
    provenance: {
      oracle: true,
      about:
        "the arith world's true difficulty cells (operation and digit counts): w_ij = 1 for prompts of one cell, e^-50 otherwise " +
        '(cosine of one-hot cell vectors over T = 0.02), w_ii = 0; no reward was seen (docs/method.md section 2.4.1)',
      cells: cells.map((c, i) => ({ cell: c, train_prompts: counts[i] as number })),
    } as unknown as KernelFile['provenance'],
  };
  return kernelFileJson(file);
}
