import { readFileSync } from 'node:fs';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import { evaluateGate } from '../../src/study/gate.js';
import { loadStudySpec, StudySpecError } from '../../src/study/spec.js';
import { specPath } from '../helpers/paths.js';

const spec = loadStudySpec(readFileSync(specPath, 'utf8'));
const gate = spec.activationGate;

/** Values that satisfy every check of the shipped spec's gate (the executed config of the record, plus pilot figures within bounds). */
const passing = {
  offline_beff_ratio_tfidf_vs_loo_mean: 1.05,
  pilot_mean_abs_gs1_minus_batchmean_baseline: 0.02,
  self_weight_max: 0,
  executed_rollouts_per_step: 32,
  executed_group_size_gs1: 1,
  executed_group_size_grpo: 8,
  nonzero_advantage_fraction_gs1: 0.9,
};

describe('evaluateGate on the shipped spec (docs/method.md section 6)', () => {
  it("fails on the record's B_eff ratio 0.9762 (min 1.03), and only on that check", () => {
    // gs1-vs-grpo-record.txt: offline_beff_ratio_tfidf_vs_loo_mean 0.9762.
    const result = evaluateGate(gate, { ...passing, offline_beff_ratio_tfidf_vs_loo_mean: 0.9762 });
    expect(result.passed).toBe(false);
    expect(result.applicable).toBe(true);
    expect(result.checks[0]).toEqual({
      metric: 'offline_beff_ratio_tfidf_vs_loo_mean',
      value: 0.9762,
      min: 1.03,
      max: null,
      status: 'fail',
      reason: '0.9762 < min 1.03',
    });
    expect(result.checks.filter((c) => c.status !== 'pass').map((c) => c.metric)).toEqual([
      'offline_beff_ratio_tfidf_vs_loo_mean',
    ]);
  });

  it('passes a set within every bound, reporting each check in spec order', () => {
    const result = evaluateGate(gate, passing);
    expect(result.passed).toBe(true);
    expect(result.checks.map((c) => [c.metric, c.value, c.min, c.max, c.status])).toEqual([
      ['offline_beff_ratio_tfidf_vs_loo_mean', 1.05, 1.03, null, 'pass'],
      ['pilot_mean_abs_gs1_minus_batchmean_baseline', 0.02, 0.01, null, 'pass'],
      ['self_weight_max', 0, 0, 0, 'pass'],
      ['executed_rollouts_per_step', 32, 32, 32, 'pass'],
      ['executed_group_size_gs1', 1, 1, 1, 'pass'],
      ['executed_group_size_grpo', 8, 8, 8, 'pass'],
      ['nonzero_advantage_fraction_gs1', 0.9, 0.3, null, 'pass'],
    ]);
  });

  it('bounds are inclusive: 1.03 passes min 1.03; self_weight_max 0 passes [0, 0]', () => {
    const result = evaluateGate(gate, { ...passing, offline_beff_ratio_tfidf_vs_loo_mean: 1.03, self_weight_max: 0 });
    expect(result.passed).toBe(true);
    expect(result.checks[0]?.reason).toBe('1.03 >= min 1.03');
    expect(result.checks[2]?.reason).toBe('0 >= min 0 and <= max 0');
  });

  it('fails just outside a bound: any self-weight above 0, a group size of 2, a ratio one step below 1.03', () => {
    expect(evaluateGate(gate, { ...passing, self_weight_max: 1e-12 }).checks[2]).toMatchObject({ status: 'fail', reason: '1e-12 > max 0' });
    expect(evaluateGate(gate, { ...passing, executed_group_size_gs1: 2 }).passed).toBe(false);
    const justBelow = 1.03 - Number.EPSILON;
    expect(evaluateGate(gate, { ...passing, offline_beff_ratio_tfidf_vs_loo_mean: justBelow }).passed).toBe(false);
  });

  it('a missing metric fails its check with status missing and value null', () => {
    const { nonzero_advantage_fraction_gs1: _dropped, ...withoutOne } = passing;
    const result = evaluateGate(gate, withoutOne);
    expect(result.passed).toBe(false);
    expect(result.checks[6]).toEqual({
      metric: 'nonzero_advantage_fraction_gs1',
      value: null,
      min: 0.3,
      max: null,
      status: 'missing',
      reason: 'not measured',
    });
    expect(evaluateGate(gate, { ...passing, self_weight_max: null }).checks[2]?.status).toBe('missing');
    expect(evaluateGate(gate, {}).checks.every((c) => c.status === 'missing')).toBe(true);
  });

  it('a non-finite value fails, even where an infinite value would satisfy a min-only bound', () => {
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const check = evaluateGate(gate, { ...passing, offline_beff_ratio_tfidf_vs_loo_mean: value }).checks[0];
      expect(check?.status).toBe('fail');
      expect(check?.reason).toBe(`${value} is not finite`);
    }
  });

  it('ignores metrics no check names, and never reads inherited properties', () => {
    expect(evaluateGate(gate, { ...passing, calib_sigma_eps2: 0.1275 }).passed).toBe(true);
    const own = evaluateGate({ checks: [{ metric: 'constructor', min: 0 }] }, {});
    expect(own.checks[0]?.status).toBe('missing');
  });
});

describe('evaluateGate input checks', () => {
  it('validates the gate and the metrics', () => {
    expect(() => evaluateGate({ checks: [{ metric: 'm' }] }, {})).toThrow(StudySpecError);
    let error: unknown;
    try {
      evaluateGate(gate, { ...passing, self_weight_max: '0' as unknown as number });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RlAdvantagesError);
    expect((error as RlAdvantagesError).message).toBe('metrics.self_weight_max must be a number, got "0"');
    expect(() => evaluateGate(gate, null as unknown as Record<string, number>)).toThrow(/metrics must be an object/);
  });

  it('reports an inapplicable gate as such, without passing it silently', () => {
    const result = evaluateGate({ applicable: false, checks: [{ metric: 'm', min: 1 }] }, { m: 0 });
    expect(result).toMatchObject({ applicable: false, passed: false });
  });
});

describe('evaluateGate properties', () => {
  const bound = fc.double({ min: -1e6, max: 1e6, noNaN: true });
  test.prop([bound, bound, fc.double({ noNaN: false })])('a check passes iff min <= value <= max and value is finite', (a, b, value) => {
    const [min, max] = a <= b ? [a, b] : [b, a];
    const result = evaluateGate({ checks: [{ metric: 'm', min, max }] }, { m: value });
    expect(result.passed).toBe(Number.isFinite(value) && value >= min && value <= max);
  });

  test.prop([fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.double({ min: 0, max: 2, noNaN: true }))])(
    'the gate passes iff every metric is present and within its bounds',
    (metrics) => {
      const result = evaluateGate({ checks: [{ metric: 'a', min: 1 }, { metric: 'b', max: 1 }, { metric: 'c', min: 0.5, max: 1.5 }] }, metrics);
      const { a, b, c } = metrics;
      const expected = a !== undefined && a >= 1 && b !== undefined && b <= 1 && c !== undefined && c >= 0.5 && c <= 1.5;
      expect(result.passed).toBe(expected);
      expect(result.checks.filter((c) => c.status === 'missing').map((c) => c.metric)).toEqual(
        ['a', 'b', 'c'].filter((m) => !(m in metrics)),
      );
    },
  );
});
