import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, looMeans } from '../internal/batch.js';
import { readPrompts, readRewards } from './batch.js';
import { sparseKernelBaselines, unitsByKey } from '../kernels/kernel.js';
import { checkTemperature } from '../internal/validate.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import type { Batch, EstimatorResult } from './types.js';

/** Options of {@link tfidfKernelLoo}. */
export interface TfidfKernelOptions {
  /** The vectorizer fitted before training (the study fits it on the GSM8K train questions). */
  vectorizer: TfidfVectorizer;
  /** T > 0; the study's arm `tfidf_kernel_loo_T0.1` uses 0.1. */
  temperature: number;
}

/**
 * GS1's TF-IDF kernel baseline: every other rollout's reward, weighted by how similar its prompt
 * is to rollout i's prompt.
 *
 * w_ij = exp(cos(v_i, v_j) / T) for j != i, w_ii = 0,  b_i = sum_j w_ij r_j / sum_j w_ij,
 * v_i the TF-IDF vector of prompt i and cos the dot product of L2-normalised vectors (0 for an
 * empty vector). Computed as exp((cos_ij - m_i) / T) with m_i = max_{j != i} cos_ij: the same
 * ratio, finite for every T > 0 (the plain form overflows below T of about 0.0014).
 *
 * b_i never uses r_i, the response, or anything about rollout i but its prompt. Identical prompts
 * give the LOO batch mean; T -> infinity gives the LOO batch mean; T -> 0 gives the mean reward
 * of the most similar other prompts. Repeated prompts (GRPO-style groups) are vectorised once.
 * Needs B >= 2. docs/method.md section 2.
 *
 * Cost, for U distinct prompts: time O(sum over terms of df_t^2 + U^2) (df_t the number of
 * distinct prompts holding term t) and memory O(B + nnz + U), never a U x U matrix; measured
 * figures are in docs/performance.md.
 *
 * @throws {@link RlAdvantagesError} if a reward is not finite, B < 2, `prompts` is missing or of
 *   another length, T is not a finite number > 0, or `vectorizer` is missing.
 * @example
 * ```ts
 * const vectorizer = TfidfVectorizer.fit(trainQuestions);
 * const { advantages } = tfidfKernelLoo(
 *   { rewards: [1, 0, 1], prompts: ['add 2 and 3', 'add 4 and 5', 'name a colour'] },
 *   { vectorizer, temperature: 0.1 },
 * );
 * ```
 */
export function tfidfKernelLoo(batch: Batch, options: TfidfKernelOptions): EstimatorResult {
  if (batch?.mask !== undefined) return runMasked(batch, (b) => tfidfKernelLoo(b, options));
  const name = 'tfidf_kernel_loo';
  const rewards = readRewards(batch, 2, name);
  const prompts = readPrompts(batch, rewards.length, name);
  const temperature = checkTemperature('temperature', options?.temperature);
  const vectorizer = options?.vectorizer;
  if (!(vectorizer instanceof TfidfVectorizer)) {
    throw new RlAdvantagesError(
      'vectorizer is required: fit one with TfidfVectorizer.fit(corpus) (the study fits it on the GSM8K train questions)',
      { code: 'missing_field', field: 'vectorizer' },
    );
  }
  const units = unitsByKey(prompts);
  const unique: string[] = [];
  for (let u = 0; u < units.count; u++) unique.push(prompts[units.order[units.start[u] as number] as number] as string);
  const x = vectorizer.transform(unique);
  const baselines = sparseKernelBaselines(rewards, units, x, temperature);
  return finishResult(batch, rewards, { advantages: advantagesFrom(rewards, baselines), baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
}
