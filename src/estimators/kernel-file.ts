import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, looMeans } from '../internal/batch.js';
import { readPrompts, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { unitsByKey } from '../kernels/kernel.js';
import { runMasked } from './mask.js';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import { batchEnergiesInto, energyBaselinesInto } from '../kernels/weights.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link kernelFileLoo}. */
export interface KernelFileOptions {
  /** A kernel from {@link loadKernel} (a `kernel.json` written by `rl-adv tune-kernel`, or by hand). */
  kernel: LoadedKernel;
}

/**
 * The leave-one-out kernel of a kernel file: m_i = min_{j != i} g_ij, w_ij = exp(-(g_ij - m_i)) for j != i,
 * w_ii = 0, b_i = sum_j w_ij r_j / sum_j w_ij, g the kernel's energy between the prompts (docs/method.md
 * section 2.4); when no other rollout has a weight (every g_ij = +Infinity, e.g. alone in a length bucket) b_i is
 * the LOO batch mean. The shift by m_i keeps one weight at 1, so the denominator is >= 1 and nothing overflows.
 * b_i never uses r_i or anything about rollout i but its prompt. Needs B >= 2.
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite, B < 2, `prompts` is missing or of another length, or
 *   `kernel` is not a loaded kernel.
 * @example
 * ```ts
 * const kernel = loadKernel(JSON.parse(readFileSync('kernel.json', 'utf8')));
 * kernelFileLoo({ rewards: [1, 0, 1], prompts: ['a', 'b', 'c'] }, { kernel }).advantages;
 * ```
 */
export function kernelFileLoo(batch: Batch, options: KernelFileOptions): EstimatorResult {
  if (batch?.mask !== undefined) return runMasked(batch, (b) => kernelFileLoo(b, options));
  const kernel = options?.kernel;
  if (typeof kernel !== 'object' || kernel === null || typeof kernel.embed !== 'function') {
    throw new RlAdvantagesError('kernel is required: load one with loadKernel(JSON.parse(kernel.json))', { code: 'missing_field', field: 'kernel' });
  }
  const name = 'kernel_file';
  const rewards = readRewards(batch, 2, name);
  const prompts = readPrompts(batch, rewards.length, name);
  const units = unitsByKey(prompts);
  const unique: string[] = [];
  for (let u = 0; u < units.count; u++) unique.push(prompts[units.order[units.start[u] as number] as number] as string);
  const size = rewards.length;
  const g = new Float64Array(size * size);
  batchEnergiesInto(kernel.embed(unique), units.unitOf, g);
  const baselines = new Float64Array(size);
  energyBaselinesInto(g, rewards, baselines);
  return finishResult(batch, rewards, { advantages: advantagesFrom(rewards, baselines), baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
}
