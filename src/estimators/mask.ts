// Masked rollouts (docs/method.md section 2.1): an estimator runs on the unmasked rollouts alone, as if
// the masked ones were absent; masked rollouts get A = 0, b = 0, looMean = the mean of the unmasked rewards.
import { RlAdvantagesError } from '../errors.js';
import type { Batch, EstimatorResult } from './types.js';
import { checkLength, describe, isNdArray } from '../internal/validate.js';

type MutableBatch = { -readonly [K in keyof Batch]: Batch[K] };

function rewardCount(batch: Batch): number {
  const r = batch?.rewards as unknown;
  if (isNdArray(r)) return r.shape[0] ?? 0;
  if (typeof r === 'object' && r !== null && typeof (r as { length?: unknown }).length === 'number') {
    return (r as ArrayLike<unknown>).length;
  }
  return -1; // the estimator reports the bad rewards field
}

/** The mask as booleans, validated; undefined when there is none (or nothing is masked). */
export function readMask(batch: Batch): boolean[] | undefined {
  const mask = batch?.mask;
  if (mask === undefined || mask === null) return undefined;
  if (typeof mask !== 'object' || typeof mask.length !== 'number') {
    throw new RlAdvantagesError(`mask must be an array of booleans (true = masked), got ${describe(mask)}`, {
      code: 'bad_type',
      field: 'mask',
    });
  }
  const size = rewardCount(batch);
  if (size >= 0) checkLength('mask', mask.length, size);
  const out: boolean[] = [];
  for (let i = 0; i < mask.length; i++) {
    if (typeof mask[i] !== 'boolean') {
      throw new RlAdvantagesError(`mask[${i}] must be true or false, got ${describe(mask[i])}`, {
        code: 'bad_type',
        field: 'mask',
        index: i,
      });
    }
    out.push(mask[i] as boolean);
  }
  return out.includes(true) ? out : undefined;
}

function pick<T>(field: string, values: ArrayLike<T> | undefined, keep: readonly number[], size: number): T[] | undefined {
  if (values === undefined || values === null) return undefined;
  if (typeof values !== 'object' && typeof values !== 'string') return values as unknown as T[]; // the estimator reports it
  checkLength(field, values.length, size);
  return keep.map((i) => values[i] as T);
}

function subset(batch: Batch, keep: readonly number[], size: number): MutableBatch {
  const rewards = isNdArray(batch.rewards)
    ? keep.map((i) => (batch.rewards as { get(i: number): number }).get(i))
    : (pick('rewards', batch.rewards as ArrayLike<number>, keep, size) as number[]);
  const sub: MutableBatch = { rewards };
  const prompts = pick('prompts', batch.prompts, keep, size);
  if (prompts !== undefined) sub.prompts = prompts;
  const groupIds = pick('groupIds', batch.groupIds, keep, size);
  if (groupIds !== undefined) sub.groupIds = groupIds;
  const lengths = pick('lengths', batch.lengths, keep, size);
  if (lengths !== undefined) sub.lengths = lengths;
  const greedy = pick('greedyRewards', batch.greedyRewards, keep, size);
  if (greedy !== undefined) sub.greedyRewards = greedy;
  const components = pick('rewardComponents', batch.rewardComponents, keep, size);
  if (components !== undefined) sub.rewardComponents = components;
  if (batch.features !== undefined) {
    const f = batch.features;
    sub.features = isNdArray(f)
      ? keep.map((i) => Array.from({ length: f.shape[1] ?? 0 }, (_, d) => f.get(i, d)))
      : (pick('features', f as ArrayLike<ArrayLike<number>>, keep, size) as ArrayLike<number>[]);
  }
  return sub;
}

/** Restates an error about sub-batch element k as one about batch element keep[k]. */
function remap(error: unknown, keep: readonly number[]): unknown {
  if (!(error instanceof RlAdvantagesError) || error.index === undefined) return error;
  const original = keep[error.index];
  if (original === undefined) return error;
  const message = error.message.split(`[${error.index}]`).join(`[${original}]`);
  const options: { code: string; field?: string; index: number } = { code: error.code, index: original };
  if (error.field !== undefined) options.field = error.field;
  return new RlAdvantagesError(message, options);
}

/**
 * Runs `compute` on the batch, or, when the batch masks some rollouts, on the unmasked ones and
 * scatters the result back (masked: A = 0, b = 0, looMean = the unmasked mean). Error indices are
 * those of the full batch.
 */
export function runMasked(batch: Batch, compute: (batch: Batch) => EstimatorResult): EstimatorResult {
  const mask = readMask(batch);
  if (mask === undefined) {
    if (batch?.mask === undefined) return compute(batch);
    const { mask: _unused, ...rest } = batch;
    return compute(rest);
  }
  const size = mask.length;
  const keep: number[] = [];
  mask.forEach((m, i) => {
    if (!m) keep.push(i);
  });
  const advantages = new Float64Array(size);
  const baselines = new Float64Array(size);
  const looMean = new Float64Array(size);
  if (keep.length === 0) {
    const diagnostics = { groups: 0, groupsOfOne: 0, zeroVarianceGroups: 0, zeroAdvantageFraction: 1, masked: size };
    return Object.freeze({ advantages, baselines, looMean, maxSelfWeight: 0, diagnostics: Object.freeze(diagnostics) });
  }
  let inner: EstimatorResult;
  try {
    inner = compute(subset(batch, keep, size));
  } catch (error) {
    throw remap(error, keep);
  }
  let sum = 0;
  keep.forEach((i, k) => {
    advantages[i] = inner.advantages[k] as number;
    baselines[i] = inner.baselines[k] as number;
    looMean[i] = inner.looMean[k] as number;
  });
  // The unmasked rewards, read back as r = A + b would lose bits: take them from the batch itself.
  for (const i of keep) sum += Number(isNdArray(batch.rewards) ? batch.rewards.get(i) : (batch.rewards as ArrayLike<number>)[i]);
  const unmaskedMean = sum / keep.length;
  mask.forEach((m, i) => {
    if (m) looMean[i] = unmaskedMean;
  });
  let zeros = 0;
  for (const a of advantages) if (a === 0) zeros++;
  const diagnostics = Object.freeze({ ...inner.diagnostics, zeroAdvantageFraction: zeros / size, masked: size - keep.length });
  if (inner.dropped === undefined) return Object.freeze({ advantages, baselines, looMean, maxSelfWeight: inner.maxSelfWeight, diagnostics });
  // Rows a step drops, scattered back; a masked row is dropped too.
  const dropped = new Uint8Array(size).fill(1);
  keep.forEach((i, k) => (dropped[i] = inner.dropped?.[k] as number));
  return Object.freeze({ advantages, baselines, looMean, maxSelfWeight: inner.maxSelfWeight, diagnostics, dropped });
}
