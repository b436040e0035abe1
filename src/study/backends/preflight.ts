// The library side of the correctness preflight (docs/method.md section 8, steps 1-2), run before every study whatever the
// backend: the estimators the arms use must give known answers on fixed batches before anything is trained.
import { createEstimator } from '../../estimators/registry.js';
import type { LoadedKernel } from '../../kernels/kernel-file.js';
import type { TfidfVectorizer } from '../../text/tfidf.js';
import { kernelFileChecks, maxAbs } from './preflight-kernel-file.js';
import type { PreflightCheck } from './types.js';

export type { PreflightCheck } from './types.js';
import type { StudySpec } from '../spec.js';

/** Fixed rewards (the cookbook's {-0.1, 0, 1}) for a batch of n rollouts, deterministic. */
function fixedRewards(n: number): number[] {
  const values = [1, 0, 1, -0.1, 1, 1, 0, 1, -0.1, 0, 1];
  return Array.from({ length: n }, (_, i) => values[(i * 7 + 3) % values.length] as number);
}

/** Reads `correctness_preflight.paths[0].tolerances.reference_loss` (atol, rtol), else 1e-6 / 1e-5. */
function referenceTolerance(spec: StudySpec): { atol: number; rtol: number } {
  const cp = spec.raw.correctness_preflight as { paths?: { tolerances?: { reference_loss?: { atol?: number; rtol?: number } } }[] } | undefined;
  const t = cp?.paths?.[0]?.tolerances?.reference_loss;
  return { atol: typeof t?.atol === 'number' ? t.atol : 1e-6, rtol: typeof t?.rtol === 'number' ? t.rtol : 1e-5 };
}

/**
 * The estimator checks of docs/method.md section 8 steps 1-2:
 * 1. `group_mean` on 4 groups x 8 fixed rewards reproduces r_i - mean of its group (the stock cookbook's
 *    advantage), to 1e-12;
 * 2. the GS1 arm's kernel on 32 GSM8K train questions (the last 32 of the data order) matches a plain float64
 *    dense reference (w_ij = exp(cos_ij / T), w_ii = 0, b = W r / W 1) within the spec's reference tolerances;
 * 3. synthetic clusters (the least similar two of those prompts, cosine c, repeated 5 and 3 times) give the
 *    analytic baseline b_i = (e^{1/T} R_same_others + e^{c/T} R_other) / (e^{1/T} (n_same - 1) + e^{c/T} n_other);
 * 4. identical prompts give the LOO batch mean exactly (to 1e-12).
 * For a kernel-file arm (`kernel:PATH`, loaded in `kernels`), 2-4 are instead: w_ii = 0, identical prompts give the
 * LOO batch mean, and the same batch gives the same advantages bit for bit.
 *
 * @returns one {@link PreflightCheck} per check; the study stops if any fails.
 * @example
 * ```ts
 * const checks = estimatorPreflight(spec, vectorizer, questions);
 * checks.every((c) => c.passed); // true
 * ```
 */
