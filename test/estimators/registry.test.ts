import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEstimator, parseEstimatorName, RlAdvantagesError, TfidfVectorizer } from '../../src/index.js';
import { specPath } from '../helpers/paths.js';

const vectorizer = TfidfVectorizer.fit(['one two', 'three four']);

describe('createEstimator', () => {
  it("parses every arms[].advantage of the study spec", () => {
    const spec = JSON.parse(readFileSync(specPath, 'utf8')) as {
      arms: { advantage: string }[];
    };
    for (const arm of spec.arms) expect(createEstimator(arm.advantage, { vectorizer }).name).toBe(arm.advantage);
    expect(parseEstimatorName('tfidf_kernel_loo_T0.1')).toEqual({ base: 'tfidf_kernel_loo', temperature: 0.1 });
    expect(parseEstimatorName('kernel_loo_T2e-3')).toEqual({ base: 'kernel_loo', temperature: 0.002 });
  });

  it('refuses an unknown name and lists the known ones', () => {
    expect(() => createEstimator('grpo')).toThrow(RlAdvantagesError);
    expect(() => createEstimator('grpo')).toThrow(/unknown estimator "grpo"; known estimators: group_mean, group_mean_std, rloo, loo_batch_mean/);
    expect(() => createEstimator('tfidf_kernel_loo')).toThrow(/unknown estimator/);
    expect(() => createEstimator('group_mean_T0.1')).toThrow(/unknown estimator/);
  });

  it('refuses a bad temperature suffix and a kernel without its vectorizer, at creation', () => {
    expect(() => createEstimator('tfidf_kernel_loo_T0', { vectorizer })).toThrow(/T must be a finite decimal number > 0/);
    expect(() => createEstimator('tfidf_kernel_loo_T-1', { vectorizer })).toThrow(/temperature "-1"/);
    expect(() => createEstimator('tfidf_kernel_loo_Tabc', { vectorizer })).toThrow(/temperature "abc"/);
    expect(() => createEstimator('tfidf_kernel_loo_T0.1')).toThrow(/needs context.vectorizer/);
    expect(() => createEstimator('length_bucket_loo')).toThrow(/needs context.vectorizer/);
    expect(() => createEstimator('kernel_loo')).toThrow(/temperature must be a finite number > 0/);
    expect(() => createEstimator('group_mean_std', { epsilon: Number.NaN })).toThrow(/epsilon/);
  });

  it('returns a frozen { name, compute }', () => {
    const estimator = createEstimator('loo_batch_mean');
    expect(Object.isFrozen(estimator)).toBe(true);
    expect(Array.from(estimator.compute({ rewards: [1, 0, 0, 1] }).baselines)).toEqual([1 / 3, 2 / 3, 2 / 3, 1 / 3]);
  });
});
