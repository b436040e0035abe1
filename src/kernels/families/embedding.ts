// The `embedding` family: a cosine or RBF kernel on user feature vectors per prompt (e.g. embeddings), stored in the
// kernel file keyed by the sha256 of the prompt (docs/method.md section 2.4).
import { createHash } from 'node:crypto';
import { RlAdvantagesError } from '../../errors.js';
import { columnMoments, standardise } from '../features.js';
import { fail, readNumber, readNumbers, readObject, type JsonObject } from '../read.js';
import { vectorEmbedding } from '../weights.js';
import { readMetricParams } from './features.js';
import type { FamilyDefinition } from './types.js';

/** Parameters of the `embedding` family. */
export interface EmbeddingParams extends JsonObject {
  readonly metric: 'rbf' | 'cosine';
  /** s (rbf, in sd units per coordinate) or T (cosine). */
  readonly bandwidth: number;
}

/** Fitted part: the dimension, the coordinates' means and sds over the fitting prompts, and every known vector. */
export interface EmbeddingFitted extends JsonObject {
  readonly dimension: number;
  readonly means: readonly number[];
  readonly sds: readonly number[];
  /** The user vectors, keyed by the sha256 (hex) of the prompt's UTF-8 text. */
  readonly vectors: Readonly<Record<string, readonly number[]>>;
}

/** sha256 (hex) of a prompt's UTF-8 text: the key of its vector in a kernel file. */
export function promptKey(prompt: string): string {
  return createHash('sha256').update(prompt, 'utf8').digest('hex');
}

/** The vectors of the prompts, row-major [n, d]; throws naming the first prompt with no vector. */
function lookup(vectors: ReadonlyMap<string, readonly number[]>, dimension: number, prompts: readonly string[], keyed: boolean): Float64Array {
  const out = new Float64Array(prompts.length * dimension);
  prompts.forEach((p, i) => {
    const v = vectors.get(keyed ? promptKey(p) : p);
    if (v === undefined) {
      throw new RlAdvantagesError(
        `prompts[${i}] has no feature vector: an embedding kernel only knows the prompts it was given vectors for (docs/kernel-lab.md, limits)`,
        { code: 'unknown_prompt', field: 'prompts', index: i },
      );
    }
    out.set(v, i * dimension);
  });
  return out;
}

/** The energies: -cos(v_a, v_b) / T on the raw vectors, or |z_a - z_b|^2 / (2 s^2 d) on the standardised ones. */
function energies(params: EmbeddingParams, fitted: { dimension: number; means: readonly number[]; sds: readonly number[] }, raw: Float64Array) {
  const d = fitted.dimension;
  if (params.metric === 'cosine') return vectorEmbedding(raw, d, 'cosine', params.bandwidth);
  return vectorEmbedding(standardise(raw, raw.length / d, fitted.means, fitted.sds), d, 'rbf', params.bandwidth * Math.sqrt(d));
}

export const embeddingFamily: FamilyDefinition<EmbeddingParams, EmbeddingFitted> = {
  name: 'embedding',
  readParams(value, path) {
    return readMetricParams(value, path);
  },
  readFitted(value, path) {
    const o = readObject(value, path);
    const dimension = readNumber(o.dimension, `${path}.dimension`, true);
    if (!Number.isInteger(dimension)) fail(`${path}.dimension`, `must be a positive integer, got ${dimension}`);
    const vectors = readObject(o.vectors, `${path}.vectors`);
    const out: Record<string, number[]> = {};
    for (const [key, v] of Object.entries(vectors)) {
      if (!/^[0-9a-f]{64}$/.test(key)) fail(`${path}.vectors`, `keys must be sha256 hex digests of prompts, got ${JSON.stringify(key)}`);
      out[key] = readNumbers(v, `${path}.vectors.${key}`, dimension);
    }
    return { dimension, means: readNumbers(o.means, `${path}.means`, dimension), sds: readNumbers(o.sds, `${path}.sds`, dimension, true), vectors: out };
  },
  fit(_params, data) {
    const given = data.vectors;
    if (given === undefined || given.size === 0) {
      throw new RlAdvantagesError('the embedding family needs user feature vectors (the features option, --features)', { code: 'missing_field', field: 'features' });
    }
    const dimension = (given.values().next().value as readonly number[]).length;
    const { means, sds } = columnMoments(lookup(given, dimension, data.prompts, false), data.prompts.length, dimension);
    const vectors: Record<string, readonly number[]> = {};
    for (const [prompt, v] of given) vectors[promptKey(prompt)] = v;
    return { dimension, means, sds, vectors };
  },
  make(params, fitted) {
    const vectors = new Map(Object.entries(fitted.vectors));
    return (prompts) => energies(params, fitted, lookup(vectors, fitted.dimension, prompts, true));
  },
};
