// Known answers for the estimators of docs/method.md section 2.2 and the guards of section 2.1.
import { describe, expect, it } from 'vitest';
import {
  createEstimator,
  createStatefulEstimator,
  groupMean,
  gpg,
  looBatchMean,
  opo,
  passk,
  PromptValueEstimator,
  reinforcePlusPlusBaseline,
  remax,
  RlAdvantagesError,
  rloo,
  shrinkageLoo,
  TfidfVectorizer,
  binomialRatio,
  type PromptValueJSON,
} from '../../src/index.js';
import { maxAbsDiff } from '../helpers/paths.js';

describe('normalisation and its guards (section 2.1)', () => {
  it("'batch' divides by the std of every reward; 'group' by the group's; stdFloor is a minimum", () => {
    const batch = { rewards: [1, 0, 0.5, 0.5], groupIds: [0, 0, 1, 1] };
    const s = Math.sqrt(((0.5 ** 2) * 2) / 3); // batch mean 0.5, Bessel std
    expect(maxAbsDiff(groupMean(batch, { normalize: 'batch', epsilon: 0 }).advantages, [0.5 / s, -0.5 / s, 0, 0])).toBeLessThanOrEqual(1e-15);
    expect(maxAbsDiff(groupMean(batch, { normalize: 'group', epsilon: 0, stdFloor: 2 }).advantages, [0.25, -0.25, 0, 0])).toBeLessThanOrEqual(1e-15);
  });

  it('a constant group of 0.1s gets A = 0 exactly and counts as zero-variance', () => {
    const result = groupMean({ rewards: [0.1, 0.1, 0.1, 1, 0], groupIds: [0, 0, 0, 1, 1] }, { normalize: 'group', epsilon: 0 });
    expect(Array.from(result.advantages.slice(0, 3))).toEqual([0, 0, 0]);
    expect(result.diagnostics).toEqual({ groups: 2, groupsOfOne: 0, zeroVarianceGroups: 1, zeroAdvantageFraction: 0.6, masked: 0 });
  });

  it('refuses a bad option and a zero std it cannot divide by, naming the field', () => {
    expect(() => groupMean({ rewards: [1], groupIds: [0] }, { normalize: 'rows' as 'group' })).toThrow(/normalize must be one of 'none', 'group', 'batch'/);
    expect(() => groupMean({ rewards: [1], groupIds: [0] }, { stdFloor: -1 })).toThrow(/stdFloor must be a finite number >= 0/);
    expect(() => remax({ rewards: [1, 1], greedyRewards: [0, 0] }, { normalize: 'batch', epsilon: 0 })).toThrow(RlAdvantagesError);
    expect(() => looBatchMean({ rewards: [1, 0] }, { normalize: 'group' })).toThrow(/groupIds is required/);
  });
});

describe('mask', () => {
  it('leaves a masked rollout out of every baseline, gives it A = 0, b = 0, and accepts its NaN reward', () => {
    const result = looBatchMean({ rewards: [1, Number.NaN, 0, 0], mask: [false, true, false, false] });
    expect(Array.from(result.baselines)).toEqual([0, 0, 0.5, 0.5]);
    expect(Array.from(result.advantages)).toEqual([1, 0, -0.5, -0.5]);
    expect(result.looMean[1]).toBeCloseTo(1 / 3, 15);
    expect(result.diagnostics.masked).toBe(1);
  });

  it('reports errors at the index of the full batch, and refuses a NaN reward that is not masked', () => {
    expect(() => rloo({ rewards: [1, 0, 1], groupIds: [0, 0, 1], mask: [true, false, false] })).toThrow(/groupIds\[1\] is a group of one/);
    expect(() => groupMean({ rewards: [1, Number.NaN], groupIds: [0, 0], mask: [true, false] })).toThrow(/rewards\[1\] must be a finite number/);
    expect(() => groupMean({ rewards: [1, 0], groupIds: [0, 0], mask: [true] })).toThrow(/mask has 1 elements/);
    expect(() => groupMean({ rewards: [1, 0], groupIds: [0, 0], mask: [1 as unknown as boolean, false] })).toThrow(/mask\[0\] must be true or false/);
  });

  it('all masked: all zeros, never NaN', () => {
    const result = groupMean({ rewards: [Number.NaN, 2], groupIds: [0, 0], mask: [true, true] });
    expect(Array.from(result.advantages)).toEqual([0, 0]);
    expect(result.diagnostics.zeroAdvantageFraction).toBe(1);
  });
});

