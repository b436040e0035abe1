import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, looMeans, sumsOfOthers } from '../internal/batch.js';
import { readPrompts, readRewards } from './batch.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link lengthBucketLoo}. */
export interface LengthBucketOptions {
  /** The fitted vectorizer: its analyzer counts tokens, its fitting corpus sets the bucket edges. */
  vectorizer: TfidfVectorizer;
}

/**
 * The pre-approved fallback kernel: prompts of similar length predict each other.
 *
 * Each prompt's length is its token count under the vectorizer's analyzer (every token, in the
 * vocabulary or not). The bucket edges are the quartiles q1 <= q2 <= q3 of the fitting corpus's
 * token counts (numpy's linear percentiles); bucket(x) = [len >= q1] + [len >= q2] + [len >= q3],
 * so 4 buckets, the lowest holding len < q1. w_ij = 1 if i and j share a bucket and j != i, else 0;
 * b_i is the mean reward of the other rollouts in i's bucket, and falls back to the LOO batch mean
 * when no other rollout shares it. Needs B >= 2. docs/method.md section 2.
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite, B < 2, `prompts` is missing or of
 *   another length, or `vectorizer` is missing.
 * @example
 * ```ts
 * lengthBucketLoo({ rewards, prompts }, { vectorizer }).baselines;
 * ```
 */
export function lengthBucketLoo(batch: Batch, options: LengthBucketOptions): EstimatorResult {
  if (batch?.mask !== undefined) return runMasked(batch, (b) => lengthBucketLoo(b, options));
  const name = 'length_bucket_loo';
  const rewards = readRewards(batch, 2, name);
  const prompts = readPrompts(batch, rewards.length, name);
  const vectorizer = options?.vectorizer;
  if (!(vectorizer instanceof TfidfVectorizer)) {
    throw new RlAdvantagesError('vectorizer is required: length_bucket_loo counts tokens with the fitted vectorizer', {
      code: 'missing_field',
      field: 'vectorizer',
    });
  }
  const [q1, q2, q3] = vectorizer.tokenCountQuartiles;
  const counts = vectorizer.tokenCounts(prompts);
  const buckets: number[][] = [[], [], [], []];
  counts.forEach((length, i) => {
    (buckets[Number(length >= q1) + Number(length >= q2) + Number(length >= q3)] as number[]).push(i);
  });
  const looMean = looMeans(rewards);
  const baselines = new Float64Array(rewards.length);
  for (const bucket of buckets) {
    if (bucket.length === 1) {
      const i = bucket[0] as number;
      baselines[i] = looMean[i] as number;
      continue;
    }
    const others = sumsOfOthers(rewards, bucket);
    bucket.forEach((i, k) => (baselines[i] = (others[k] as number) / (bucket.length - 1)));
  }
  return finishResult(batch, rewards, { advantages: advantagesFrom(rewards, baselines), baselines, looMean, maxSelfWeight: 0 });
}
