// decide() with the three methods (docs/method.md section 5) and the spec's method checks.
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/index.js';
import { decide, decisionJson, parseDecisionRule, StudySpecError, type PairedItem } from '../../src/stats/index.js';

function rule(method: string, weights = { treatment: 1, baseline: -1 }) {
  return parseDecisionRule({ method, alpha: 0.05, criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights }] });
}

// 400 items: the treatment is right on 60 the baseline misses, the baseline on 40 the treatment misses.
const treatment: PairedItem[] = Array.from({ length: 400 }, (_, i) => ({ item_id: i, correct: i < 60 || (i >= 100 && i < 300) }));
const baseline: PairedItem[] = Array.from({ length: 400 }, (_, i) => ({ item_id: i, correct: (i >= 60 && i < 100) || (i >= 100 && i < 300) }));

describe('decide with each method', () => {
  it('the spec may name any of the three; the estimate is the same, the intervals nest as the audit found', () => {
    const widths = ['paired_hoeffding', 'paired_empirical_bernstein', 'paired_exact_binomial'].map((m) => {
      const d = decide(rule(m), treatment, baseline);
      expect(d.method).toBe(m);
      expect(d.specMethod).toBe(m);
      expect(d.criteria[0]?.estimate).toBeCloseTo(20 / 400, 15);
      expect(Object.keys(decisionJson(d))).toEqual(['method', 'alpha', 'n', 'verdict', 'criteria']);
      return (d.criteria[0]?.upper ?? 0) - (d.criteria[0]?.lower ?? 0);
    });
    expect(widths[1]).toBeLessThan(widths[0] as number);
    expect(widths[2]).toBeLessThan(widths[1] as number);
  });

  it('an override keeps the spec method and says so in the JSON', () => {
    const d = decide(rule('paired_hoeffding'), treatment, baseline, { method: 'paired_exact_binomial' });
    expect([d.method, d.specMethod]).toEqual(['paired_exact_binomial', 'paired_hoeffding']);
    expect(decisionJson(d)).toMatchObject({ spec_method: 'paired_hoeffding', note: "paired_exact_binomial is not the spec's method (paired_hoeffding): for exploration only" });
    expect(() => decide(rule('paired_hoeffding'), treatment, baseline, { method: 'wald' })).toThrow(/unknown decision method "wald"/);
  });

  it('the exact method: weights (-1, 1) negate the interval; a 0.5 score is refused naming side and index', () => {
    const a = decide(rule('paired_exact_binomial'), treatment, baseline).criteria[0];
    const b = decide(rule('paired_exact_binomial', { treatment: -1, baseline: 1 }), treatment, baseline).criteria[0];
    expect(b?.lower).toBeCloseTo(-(a?.upper ?? 0), 15);
    try {
      decide(rule('paired_exact_binomial'), [{ item_id: 'x', score: 0.5 }], [{ item_id: 'x', score: 1 }]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(RlAdvantagesError);
      expect((error as RlAdvantagesError).code).toBe('not_binary');
      expect((error as RlAdvantagesError).field).toBe('treatment');
      expect((error as RlAdvantagesError).index).toBe(0);
    }
  });

  it('the spec refuses paired_exact_binomial for weights other than (1, -1), (-1, 1), and an unknown method', () => {
    expect(() => rule('paired_exact_binomial', { treatment: 2, baseline: -2 })).toThrow(StudySpecError);
    expect(() => rule('paired_exact_binomial', { treatment: 2, baseline: -2 })).toThrow(/criteria\[0\]\.weights must be \{ treatment: 1, baseline: -1 \}/);
    expect(() => rule('wald')).toThrow(/method must be one of "paired_hoeffding", "paired_empirical_bernstein", "paired_exact_binomial"/);
    // An override to the exact method on such a criterion is refused too.
    expect(() => decide(rule('paired_hoeffding', { treatment: 2, baseline: -2 }), treatment, baseline, { method: 'paired_exact_binomial' })).toThrow(/needs a difference of 0\/1 outcomes/);
  });
});
