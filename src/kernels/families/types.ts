// What every kernel family defines once (docs/method.md section 2.4): reading its parameters and fitted parts from a
// kernel file, fitting them, and the energy between prompts.
import { featureMatrix, lengthCount, TEXT_FEATURE_NAMES, type LengthMeasure } from '../features.js';
import type { JsonObject } from '../read.js';
import type { Embedding } from '../weights.js';

/** The kernel families a kernel file can hold. */
export const KERNEL_FAMILIES = Object.freeze([
  'tfidf',
  'length',
  'features',
  'embedding',
  'difficulty',
  'product',
  'loo_batch_mean',
  'length_bucket_loo',
] as const);

/** A kernel family name. */
export type KernelFamily = (typeof KERNEL_FAMILIES)[number];

/** Per-prompt text measures, computed once per prompt and reused across candidates. */
export class TextCache {
  readonly #features = new Map<string, Float64Array>();
  readonly #counts = new Map<string, number>();
  readonly #memo = new Map<string, unknown>();

  /** The text features (docs/method.md section 2.5) of each prompt, row-major [n, 12]. */
  features(prompts: readonly string[]): Float64Array {
    const d = TEXT_FEATURE_NAMES.length;
    const out = new Float64Array(prompts.length * d);
    prompts.forEach((p, r) => {
      let row = this.#features.get(p);
      if (row === undefined) {
        row = featureMatrix([p]);
        this.#features.set(p, row);
      }
      out.set(row, r * d);
    });
    return out;
  }

  /** One count (docs/method.md section 2.4) of each prompt. */
  counts(prompts: readonly string[], measure: LengthMeasure): Float64Array {
    return Float64Array.from(prompts, (p) => {
      const key = `${measure}\u0000${p}`;
      let n = this.#counts.get(key);
      if (n === undefined) {
        n = lengthCount(p, measure);
        this.#counts.set(key, n);
      }
      return n;
    });
  }

  /** ln(1 + count) of one measure for each prompt. */
  logCounts(prompts: readonly string[], measure: LengthMeasure): Float64Array {
    return this.counts(prompts, measure).map(Math.log1p);
  }

  /** A value computed once per key. */
  memo<T>(key: string, make: () => T): T {
    if (!this.#memo.has(key)) this.#memo.set(key, make());
    return this.#memo.get(key) as T;
  }
}

/** What a family's parts are fitted on. */
export interface FitData {
  /** The prompts the text-only parts (standardisation, vocabulary) are fitted on. */
  readonly prompts: readonly string[];
  /** Prompts with a reward target (task mean reward), for the learned parts (the ridge). */
  readonly labelled?: { readonly prompts: readonly string[]; readonly y: Float64Array };
  /** A corpus for the TF-IDF vocabulary (else `prompts`). */
  readonly corpus?: readonly string[];
  /** User feature vectors by prompt (the `embedding` family), all of one length. */
  readonly vectors?: ReadonlyMap<string, readonly number[]>;
  readonly cache: TextCache;
}

/** One family, defined once. P and F are the JSON forms of its params and fitted parts. */
export interface FamilyDefinition<P extends JsonObject = JsonObject, F extends JsonObject = JsonObject> {
  readonly name: KernelFamily;
  /** Validates `params` (errors name `path`). */
  readParams(value: unknown, path: string): P;
  /** Validates `fitted` against the params (errors name `path`). */
  readFitted(value: unknown, path: string, params: P): F;
  /** Fits the parts on the data. */
  fit(params: P, data: FitData): F;
  /** Builds, once, the function giving the energies between prompts. */
  make(params: P, fitted: F): Embedder;
}

/** The energies between the prompts of a list (the cache is optional: it only saves recomputing text measures). */
export type Embedder = (prompts: readonly string[], cache?: TextCache) => Embedding;
