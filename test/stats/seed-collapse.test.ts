// The collapse rate S seeds cannot rule out (docs/method.md section 5.8): 1 - alpha^(1/S), beside every seed-level verdict.
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/index.js';
import { collapseRateNotRuledOut, decideAcrossSeeds, parseDecisionRule, seedDecisionJson } from '../../src/stats/index.js';

describe('collapseRateNotRuledOut', () => {
  it('is the p at which all S runs escape collapse with probability alpha: 0.45 at S = 5', () => {
    expect(collapseRateNotRuledOut(5, 0.05)).toBeCloseTo(0.4507197283469412, 15);
    for (const S of [1, 2, 3, 10, 20]) expect((1 - collapseRateNotRuledOut(S, 0.05)) ** S).toBeCloseTo(0.05, 14);
  });
  it('refuses a seed count below 1 or not an integer, and an alpha outside (0, 1)', () => {
    expect(() => collapseRateNotRuledOut(0, 0.05)).toThrow(RlAdvantagesError);
    expect(() => collapseRateNotRuledOut(2.5, 0.05)).toThrow(/seeds/);
    expect(() => collapseRateNotRuledOut(3, 1)).toThrow(/alpha/);
  });
  it('a seed-level decision carries it at its S and the rule alpha (JSON collapse_rate_not_ruled_out)', () => {
    const rule = parseDecisionRule({ method: 'paired_hoeffding', alpha: 0.1, criteria: [{ id: 'p', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }] });
    const arm = (seed: number) => Array.from({ length: 20 }, (_, i) => ({ item_id: i, correct: (i + seed) % 3 === 0 }));
    const d = decideAcrossSeeds({ replicates: [0, 1, 2, 3, 4].map((seed) => ({ seed, treatment: arm(seed), baseline: arm(seed + 1) })), rule });
    expect(seedDecisionJson(d).collapse_rate_not_ruled_out).toBe(1 - 0.1 ** (1 / 5));
  });
});
