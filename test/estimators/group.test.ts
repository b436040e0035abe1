import { describe, expect, it } from 'vitest';
import { groupMean, groupMeanStd, rloo, RlAdvantagesError } from '../../src/index.js';
import { maxAbsDiff } from '../helpers/paths.js';

describe('groupMean', () => {
  it("equals the tinker cookbook's compute_advantages: rewards minus the group mean", () => {
    // tinker_cookbook/rl/data_processing.py compute_advantages: for each group,
    // advantages_G = rewards_G - rewards_G.mean(). Two groups of 4 with math-env rewards:
    // group a mean (1 + 0 + 0.9 - 0.1) / 4 = 0.45, group b mean (0 + 0 + 1 + 1) / 4 = 0.5.
    const result = groupMean({ rewards: [1, 0, 0.9, -0.1, 0, 0, 1, 1], groupIds: ['a', 'a', 'a', 'a', 'b', 'b', 'b', 'b'] });
    expect(maxAbsDiff(result.advantages, [0.55, -0.45, 0.45, -0.55, -0.5, -0.5, 0.5, 0.5])).toBeLessThanOrEqual(1e-15);
    expect(result.maxSelfWeight).toBe(0.25);
  });

  it('gives a group of one A = 0, and self-weight 1', () => {
    const result = groupMean({ rewards: [0.9, 1, 0], groupIds: [7, 8, 8] });
    expect(result.advantages[0]).toBe(0);
    expect(result.maxSelfWeight).toBe(1);
    expect(groupMean({ rewards: [0.3], groupIds: [0] }).advantages[0]).toBe(0);
  });

  it('needs groupIds and refuses bad ones, naming the index', () => {
    expect(() => groupMean({ rewards: [1, 0] })).toThrow(/groupIds is required/);
    expect(() => groupMean({ rewards: [1, 0], groupIds: [0] })).toThrow(/groupIds has 1 elements/);
    expect(() => groupMean({ rewards: [1, 0], groupIds: [0, null as unknown as number] })).toThrow(/groupIds\[1\]/);
    expect(() => groupMean({ rewards: [1, Infinity], groupIds: [0, 0] })).toThrow(/rewards\[1\]/);
  });
});

describe('groupMeanStd', () => {
  it('divides by the Bessel-corrected group std plus epsilon (verl)', () => {
    // Group {1, 0, 0, 1}: mean 0.5, sample std sqrt(1 / 3).
    const std = Math.sqrt(1 / 3);
    const result = groupMeanStd({ rewards: [1, 0, 0, 1], groupIds: [0, 0, 0, 0] });
    expect(maxAbsDiff(result.advantages, [0.5, -0.5, -0.5, 0.5].map((c) => c / (std + 1e-6)))).toBeLessThanOrEqual(1e-15);
    const trl = groupMeanStd({ rewards: [1, 0, 0, 1], groupIds: [0, 0, 0, 0] }, { epsilon: 1e-4 });
    expect(trl.advantages[0]).toBeCloseTo(0.5 / (std + 1e-4), 14);
  });

  it('gives a group of one, and a group of equal rewards, A = 0 (never NaN)', () => {
    const result = groupMeanStd({ rewards: [0.9, 1, 1], groupIds: [0, 1, 1] }, { epsilon: 0 });
    expect(Array.from(result.advantages)).toEqual([0, 0, 0]);
  });

  it('refuses a negative epsilon', () => {
    expect(() => groupMeanStd({ rewards: [1, 0], groupIds: [0, 0] }, { epsilon: -1 })).toThrow(/epsilon/);
  });
});

describe('rloo', () => {
  it('uses the mean of the other rollouts of the group', () => {
    const result = rloo({ rewards: [1, 0, 0, 1, 1, 1], groupIds: [0, 0, 0, 1, 1, 1] });
    expect(maxAbsDiff(result.baselines, [0, 0.5, 0.5, 1, 1, 1])).toBeLessThanOrEqual(1e-15);
    expect(result.maxSelfWeight).toBe(0);
  });

  it('refuses a group of one, naming its index', () => {
    expect(() => rloo({ rewards: [1, 0, 0], groupIds: [0, 0, 1] })).toThrow(RlAdvantagesError);
    expect(() => rloo({ rewards: [1, 0, 0], groupIds: [0, 0, 1] })).toThrow(/groupIds\[2\] is a group of one/);
  });
});
