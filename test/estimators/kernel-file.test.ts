// The kernel_file estimator (docs/method.md section 2.4): reference kernels, edge cases and invariants.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { TfidfVectorizer, createEstimator, loadKernel, looBatchMean, type LoadedKernel } from '../../src/index.js';
import { handKernels } from '../helpers/kernels.js';
import { maxAbsDiff, trainQuestions } from '../helpers/paths.js';

const kernels: Record<string, LoadedKernel> = Object.fromEntries(Object.entries(handKernels()).map(([k, v]) => [k, loadKernel(v)]));
const pool = [
  'Tom has 3 apples and buys 2 more. How many apples?',
  'A train travels at 60 mph for 3 hours. How far does it go?',
  'Sara earns $12 per hour. She works 5 hours a day for 4 days. What does she earn in total?',
  'Half of the 40 students like math. How many do not?',
  'What is 7 times 8?',
  'A shop sells 3 pens for $2. How much do 12 pens cost?',
  'John is 4 years older than Mary, who is 10. How old is John?',
  '',
];
const reward = fc.constantFrom(-0.1, 0, 0.9, 1, 0.5);
const batchArb = fc.integer({ min: 2, max: 12 }).chain((n) =>
  fc.record({ rewards: fc.array(reward, { minLength: n, maxLength: n }), prompts: fc.array(fc.constantFrom(...pool), { minLength: n, maxLength: n }) }),
);
const families = Object.keys(kernels);

describe('kernel_file', () => {
  test.prop([fc.constantFrom(...families), batchArb, fc.integer({ min: 0, max: 11 }), reward])(
    'w_ii = 0: b_i does not depend on r_i',
    (family, batch, at, r) => {
      const i = at % batch.rewards.length;
      const estimator = createEstimator('kernel_file', { kernel: kernels[family] as LoadedKernel });
      const a = estimator.compute(batch).baselines[i];
      const changed = batch.rewards.slice();
      changed[i] = r;
      expect(estimator.compute({ ...batch, rewards: changed }).baselines[i]).toBe(a);
    },
  );

  test.prop([fc.constantFrom(...families), batchArb, fc.integer()])('permutation equivariant', (family, batch, seed) => {
    const n = batch.rewards.length;
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => ((a * 7919 + seed) % 13) - ((b * 7919 + seed) % 13) || a - b);
    const estimator = createEstimator('kernel_file', { kernel: kernels[family] as LoadedKernel });
    const a = estimator.compute(batch).baselines;
    const b = estimator.compute({ rewards: order.map((k) => batch.rewards[k] as number), prompts: order.map((k) => batch.prompts[k] as string) }).baselines;
    order.forEach((k, i) => expect(Math.abs((b[i] as number) - (a[k] as number))).toBeLessThanOrEqual(1e-15));
  });

  test.prop([fc.constantFrom(...families), batchArb, reward])('constant rewards give zero advantages; b stays within the other rewards', (family, batch, r) => {
    const estimator = createEstimator('kernel_file', { kernel: kernels[family] as LoadedKernel });
    const constant = estimator.compute({ ...batch, rewards: batch.rewards.map(() => r) });
    // b_i is a weighted mean of copies of r: within one ulp of r.
    for (const a of constant.advantages) expect(Math.abs(a)).toBeLessThanOrEqual(1e-15);
    const result = estimator.compute(batch);
    result.baselines.forEach((b, i) => {
      const others = batch.rewards.filter((_, j) => j !== i);
      expect(b).toBeGreaterThanOrEqual(Math.min(...others) - 1e-15);
      expect(b).toBeLessThanOrEqual(Math.max(...others) + 1e-15);
    });
    expect(result.maxSelfWeight).toBe(0);
  });

  it('the loo_batch_mean family is the LOO batch mean; identical prompts give it for every family', () => {
    const batch = { rewards: [1, 0, 0.9, -0.1, 1], prompts: pool.slice(0, 5) };
    const loo = looBatchMean(batch).baselines;
    expect(maxAbsDiff(createEstimator('kernel_file', { kernel: kernels.loo_batch_mean as LoadedKernel }).compute(batch).baselines, loo)).toBeLessThanOrEqual(1e-15);
    const same = { rewards: batch.rewards, prompts: batch.rewards.map(() => pool[2] as string) };
    for (const family of families) {
      const b = createEstimator('kernel_file', { kernel: kernels[family] as LoadedKernel }).compute(same).baselines;
      expect(maxAbsDiff(b, looBatchMean(same).baselines)).toBeLessThanOrEqual(1e-15);
    }
  });

  it('tfidf and length_bucket_loo files give the built-in estimators, within 1e-12', () => {
    const questions = trainQuestions();
    const vectorizer = TfidfVectorizer.fit(questions);
    const tfidf = loadKernel({ format: 'rl-advantages/kernel', version: 1, family: 'tfidf', params: { temperature: 0.1, sublinear_tf: false }, fitted: { vectorizer: vectorizer.toJSON() } });
    const buckets = loadKernel({ format: 'rl-advantages/kernel', version: 1, family: 'length_bucket_loo', params: {}, fitted: { quartiles: [...vectorizer.tokenCountQuartiles] } });
    const prompts = questions.slice(100, 132);
    const rewards = prompts.map((_, i) => [1, 0, 0.9, -0.1][(i * 7) % 4] as number);
    const pairs = [
      [tfidf, 'tfidf_kernel_loo_T0.1'],
      [buckets, 'length_bucket_loo'],
    ] as const;
    for (const [kernel, name] of pairs) {
      const a = createEstimator('kernel_file', { kernel }).compute({ rewards, prompts }).baselines;
      const b = createEstimator(name, { vectorizer }).compute({ rewards, prompts }).baselines;
      expect(maxAbsDiff(a, b)).toBeLessThanOrEqual(1e-12);
    }
  });

  it('alone in its length bucket, a rollout gets the LOO batch mean', () => {
    const kernel = loadKernel({ format: 'rl-advantages/kernel', version: 1, family: 'length_bucket_loo', params: {}, fitted: { quartiles: [5, 10, 20] } });
    const batch = { rewards: [1, 0, 0.5], prompts: ['one two', 'one two three', 'aa bb cc dd ee ff gg hh ii jj kk ll'] };
    const b = createEstimator('kernel_file', { kernel }).compute(batch).baselines;
    expect(Array.from(b)).toEqual([0, 1, 0.5]);
  });

  it('refuses B = 1, a missing kernel and missing prompts', () => {
    const estimator = createEstimator('kernel_file', { kernel: kernels.length as LoadedKernel });
    expect(() => estimator.compute({ rewards: [1], prompts: ['a'] })).toThrow(/B >= 2|at least 2/);
    expect(() => estimator.compute({ rewards: [1, 0] })).toThrow(/prompts/);
    expect(() => createEstimator('kernel_file', {})).toThrow(/kernel_file needs context.kernel/);
  });

  it('masked rollouts get A = 0 and enter no baseline', () => {
    const estimator = createEstimator('kernel_file', { kernel: kernels.features as LoadedKernel });
    const masked = estimator.compute({ rewards: [1, 0, 0.5, 7], prompts: pool.slice(0, 4), mask: [false, false, false, true] });
    const plain = estimator.compute({ rewards: [1, 0, 0.5], prompts: pool.slice(0, 3) });
    expect(Array.from(masked.baselines).slice(0, 3)).toEqual(Array.from(plain.baselines));
    expect(masked.advantages[3]).toBe(0);
  });
});