export function estimatorPreflight(
  spec: StudySpec,
  vectorizer: TfidfVectorizer,
  questions: readonly string[],
  kernels: Readonly<Record<string, LoadedKernel>> = {},
): PreflightCheck[] {
  const checks: PreflightCheck[] = [];
  const kernelArm = spec.arms.find((arm) => arm.advantage !== 'group_mean');
  const kernelName = kernelArm?.advantage ?? 'tfidf_kernel_loo_T0.1';
  const temperatureMatch = /_T([0-9.eE+-]+)$/.exec(kernelName);
  const temperature = temperatureMatch ? Number(temperatureMatch[1]) : 0.1;

  // 1. group_mean = rewards minus the group mean.
  {
    const rewards = fixedRewards(32);
    const groupIds = rewards.map((_, i) => Math.floor(i / 8));
    const got = createEstimator('group_mean').compute({ rewards, groupIds }).advantages;
    const expected = rewards.map((r, i) => {
      const g = Math.floor(i / 8);
      const members = rewards.slice(g * 8, g * 8 + 8);
      return r - members.reduce((s, x) => s + x, 0) / 8;
    });
    const err = maxAbs(got, expected);
    checks.push({
      id: 'group_mean_reproduces_stock',
      passed: err <= 1e-12,
      maxAbsError: err,
      tolerance: 'atol 1e-12',
      detail: '4 groups x 8 fixed rewards: A_i = r_i - mean of its group',
    });
  }

  // 2-4 for a kernel file (`kernel:PATH`): the invariants of every kernel estimator.
  const kernelFile = kernels[kernelName];
  if (kernelFile !== undefined) checks.push(...kernelFileChecks(kernelName, kernelFile, questions, fixedRewards));

  // 2. kernel vs a dense float64 reference.
  if (kernelName.startsWith('tfidf_kernel_loo')) {
    const prompts = questions.slice(-32);
    const rewards = fixedRewards(prompts.length);
    const got = createEstimator(kernelName, { vectorizer }).compute({ rewards, prompts }).baselines;
    const x = vectorizer.transform(prompts);
    const dense = prompts.map((_, r) => {
      const row = new Float64Array(x.cols);
      for (let k = x.indptr[r] as number; k < (x.indptr[r + 1] as number); k++) row[x.indices[k] as number] = x.data[k] as number;
      return row;
    });
    const expected = prompts.map((_, i) => {
      let num = 0;
      let den = 0;
      for (let j = 0; j < prompts.length; j++) {
        if (j === i) continue;
        let cos = 0;
        const a = dense[i] as Float64Array;
        const b = dense[j] as Float64Array;
        for (let t = 0; t < a.length; t++) cos += (a[t] as number) * (b[t] as number);
        const w = Math.exp(cos / temperature);
        num += w * (rewards[j] as number);
        den += w;
      }
      return num / den;
    });
    const { atol, rtol } = referenceTolerance(spec);
    let worst = 0;
    let passed = true;
    expected.forEach((e, i) => {
      const d = Math.abs((got[i] as number) - e);
      worst = Math.max(worst, d);
      if (d > atol + rtol * Math.abs(e)) passed = false;
    });
    checks.push({
      id: 'kernel_matches_float64_reference',
      passed,
      maxAbsError: worst,
      tolerance: `atol ${atol} + rtol ${rtol} * |b_ref|`,
      detail: `${kernelName} on 32 train questions vs a dense float64 reference`,
    });

    // 3. synthetic clusters: two real prompts (the least similar pair of the 32), repeated 5 and 3 times.
    let bIndex = 1;
    let cross = Infinity;
    for (let j = 1; j < prompts.length; j++) {
      let c = 0;
      const u = dense[0] as Float64Array;
      const v = dense[j] as Float64Array;
      for (let t = 0; t < u.length; t++) c += (u[t] as number) * (v[t] as number);
      if (c < cross) {
        cross = c;
        bIndex = j;
      }
    }
    const promptA = prompts[0] as string;
    const promptB = prompts[bIndex] as string;
    const clusterPrompts = [promptA, promptA, promptA, promptA, promptA, promptB, promptB, promptB];
    const clusterRewards = [1, 0, 1, 1, 0, -0.1, 1, 0];
    const estimator = createEstimator(kernelName, { vectorizer });
    const cb = estimator.compute({ rewards: clusterRewards, prompts: clusterPrompts }).baselines;
    // cos = 1 within a cluster (identical L2-normalised vectors), `cross` between the clusters.
    const wSame = Math.exp(1 / temperature);
    const wCross = Math.exp(cross / temperature);
    const analytic = clusterPrompts.map((p, i) => {
      let num = 0;
      let den = 0;
      clusterPrompts.forEach((q, j) => {
        if (j === i) return;
        const w = q === p ? wSame : wCross;
        num += w * (clusterRewards[j] as number);
        den += w;
      });
      return num / den;
    });
    const errClusters = maxAbs(cb, analytic);
    checks.push({
      id: 'synthetic_clusters_analytic_baseline',
      passed: errClusters <= 1e-9,
      maxAbsError: errClusters,
      tolerance: 'atol 1e-9',
      detail: `2 clusters (5 and 3 copies of two train prompts, cos ${cross.toFixed(4)}): b_i = (e^(1/T) R_same + e^(c/T) R_other) / (e^(1/T) (n_same - 1) + e^(c/T) n_other)`,
    });

    // 4. identical prompts give the LOO mean.
    const same = Array.from({ length: 16 }, () => questions[0] as string);
    const sr = fixedRewards(16);
    const res = estimator.compute({ rewards: sr, prompts: same });
    const errSame = maxAbs(res.baselines, res.looMean);
    checks.push({
      id: 'identical_prompts_give_loo_mean',
      passed: errSame <= 1e-12,
      maxAbsError: errSame,
      tolerance: 'atol 1e-12',
      detail: '16 copies of one prompt: b_i = (sum_j r_j - r_i) / 15',
    });
  }
  return checks;
}
