import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createEstimator, parseEstimatorName, RlAdvantagesError, TfidfVectorizer, type EstimatorName } from '../../src/index.js';
import { specPath } from '../helpers/paths.js';

const vectorizer = TfidfVectorizer.fit(['one two', 'three four']);

describe('createEstimator', () => {
  it("parses every arms[].advantage of the study spec", () => {
    const spec = JSON.parse(readFileSync(specPath, 'utf8')) as {
      arms: { advantage: string }[];
    };
    for (const arm of spec.arms) expect(createEstimator(arm.advantage, { vectorizer }).name).toBe(arm.advantage);
    expect(parseEstimatorName('tfidf_kernel_loo_T0.1')).toEqual({ base: 'tfidf_kernel_loo', temperature: 0.1 });
    expect(parseEstimatorName('kernel_loo_T0.002')).toEqual({ base: 'kernel_loo', temperature: 0.002 });
    expect(parseEstimatorName('passk_k4')).toEqual({ base: 'passk', temperature: undefined, k: 4 });
    expect(parseEstimatorName('shrinkage_loo_tfidf_kernel_loo_T0.1')).toEqual({ base: 'shrinkage_loo', temperature: 0.1 });
  });

  it('refuses an unknown name given as a string at run time, listing the known ones', () => {
    const name = (n: string): string => n; // a name known only at run time, e.g. read from a spec
    expect(() => createEstimator(name('grpo'))).toThrow(RlAdvantagesError);
    expect(() => createEstimator(name('grpo'))).toThrow(/unknown estimator "grpo" \(did you mean "gdpo"\?\); known estimators: group_mean, group_mean_std, rloo, loo_batch_mean/);
    expect(() => createEstimator(name('tfidf_kernel_loo'))).toThrow(/estimator "tfidf_kernel_loo" needs temperature \(a finite number > 0\): write tfidf_kernel_loo_T<temperature>/);
    expect(() => createEstimator(name('group_mean_T0.1'))).toThrow(/unknown estimator/);
  });

  it('refuses an unknown literal name at compile time (npm run typecheck fails on an unused @ts-expect-error)', () => {
    // @ts-expect-error 'grpo' is not an EstimatorName
    expect(() => createEstimator('grpo')).toThrow(/unknown estimator/);
    // @ts-expect-error tfidf_kernel_loo needs its _T<T> suffix
    expect(() => createEstimator('tfidf_kernel_loo')).toThrow(/needs temperature/);
    // @ts-expect-error group_mean takes no temperature
    expect(() => createEstimator('group_mean_T0.1')).toThrow(/unknown estimator/);
    const known: EstimatorName[] = ['group_mean', 'rloo', 'kernel_loo', 'kernel_loo_T0.002', 'tfidf_kernel_loo_T0.1', 'length_bucket_loo'];
    expect(known.map((n) => parseEstimatorName(n).base)).toEqual(['group_mean', 'rloo', 'kernel_loo', 'kernel_loo', 'tfidf_kernel_loo', 'length_bucket_loo']);
  });

  it('refuses a bad temperature suffix and a kernel without its vectorizer, at creation', () => {
    expect(() => createEstimator('tfidf_kernel_loo_T0', { vectorizer })).toThrow(/^temperature must be a finite number > 0, got 0$/);
    expect(() => createEstimator('tfidf_kernel_loo_T-1', { vectorizer })).toThrow(/^temperature must be a finite number > 0, got -1$/);
    // @ts-expect-error "abc" is not a number: also refused at compile time
    expect(() => createEstimator('tfidf_kernel_loo_Tabc', { vectorizer })).toThrow(/temperature "abc" is not a decimal number/);
    expect(() => createEstimator('tfidf_kernel_loo_T0.1')).toThrow(/needs context.vectorizer/);
    expect(() => createEstimator('length_bucket_loo')).toThrow(/needs context.vectorizer/);
    expect(() => createEstimator('kernel_loo')).toThrow(/needs temperature \(a finite number > 0\): write kernel_loo_T<temperature>/);
    expect(() => createEstimator('kernel_loo', { temperature: 0 })).toThrow(/^temperature must be a finite number > 0, got 0$/);
    expect(() => createEstimator('group_mean_std', { epsilon: Number.NaN })).toThrow(/epsilon/);
  });

  it('returns a frozen { name, compute }', () => {
    const estimator = createEstimator('loo_batch_mean');
    expect(Object.isFrozen(estimator)).toBe(true);
    expect(Array.from(estimator.compute({ rewards: [1, 0, 0, 1] }).baselines)).toEqual([1 / 3, 2 / 3, 2 / 3, 1 / 3]);
  });
});
