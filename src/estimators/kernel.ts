import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, looMeans } from '../internal/batch.js';
import { readRewards } from './batch.js';
import { kernelBaselines, singletonUnits } from '../kernels/kernel.js';
import { checkTemperature, describe, isNdArray, type NdArrayLike } from '../internal/validate.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link kernelLoo}: a temperature and, unless the batch has `features`, a similarity. */
export interface KernelLooOptions {
  /** T > 0. */
  temperature: number;
  /**
   * s(i, j) for rollouts i != j of the batch, any finite number (larger is more similar). When
   * given it is used instead of the cosine of `batch.features`.
   */
  similarity?: (i: number, j: number, batch: Batch) => number;
}

/**
 * The leave-one-out kernel over any similarity: cosine of user-supplied feature vectors (such as
 * prompt embeddings, `batch.features`), or a similarity function.
 *
 * w_ij = exp(s_ij / T) for j != i, w_ii = 0, b_i = sum_j w_ij r_j / sum_j w_ij, computed as
 * exp((s_ij - m_i) / T) with m_i = max_{j != i} s_ij. With features, s_ij is the dot product of
 * the L2-normalised vectors (a zero vector has cosine 0 with everything). Needs B >= 2.
 * docs/method.md section 2; GS1 kernel baselines.
 *
 * @throws {@link RlAdvantagesError} if a reward or a feature is not finite, B < 2, T is not a
 *   finite number > 0, neither `features` nor `similarity` is given, the feature vectors differ in
 *   length, or the similarity function returns a non-finite value (the message names i and j).
 * @example
 * ```ts
 * kernelLoo(
 *   { rewards: [1, 1, 0, 0], features: [[1, 0], [1, 0.1], [0, 1], [0.1, 1]] },
 *   { temperature: 0.05 },
 * ).baselines; // ≈ [1, 1, 0, 0]: each rollout is predicted by its near twin
 * ```
 */
export function kernelLoo(batch: Batch, options: KernelLooOptions): EstimatorResult {
  if (batch?.mask !== undefined) return runMasked(batch, (b) => kernelLoo(b, options));
  const rewards = readRewards(batch, 2, 'kernel_loo');
  const temperature = checkTemperature('temperature', options?.temperature);
  const size = rewards.length;
  let row: (u: number, out: Float64Array) => void;
  const similarity = options.similarity;
  if (similarity !== undefined) {
    if (typeof similarity !== 'function') {
      throw new RlAdvantagesError(`similarity must be a function (i, j, batch) => number, got ${describe(similarity)}`, {
        code: 'bad_option',
        field: 'similarity',
      });
    }
    row = (i, out) => {
      for (let j = 0; j < size; j++) {
        if (j === i) continue;
        const s = similarity(i, j, batch);
        if (typeof s !== 'number' || !Number.isFinite(s)) {
          throw new RlAdvantagesError(`similarity(${i}, ${j}) must be a finite number, got ${describe(s)}`, {
            code: 'non_finite',
            field: 'similarity',
            index: i,
          });
        }
        out[j] = s;
      }
    };
  } else if (batch.features !== undefined) {
    const { vectors, dimension } = normalisedFeatures(batch.features, size);
    row = (i, out) => {
      const base = i * dimension;
      for (let j = 0; j < size; j++) {
        let dot = 0;
        const other = j * dimension;
        for (let d = 0; d < dimension; d++) dot += (vectors[base + d] as number) * (vectors[other + d] as number);
        out[j] = dot;
      }
    };
  } else {
    throw new RlAdvantagesError('kernel_loo needs batch.features (one vector per rollout) or options.similarity', {
      code: 'missing_field',
      field: 'features',
    });
  }
  const baselines = kernelBaselines(rewards, singletonUnits(size), row, temperature);
  return finishResult(batch, rewards, { advantages: advantagesFrom(rewards, baselines), baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
}

/** Reads [B, d] features into one row-major Float64Array with L2-normalised rows. */
function normalisedFeatures(
  features: ArrayLike<ArrayLike<number>> | NdArrayLike,
  size: number,
): { vectors: Float64Array; dimension: number } {
  let rows: number;
  let dimension: number;
  let read: (i: number, d: number) => unknown;
  if (isNdArray(features)) {
    if (features.shape.length !== 2) {
      throw new RlAdvantagesError(`features must be a 2-D ndarray [B, d], got shape [${features.shape.join(', ')}]`, {
        code: 'bad_shape',
        field: 'features',
      });
    }
    rows = features.shape[0] as number;
    dimension = features.shape[1] as number;
    read = (i, d) => features.get(i, d);
  } else {
    if (typeof features !== 'object' || features === null || typeof features.length !== 'number') {
      throw new RlAdvantagesError(`features must be an array of vectors, got ${describe(features)}`, {
        code: 'bad_type',
        field: 'features',
      });
    }
    rows = features.length;
    const first = features[0];
    dimension = first && typeof first.length === 'number' ? first.length : 0;
    read = (i, d) => (features[i] as ArrayLike<number>)[d];
    for (let i = 0; i < rows; i++) {
      const vector = features[i];
      if (!vector || typeof vector.length !== 'number' || vector.length !== dimension) {
        throw new RlAdvantagesError(
          `features[${i}] must be a vector of length ${dimension} (the length of features[0]), got ${describe(vector)}${vector && typeof vector.length === 'number' ? ` of length ${vector.length}` : ''}`,
          { code: 'bad_shape', field: 'features', index: i },
        );
      }
    }
  }
  if (rows !== size) {
    throw new RlAdvantagesError(`features has ${rows} vectors but rewards has ${size}; they must be the same length`, {
      code: 'length_mismatch',
      field: 'features',
    });
  }
  const vectors = new Float64Array(rows * dimension);
  for (let i = 0; i < rows; i++) {
    let squares = 0;
    for (let d = 0; d < dimension; d++) {
      const value = read(i, d);
      if (typeof value !== 'number' || !Number.isFinite(value)) {
        throw new RlAdvantagesError(`features[${i}][${d}] must be a finite number, got ${describe(value)}`, {
          code: 'non_finite',
          field: 'features',
          index: i,
        });
      }
      vectors[i * dimension + d] = value;
      squares += value * value;
    }
    if (squares > 0) {
      const norm = Math.sqrt(squares);
      for (let d = 0; d < dimension; d++) vectors[i * dimension + d] = (vectors[i * dimension + d] as number) / norm;
    }
  }
  return { vectors, dimension };
}
