// The library preflight of an arm whose advantage is a kernel file (`kernel:PATH`; docs/kernel-lab.md): the
// invariants every kernel estimator keeps (docs/method.md section 2), checked on real train questions.
import { createEstimator } from '../../estimators/registry.js';
import type { LoadedKernel } from '../../kernels/kernel-file.js';
import type { PreflightCheck } from './types.js';

/** The largest |a_i - b_i| (0 for empty arrays): how far a check's values are from the expected ones. */
export function maxAbs(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs((a[i] as number) - (b[i] as number)));
  return m;
}

/**
 * Checks of a kernel-file arm: w_ii = 0 on 32 train questions; 16 copies of one question give the LOO batch mean
 * (to 1e-12: equal prompts have equal weights); the same batch twice gives the same advantages bit for bit.
 *
 * @param name - the arm's advantage (`kernel:PATH`), for the details.
 * @param rewards - fixed rewards, one per question (at least 32 questions).
 */
export function kernelFileChecks(name: string, kernel: LoadedKernel, questions: readonly string[], rewards: (n: number) => number[]): PreflightCheck[] {
  const estimator = createEstimator('kernel_file', { kernel });
  const prompts = questions.slice(-32);
  const r = rewards(prompts.length);
  const first = estimator.compute({ rewards: r, prompts });
  const again = createEstimator('kernel_file', { kernel }).compute({ rewards: r, prompts });
  const same = Array.from({ length: 16 }, () => questions[0] as string);
  const identical = estimator.compute({ rewards: rewards(16), prompts: same });
  const errSame = maxAbs(identical.baselines, identical.looMean);
  const errAgain = maxAbs(first.advantages, again.advantages);
  return [
    {
      id: 'kernel_file_self_weight_zero',
      passed: first.maxSelfWeight === 0,
      maxAbsError: first.maxSelfWeight,
      tolerance: 'exactly 0',
      detail: `${name} on 32 train questions: the largest w_ii used`,
    },
    {
      id: 'kernel_file_identical_prompts_give_loo_mean',
      passed: errSame <= 1e-12,
      maxAbsError: errSame,
      tolerance: 'atol 1e-12',
      detail: `${name}, 16 copies of one prompt: b_i = (sum_j r_j - r_i) / 15`,
    },
    {
      id: 'kernel_file_deterministic',
      passed: errAgain === 0 && first.advantages.length === prompts.length,
      maxAbsError: errAgain,
      tolerance: 'bit for bit',
      detail: `${name}: the same batch through a second estimator from the same file`,
    },
  ];
}
