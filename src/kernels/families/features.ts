// The `features` family: an RBF or cosine kernel on the standardised text features (docs/method.md sections 2.4, 2.5).
import { columnMoments, standardise, TEXT_FEATURE_NAMES } from '../features.js';
import { fail, readChoice, readNumber, readNumbers, readObject, type JsonObject } from '../read.js';
import { vectorEmbedding } from '../weights.js';
import { TextCache, type FamilyDefinition } from './types.js';

/** Parameters of the `features` family. */
export interface FeaturesParams extends JsonObject {
  readonly metric: 'rbf' | 'cosine';
  /** s (rbf, in standardised units) or T (cosine). */
  readonly bandwidth: number;
}

/** Fitted part: the feature names and their means and sds over the fitting prompts. */
export interface Standardisation extends JsonObject {
  readonly names: readonly string[];
  readonly means: readonly number[];
  readonly sds: readonly number[];
}

/** Reads the standardisation of the text features, checking the names are the library's, in order. */
export function readStandardisation(o: Readonly<Record<string, unknown>>, path: string): Standardisation {
  const d = TEXT_FEATURE_NAMES.length;
  const names = o.names;
  if (!Array.isArray(names) || names.length !== d || names.some((n, i) => n !== TEXT_FEATURE_NAMES[i])) {
    fail(`${path}.names`, `must be the text features ${JSON.stringify(TEXT_FEATURE_NAMES)} (docs/method.md section 2.5)`);
  }
  return { names: [...TEXT_FEATURE_NAMES], means: readNumbers(o.means, `${path}.means`, d), sds: readNumbers(o.sds, `${path}.sds`, d, true) };
}

/** Means and sds of the text features over the prompts. */
export function fitStandardisation(prompts: readonly string[], cache: TextCache): Standardisation {
  const { means, sds } = columnMoments(cache.features(prompts), prompts.length, TEXT_FEATURE_NAMES.length);
  return { names: [...TEXT_FEATURE_NAMES], means, sds };
}

/** The standardised text features of the prompts, row-major [n, 12]. */
export function standardised(s: Standardisation, prompts: readonly string[], cache: TextCache): Float64Array {
  return standardise(cache.features(prompts), prompts.length, s.means, s.sds);
}

/** Reads the params of a vector family ({@link featuresFamily}, `embedding`): `metric` and `bandwidth`. */
export function readMetricParams(value: unknown, path: string): { metric: 'rbf' | 'cosine'; bandwidth: number } {
  const o = readObject(value, path);
  return { metric: readChoice(o.metric, `${path}.metric`, ['rbf', 'cosine'] as const), bandwidth: readNumber(o.bandwidth, `${path}.bandwidth`, true) };
}

export const featuresFamily: FamilyDefinition<FeaturesParams, Standardisation> = {
  name: 'features',
  readParams(value, path) {
    return readMetricParams(value, path);
  },
  readFitted(value, path) {
    return readStandardisation(readObject(value, path), path);
  },
  fit(_params, data) {
    return data.cache.memo(`std\u0000${data.prompts.join('\u0001')}`, () => fitStandardisation(data.prompts, data.cache));
  },
  make(params, fitted) {
    return (prompts, cache = new TextCache()) =>
      vectorEmbedding(standardised(fitted, prompts, cache), TEXT_FEATURE_NAMES.length, params.metric, params.bandwidth);
  },
};