describe('the verl-family estimators', () => {
  it('reinforce_plus_plus_baseline whitens group-centred rewards, weighting by length', () => {
    // c = [0.5, -0.5, 0, 0], weights 1: mu 0, v = (0.5 / 4) * 4 / 3 = 1/6.
    const a = reinforcePlusPlusBaseline({ rewards: [1, 0, 1, 1], groupIds: [0, 0, 1, 1] }, { epsilon: 0 }).advantages;
    expect(maxAbsDiff(a, [0.5, -0.5, 0, 0].map((c) => c / Math.sqrt(1 / 6)))).toBeLessThanOrEqual(1e-15);
    // Lengths [3, 1, 1, 1] (N = 6): mu = 1/6 * (1.5 - 0.5) = 1/6.
    const w = reinforcePlusPlusBaseline({ rewards: [1, 0, 1, 1], groupIds: [0, 0, 1, 1], lengths: [3, 1, 1, 1] }, { epsilon: 0 }).advantages;
    const mu = 1 / 6;
    const c = [0.5, -0.5, 0, 0];
    const v = ((3 * (0.5 - mu) ** 2 + (-0.5 - mu) ** 2 + 2 * mu ** 2) / 6) * (6 / 5);
    expect(maxAbsDiff(w, c.map((x) => (x - mu) / Math.sqrt(v)))).toBeLessThanOrEqual(1e-15);
    expect(() => reinforcePlusPlusBaseline({ rewards: [1], groupIds: [0] })).toThrow(/at least 2/);
  });

  it('opo weighs the group mean by length; gpg rescales by B over the nonzero rewards', () => {
    expect(Array.from(opo({ rewards: [1, 0], groupIds: [0, 0], lengths: [10, 30] }).baselines)).toEqual([0.25, 0.25]);
    expect(() => opo({ rewards: [1, 0], groupIds: [0, 0], lengths: [10, 0] })).toThrow(/lengths\[1\] must be > 0/);
    expect(() => opo({ rewards: [1, 0], groupIds: [0, 0] })).toThrow(/lengths is required/);
    expect(Array.from(gpg({ rewards: [1, 0, 0, 0], groupIds: [0, 0, 0, 0] }).advantages)).toEqual([3, -1, -1, -1]);
    expect(() => remax({ rewards: [1, 0] })).toThrow(/greedyRewards is required/);
  });

  it('passk: C(3,2)/C(4,2) = 1/2, so one correct of 4 at k = 2 gives [1/2, -1/6, -1/6, -1/6]', () => {
    const a = passk({ rewards: [1, 0, 0, 0], groupIds: [0, 0, 0, 0] }, { k: 2, normalize: 'none' }).advantages;
    expect(maxAbsDiff(a, [0.5, -1 / 6, -1 / 6, -1 / 6])).toBeLessThanOrEqual(1e-15);
    expect(binomialRatio(3, 4, 2)).toBe(0.5);
    expect(() => passk({ rewards: [1, 0.5], groupIds: [0, 0] }, { k: 1 })).toThrow(/rewards\[1\] must be 0 or 1/);
    expect(() => passk({ rewards: [1, 0], groupIds: [0, 0] }, { k: 3 })).toThrow(/k = 3/);
    // k = n: only the all-wrong group is failed; a correct rollout gets 1 - rho = 0 unless it is the only one.
    expect(createEstimator('passk_k2', { normalize: 'none' }).compute({ rewards: [1, 0], groupIds: [0, 0] }).advantages[0]).toBe(0);
  });
});

