// The reference families `loo_batch_mean` (g = 0) and `length_bucket_loo` (g = 0 within a token-count bucket,
// +Infinity across), docs/method.md sections 2 and 2.4.
import { TfidfVectorizer } from '../../text/tfidf.js';
import { fail, readNumbers, readObject, type JsonObject } from '../read.js';
import type { Embedding } from '../weights.js';
import { TextCache, type FamilyDefinition } from './types.js';

type Empty = Readonly<Record<string, never>>;

function readEmpty(value: unknown, path: string): Empty {
  const o = readObject(value, path);
  const keys = Object.keys(o);
  if (keys.length > 0) fail(`${path}.${keys[0]}`, 'is not a parameter of this family (it has none)');
  return {};
}

export const looBatchMeanFamily: FamilyDefinition<Empty, Empty> = {
  name: 'loo_batch_mean',
  readParams: readEmpty,
  readFitted: readEmpty,
  fit: () => ({}),
  make: () => (prompts) => ({ size: prompts.length, energy: () => 0 }),
};

/** Fitted part of `length_bucket_loo`: the bucket edges q1 <= q2 <= q3 (token-count quartiles of the fitting corpus). */
export interface BucketFitted extends JsonObject {
  readonly quartiles: readonly [number, number, number];
}

/** g = 0 when the token counts share a bucket ([n >= q1] + [n >= q2] + [n >= q3]), +Infinity otherwise. */
export function bucketEmbedding(quartiles: readonly number[], counts: ArrayLike<number>): Embedding {
  const [q1, q2, q3] = quartiles as [number, number, number];
  const bucket = Int8Array.from({ length: counts.length }, (_, k) => {
    const n = counts[k] as number;
    return Number(n >= q1) + Number(n >= q2) + Number(n >= q3);
  });
  return { size: counts.length, energy: (a, b) => (bucket[a] === bucket[b] ? 0 : Infinity) };
}

export const lengthBucketFamily: FamilyDefinition<Empty, BucketFitted> = {
  name: 'length_bucket_loo',
  readParams: readEmpty,
  readFitted(value, path) {
    const q = readNumbers(readObject(value, path).quartiles, `${path}.quartiles`, 3);
    if (!(q[0]! <= q[1]! && q[1]! <= q[2]!)) fail(`${path}.quartiles`, `must be ascending, got [${q.join(', ')}]`);
    return { quartiles: q as unknown as [number, number, number] };
  },
  fit(_params, data) {
    const corpus = data.corpus ?? data.prompts;
    const vectorizer = data.cache.memo(`tfidf\u0000false\u0000${data.corpus === undefined ? data.prompts.join('\u0001') : 'corpus'}`, () => TfidfVectorizer.fit(corpus));
    return { quartiles: [...vectorizer.tokenCountQuartiles] as [number, number, number] };
  },
  make(_params, fitted) {
    return (prompts, cache = new TextCache()) => bucketEmbedding(fitted.quartiles, cache.counts(prompts, 'tokens'));
  },
};
