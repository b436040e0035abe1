// The `tfidf` family: g = -cos(v_a, v_b) / T over a stored TF-IDF vectorizer (docs/method.md sections 2.4 and 3);
// the kernel of `tfidf_kernel_loo_T<T>`.
import { TfidfVectorizer, type TfidfVectorizerJSON } from '../../text/tfidf.js';
import { RlAdvantagesError } from '../../errors.js';
import { csrRowDot } from '../sparse.js';
import { fail, readBoolean, readNumber, readObject, type JsonObject } from '../read.js';
import type { Embedding } from '../weights.js';
import type { FamilyDefinition } from './types.js';

/** Parameters of the `tfidf` family. */
export interface TfidfParams extends JsonObject {
  /** T > 0. */
  readonly temperature: number;
  /** tf = 1 + ln(count) instead of the count. */
  readonly sublinear_tf: boolean;
}

/** Fitted part of the `tfidf` family: the vectorizer (vocabulary, idf, options). */
export interface TfidfFitted extends JsonObject {
  readonly vectorizer: TfidfVectorizerJSON;
}

/** g_ab = -cos(v_a, v_b) / T of the prompts' TF-IDF rows. */
export function tfidfEmbedding(vectorizer: TfidfVectorizer, temperature: number, prompts: readonly string[]): Embedding {
  const x = vectorizer.transform(prompts);
  return { size: prompts.length, energy: (a, b) => -csrRowDot(x, a, x, b) / temperature };
}

export const tfidfFamily: FamilyDefinition<TfidfParams, TfidfFitted> = {
  name: 'tfidf',
  readParams(value, path) {
    const o = readObject(value, path);
    return { temperature: readNumber(o.temperature, `${path}.temperature`, true), sublinear_tf: readBoolean(o.sublinear_tf, `${path}.sublinear_tf`) };
  },
  readFitted(value, path, params) {
    const o = readObject(value, path);
    const json = readObject(o.vectorizer, `${path}.vectorizer`);
    let vectorizer: TfidfVectorizer;
    try {
      vectorizer = TfidfVectorizer.fromJSON(json as unknown as TfidfVectorizerJSON);
    } catch (error) {
      if (error instanceof RlAdvantagesError) fail(`${path}.vectorizer`, `is not a saved vectorizer: ${error.message}`);
      throw error;
    }
    if (vectorizer.options.sublinearTf !== params.sublinear_tf) fail(`${path}.vectorizer.options.sublinearTf`, `must equal params.sublinear_tf (${params.sublinear_tf})`);
    return { vectorizer: json as unknown as TfidfVectorizerJSON };
  },
  fit(params, data) {
    const corpus = data.corpus ?? data.prompts;
    const key = `tfidf\u0000${params.sublinear_tf}\u0000${data.corpus === undefined ? data.prompts.join('\u0001') : 'corpus'}`;
    const vectorizer = data.cache.memo(key, () => TfidfVectorizer.fit(corpus, { sublinearTf: params.sublinear_tf }));
    return { vectorizer: vectorizer.toJSON() };
  },
  make(params, fitted) {
    const vectorizer = TfidfVectorizer.fromJSON(fitted.vectorizer);
    return (prompts) => tfidfEmbedding(vectorizer, params.temperature, prompts);
  },
};
