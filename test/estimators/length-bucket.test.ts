import { describe, expect, it } from 'vitest';
import { lengthBucketLoo, looBatchMean, TfidfVectorizer } from '../../src/index.js';
import { maxAbsDiff } from '../helpers/paths.js';

describe('lengthBucketLoo', () => {
  // Fitting corpus token counts 1..8: numpy percentiles 25/50/75 of [1..8] are 2.75, 4.5, 6.25.
  const corpus = ['aa', 'aa bb', 'aa bb cc', 'aa bb cc dd', 'aa bb cc dd ee', 'aa bb cc dd ee ff', 'aa bb cc dd ee ff gg', 'aa bb cc dd ee ff gg hh'];
  const vectorizer = TfidfVectorizer.fit(corpus);

  it('puts edges at the quartiles of the fitting corpus token counts (numpy linear percentiles)', () => {
    expect([...vectorizer.tokenCountQuartiles]).toEqual([2.75, 4.5, 6.25]);
  });

  it('averages the other rollouts of the bucket, and falls back to the LOO mean when alone', () => {
    // Lengths 1, 2 -> bucket 0; 3, 4 -> bucket 1; 10 (unknown words count too) -> bucket 3 alone.
    const prompts = ['xx', 'xx yy', 'xx yy zz', 'xx yy zz ww', 'a1 a2 a3 a4 a5 a6 a7 a8 a9 b0'];
    const rewards = [1, 0, 0.9, -0.1, 0.5];
    const result = lengthBucketLoo({ rewards, prompts }, { vectorizer });
    const loo = looBatchMean({ rewards }).baselines;
    expect(maxAbsDiff(result.baselines, [0, 1, -0.1, 0.9, loo[4] as number])).toBeLessThanOrEqual(1e-15);
    expect(result.maxSelfWeight).toBe(0);
  });

  it('needs prompts and a vectorizer', () => {
    expect(() => lengthBucketLoo({ rewards: [1, 0] }, { vectorizer })).toThrow(/prompts is required/);
    expect(() => lengthBucketLoo({ rewards: [1, 0], prompts: ['a', 'b'] }, {} as never)).toThrow(/vectorizer is required/);
  });
});