describe('shrinkage_loo', () => {
  it('between rloo (lambda 0) and the prior (lambda 1), lambda from the other groups', () => {
    // Group 0 sees groups 1 {1,1} and 2 {0,0}: no within-group noise, lambda 0 -> rloo.
    // Group 1 sees {1,0} (s^2 0.5) and {0,0}: sigma^2 0.25, tau^2 = max(0, 0.125 - 0.125) = 0 -> lambda 1,
    // b = the mean of the other groups' rollouts (1 + 0 + 0 + 0 + 1) / 5.
    const result = shrinkageLoo({ rewards: [1, 0, 1, 1, 0, 0, 1], groupIds: [0, 0, 1, 1, 2, 2, 3] });
    expect(Array.from(result.baselines.slice(0, 4))).toEqual([0, 1, 0.4, 0.4]);
    expect(result.baselines[6]).toBe(0.5); // a group of one: the prior alone, the mean of 1 0 1 1 0 0
    expect(() => shrinkageLoo({ rewards: [1] , groupIds: [0] })).toThrow(/at least 2/);
    expect(() => shrinkageLoo({ rewards: [1, 0], groupIds: [0, 0] }, { prior: 'tfidf_kernel_loo_T0.1' })).toThrow(/vectorizer is required/);
    expect(() => shrinkageLoo({ rewards: [1, 0], groupIds: [0, 0] }, { prior: 'length_bucket_loo' })).toThrow(/prior must be 'batch' or a kernel name/);
  });

  it('with a TF-IDF prior, a group of one is predicted by the most similar prompt at small T', () => {
    const vectorizer = TfidfVectorizer.fit(['apples and pears', 'boats on a river', 'apples in a basket']);
    const batch = { rewards: [1, 1, 0, 0, 1], groupIds: [0, 0, 1, 1, 2], prompts: ['apples and pears', 'apples and pears', 'boats on a river', 'boats on a river', 'apples in a basket'] };
    const b = createEstimator('shrinkage_loo_tfidf_kernel_loo_T0.01', { vectorizer }).compute(batch).baselines[4] as number;
    expect(b).toBeGreaterThan(0.999);
  });
});

describe('prompt_value', () => {
  it("ema: b = the value before the step's update; unseen prompts start at the prior", () => {
    const e = createStatefulEstimator('prompt_value', { promptValue: { decay: 0.5, prior: 0 } });
    expect(Array.from(e.compute({ rewards: [1, 0], prompts: ['a', 'a'] }).baselines)).toEqual([0, 0]);
    e.update({ rewards: [1, 0], prompts: ['a', 'a'] }); // v = 0.5 * 0 + 0.5 * 0.5
    expect(Array.from(e.compute({ rewards: [1, 1], prompts: ['a', 'b'] }).baselines)).toEqual([0.25, 0]);
  });

  it('beta: alpha / (alpha + beta) from the prior pseudo-counts; checkpoints refuse bad entries', () => {
    const e = createStatefulEstimator('prompt_value', { promptValue: { kind: 'beta', prior: 0.5, priorStrength: 2 } });
    e.update({ rewards: [1, 1, 0], prompts: ['a', 'a', 'a'] }); // alpha 1 + 2, beta 1 + 1
    expect(e.compute({ rewards: [1], prompts: ['a'] }).baselines[0]).toBe(0.6);
    expect(() => e.compute({ rewards: [2], prompts: ['a'] })).toThrow(/rewards\[0\] must be in \[0, 1\]/);
    const json = e.toJSON() as PromptValueJSON;
    expect(json.entries).toEqual([['a', 3, 2]]);
    expect(() => PromptValueEstimator.fromJSON({ ...json, entries: [['a', 3]] })).toThrow(/entries\[0\]/);
    expect(() => createEstimator('prompt_value')).toThrow(/createStatefulEstimator/);
    expect(() => createStatefulEstimator('group_mean')).toThrow(/one-step estimator/);
  });
});
