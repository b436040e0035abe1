import { RlAdvantagesError } from '../errors.js';
import { advantagesFrom, looMeans, sumsOfOthers } from '../internal/batch.js';
import { readGroups, readPrompts, readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import { normalizeAdvantages, readNormalize, twoPassStd } from './normalize.js';
import { kernelPrior, parsePriorName } from '../kernels/prompt-prior.js';
import { TfidfVectorizer } from '../text/tfidf.js';
import { groupSum } from './group.js';
import type { Batch, EstimatorResult, NormalizeOptions } from './types.js';

/** Options of {@link shrinkageLoo}. */
export interface ShrinkageLooOptions extends NormalizeOptions {
  /** The prior m_i over other prompts: `'batch'` (their plain mean, the default) or `tfidf_kernel_loo_T<T>`. */
  prior?: string;
  /** The fitted vectorizer, for a TF-IDF kernel prior. */
  vectorizer?: TfidfVectorizer;
}

/** Per-group statistics from which lambda is estimated. */
interface GroupStats {
  n: number;
  mean: number;
  variance: number | undefined;
}

/** lambda for a group of size n, from the other groups' stats only (docs/method.md section 2.2). */
function shrinkageWeight(stats: readonly GroupStats[], g: number): number {
  const n = (stats[g] as GroupStats).n;
  if (n === 1) return 1;
  let pooled = 0;
  let dof = 0;
  let count = 0;
  let meanSum = 0;
  for (let h = 0; h < stats.length; h++) {
    const s = stats[h] as GroupStats;
    if (h === g || s.variance === undefined) continue;
    pooled += (s.n - 1) * s.variance;
    dof += s.n - 1;
    meanSum += s.mean;
    count++;
  }
  if (count < 2) return 0;
  const sigma2 = pooled / dof;
  const grand = meanSum / count;
  let spread = 0;
  let noise = 0;
  for (let h = 0; h < stats.length; h++) {
    const s = stats[h] as GroupStats;
    if (h === g || s.variance === undefined) continue;
    spread += (s.mean - grand) ** 2;
    noise += sigma2 / s.n;
  }
  const tau2 = Math.max(0, spread / (count - 1) - noise / count);
  const own = sigma2 / (n - 1);
  if (own === 0) return 0;
  return own / (own + tau2);
}

/**
 * A James-Stein leave-one-out baseline that spans rloo and GS1 (ours, generalising JSPO,
 * https://arxiv.org/abs/2511.03710): b_i = (1 - lambda_i) ybar_{-i} + lambda_i m_i, ybar_{-i} the
 * mean of the other rollouts of i's group, m_i the prior over rollouts of *other* groups (`'batch'`:
 * their mean; `tfidf_kernel_loo_T<T>`: weighted by the TF-IDF kernel between the groups' prompts).
 * lambda_i = (sigma^2/(n_g - 1)) / (sigma^2/(n_g - 1) + tau^2), sigma^2 the other groups' pooled
 * within-group variance, tau^2 the spread of their means minus its sampling noise. A group of one
 * gets lambda = 1 (b = m_i, GS1); large groups lambda -> 0 (rloo). Nothing of rollout i enters
 * b_i (w_ii = 0). Cost O(U^2) for U groups. docs/method.md section 2.2.
 *
 * @throws {@link RlAdvantagesError} as `groupMean`; for a lone rollout (B = 1); for a bad `prior`;
 *   a kernel prior without `vectorizer` or `prompts`.
 * @example
 * ```ts
 * shrinkageLoo({ rewards: [1, 0, 1, 1, 0, 0], groupIds: [0, 0, 1, 1, 2, 2] }).baselines;
 * ```
 */
export function shrinkageLoo(batch: Batch, options: ShrinkageLooOptions = {}): EstimatorResult {
  const settings = readNormalize(options, { normalize: 'none', epsilon: 1e-6 });
  const temperature = parsePriorName(options?.prior);
  const vectorizer = options?.vectorizer;
  if (temperature !== undefined && !(vectorizer instanceof TfidfVectorizer)) {
    throw new RlAdvantagesError(`vectorizer is required: shrinkage_loo's prior ${String(options.prior)} weighs other prompts by TF-IDF similarity`, {
      code: 'missing_field',
      field: 'vectorizer',
    });
  }
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 2, 'shrinkage_loo');
    const { members } = readGroups(b, rewards.length, 'shrinkage_loo');
    const sums = members.map((group) => groupSum(rewards, group));
    const counts = members.map((group) => group.length);
    const stats = members.map((group, g) => ({
      n: group.length,
      mean: (sums[g] as number) / group.length,
      variance: group.length > 1 ? (twoPassStd(rewards, group) as number) ** 2 : undefined,
    }));
    let priors: (number | undefined)[];
    if (temperature === undefined) {
      // Sums over the other groups, formed without the group itself (prefix + suffix).
      const otherSums = sumsOfOthers(Float64Array.from(sums), Int32Array.from(sums.keys()));
      const otherCounts = sumsOfOthers(Float64Array.from(counts), Int32Array.from(counts.keys()));
      priors = members.map((_, g) => ((otherCounts[g] as number) > 0 ? (otherSums[g] as number) / (otherCounts[g] as number) : undefined));
    } else {
      const prompts = readPrompts(b, rewards.length, 'shrinkage_loo with a kernel prior');
      const groupPrompts = members.map((group) => prompts[group[0] as number] as string);
      priors = kernelPrior(vectorizer as TfidfVectorizer, groupPrompts, groupPrompts, sums, counts, temperature, (t, s) => t === s);
    }
    const baselines = new Float64Array(rewards.length);
    members.forEach((group, g) => {
      const prior = priors[g];
      const lambda = prior === undefined ? 0 : shrinkageWeight(stats, g);
      if (group.length === 1) {
        baselines[group[0] as number] = prior as number; // a lone rollout (B = 1) was refused above
        return;
      }
      const others = sumsOfOthers(rewards, group);
      group.forEach((i, k) => {
        const loo = (others[k] as number) / (group.length - 1);
        baselines[i] = lambda === 0 ? loo : (1 - lambda) * loo + lambda * (prior as number);
      });
    });
    const advantages = normalizeAdvantages(advantagesFrom(rewards, baselines), rewards, members, settings);
    return finishResult(b, rewards, { advantages, baselines, looMean: looMeans(rewards), maxSelfWeight: 0 });
  });
}
