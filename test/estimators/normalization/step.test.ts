// The normalisation step's rules (docs/method.md section 2.6): each option on a hand-worked batch, the
// diagnostics, and the errors with their field and index.
import { describe, expect, it } from 'vitest';
import { Normalizer, normalized, normalizeStep, readNormalization, RlAdvantagesError, groupMeanStd, groupMean } from '../../../src/index.js';

const close = (a: ArrayLike<number>, b: number[], tol = 1e-15): void => b.forEach((v, i) => expect(Math.abs((a[i] as number) - v), `row ${i}`).toBeLessThanOrEqual(tol));

function error(run: () => unknown): RlAdvantagesError {
  try {
    run();
  } catch (e) {
    if (e instanceof RlAdvantagesError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('centre and scale', () => {
  const values = [1, 0, 0, 3, 5, 5];
  const groupIds = [0, 0, 0, 1, 1, 1];
  it("group / group / unbiased / add_std: verl's GRPO, (x - mean) / (std + eps)", () => {
    const std0 = Math.sqrt(1 / 3);
    const std1 = Math.sqrt(4 / 3);
    close(normalizeStep({ values, groupIds }).advantages, [(2 / 3) / (std0 + 1e-6), (-1 / 3) / (std0 + 1e-6), (-1 / 3) / (std0 + 1e-6), (-4 / 3) / (std1 + 1e-6), (2 / 3) / (std1 + 1e-6), (2 / 3) / (std1 + 1e-6)], 1e-15);
  });
  it('leave-one-out centre: x - mean of the others; batch centre; none', () => {
    close(normalizeStep({ values, groupIds }, { leaveOneOut: true, scale: 'none' }).advantages, [1, -0.5, -0.5, -2, 1, 1]);
    close(normalizeStep({ values }, { centre: 'batch', scale: 'none' }).advantages, values.map((v) => v - 14 / 6), 1e-15);
    close(normalizeStep({ values }, { centre: 'batch', leaveOneOut: true, scale: 'none' }).advantages, values.map((v) => v - (14 - v) / 5), 1e-15);
    close(normalizeStep({ values }, { centre: 'none', scale: 'none' }).advantages, values);
  });
  it("biased variance and each epsilon mode", () => {
    const v = [1, 0];
    const ids = [0, 0];
    // biased variance 1/4, std 1/2; unbiased 1/2.
    close(normalizeStep({ values: v, groupIds: ids }, { variance: 'biased', epsilon: 0.1 }).advantages, [0.5 / 0.6, -0.5 / 0.6]);
    close(normalizeStep({ values: v, groupIds: ids }, { variance: 'biased', epsilon: 0.6, epsilonMode: 'floor_std' }).advantages, [0.5 / 0.6, -0.5 / 0.6]);
    close(normalizeStep({ values: v, groupIds: ids }, { variance: 'biased', epsilon: 0.11, epsilonMode: 'add_variance' }).advantages, [0.5 / 0.6, -0.5 / 0.6]);
    close(normalizeStep({ values: v, groupIds: ids }, { variance: 'biased', epsilon: 0.36, epsilonMode: 'floor_variance' }).advantages, [0.5 / 0.6, -0.5 / 0.6]);
    close(normalizeStep({ values: v, groupIds: ids }, { variance: 'biased', epsilon: 0, minStd: 0.6 }).advantages, [0.5 / 0.6, -0.5 / 0.6]);
  });
  it('token weights: mean and variance weighted by lengths', () => {
    // weights 1, 3: mean 1/4, biased variance (1 * 9/16 + 3 * 1/16) / 4 = 3/16.
    close(normalizeStep({ values: [1, 0], groupIds: [0, 0], lengths: [1, 3] }, { weights: 'tokens', variance: 'biased', epsilon: 0 }).advantages, [0.75 / Math.sqrt(3 / 16), -0.25 / Math.sqrt(3 / 16)], 1e-15);
  });
  it("loo scale: the std of the others; zeroStd 'skip' leaves a zero std undivided (NeMo-RL)", () => {
    const r = normalizeStep({ values: [1, 0, 0, 2], groupIds: [0, 0, 0, 0] }, { leaveOneOut: true, scale: 'loo', zeroStd: 'skip', epsilon: 0 });
    // row 0: others {0, 0, 2}: mean 2/3, std sqrt(4/3); row 3: others {1, 0, 0}: std sqrt(1/3).
    expect(r.advantages[0]).toBeCloseTo((1 - 2 / 3) / Math.sqrt(4 / 3), 14);
    expect(r.advantages[3]).toBeCloseTo((2 - 1 / 3) / Math.sqrt(1 / 3), 14);
    const two = normalizeStep({ values: [1, 0], groupIds: [0, 0] }, { leaveOneOut: true, scale: 'loo', zeroStd: 'skip' });
    expect(Array.from(two.advantages)).toEqual([1, -1]);
    expect(two.diagnostics.rowsUndivided).toBe(2);
  });
  it("stdAround 'centre': deviations from each row's own centre (AReaL)", () => {
    // LOO centres of {1, 0}: 0 and 1; deviations 1 and -1; unbiased variance 2.
    close(normalizeStep({ values: [1, 0], groupIds: [0, 0] }, { leaveOneOut: true, stdAround: 'centre', epsilon: 0 }).advantages, [1 / Math.SQRT2, -1 / Math.SQRT2]);
  });
});

describe('groups of one and zero-variance groups', () => {
  const values = [0.5, 1, 0, 0.3, 0.3];
  const groupIds = ['a', 'b', 'b', 'c', 'c'];
  it("singleton 'zero' / 'drop' / 'raw' / 'error'", () => {
    const zero = normalizeStep({ values, groupIds });
    expect([zero.advantages[0], zero.dropped[0], zero.centres[0]]).toEqual([0, 0, 0.5]);
    const drop = normalizeStep({ values, groupIds }, { singleton: 'drop' });
    expect([drop.advantages[0], drop.dropped[0], drop.diagnostics.rowsDropped]).toEqual([0, 1, 1]);
    expect(normalizeStep({ values, groupIds }, { singleton: 'raw' }).advantages[0]).toBe(0.5 / (1 + 1e-6));
    expect(normalizeStep({ values, groupIds }, { singleton: 'raw', scale: 'none' }).advantages[0]).toBe(0.5);
    const e = error(() => normalizeStep({ values, groupIds }, { singleton: 'error' }));
    expect([e.code, e.field, e.index]).toEqual(['group_too_small', 'groupIds', 0]);
  });
  it("a constant group gives exactly 0 (float64 0.3 included); zeroVariance 'mask' flags its rows and counts them", () => {
    const keep = normalizeStep({ values, groupIds });
    expect([keep.advantages[3], keep.advantages[4], keep.dropped[3]]).toEqual([0, 0, 0]);
    expect(keep.diagnostics.zeroVarianceGroups).toBe(1);
    const mask = normalizeStep({ values, groupIds }, { zeroVariance: 'mask' });
    expect([mask.advantages[3], mask.dropped[3], mask.dropped[4], mask.diagnostics.rowsDropped]).toEqual([0, 1, 1, 2]);
  });
  it('a constant group of a non-dyadic reward stays exactly 0 in every estimator that normalises (float64; verl float32 gives +-2.9e-2)', () => {
    for (const r of [1 / 3, 0.1, 0.7, 2 / 3]) {
      const batch = { rewards: Array(8).fill(r), groupIds: Array(8).fill(0) };
      expect(Array.from(groupMeanStd(batch).advantages)).toEqual(Array(8).fill(0));
      expect(Array.from(groupMean(batch, { normalize: 'group', epsilon: 1e-9 }).advantages)).toEqual(Array(8).fill(0));
      expect(Array.from(normalizeStep({ values: batch.rewards, groupIds: batch.groupIds, lengths: [3, 1, 4, 1, 5, 9, 2, 6] }, { epsilon: 1e-9, weights: 'tokens' }).advantages)).toEqual(Array(8).fill(0));
    }
  });
});

describe('whitening, clipping, masks', () => {
  it('whitening: (A - mean) / (std + eps) over the kept rows', () => {
    const r = normalizeStep({ values: [1, 0, 1, 1], groupIds: [0, 0, 1, 1] }, { scale: 'none', whiten: true, whitenEpsilonMode: 'add_std', whitenEpsilon: 0 });
    // A before = [0.5, -0.5, 0, 0]: mean 0, unbiased std sqrt(1/6).
    close(r.advantages, [0.5 / Math.sqrt(1 / 6), -0.5 / Math.sqrt(1 / 6), 0, 0], 1e-15);
  });
  it('clipping to [low, high], counted', () => {
    const r = normalizeStep({ values: [3, -3, 0.5], groupIds: [0, 0, 0] }, { scale: 'none', centre: 'none', clipLow: -1, clipHigh: 2 });
    expect(Array.from(r.advantages)).toEqual([2, -1, 0.5]);
    expect([r.diagnostics.rowsClippedLow, r.diagnostics.rowsClippedHigh]).toEqual([1, 1]);
  });
  it('a masked row enters no statistic, gets A = 0 and is flagged; its value may be NaN', () => {
    const masked = normalizeStep({ values: [1, Number.NaN, 0], groupIds: [0, 0, 0], mask: [false, true, false] });
    const plain = normalizeStep({ values: [1, 0], groupIds: [0, 0] });
    expect([masked.advantages[0], masked.advantages[1], masked.advantages[2]]).toEqual([plain.advantages[0], 0, plain.advantages[1]]);
    expect(Array.from(masked.dropped)).toEqual([0, 1, 0]);
  });
});

describe('running state', () => {
  it("updates before use (ROLL's order), and state round-trips through JSON bit for bit", () => {
    const a = new Normalizer({ centre: 'running', scale: 'running' });
    a.apply({ values: [1, 0, 1, 0] });
    expect(a.stateDict()).toEqual({ mean: 0.5 * (4 / (4 + 1e-24)), variance: expect.any(Number), count: 4 + 1e-24 });
    const b = new Normalizer({ centre: 'running', scale: 'running' });
    b.loadStateDict(JSON.parse(JSON.stringify(a.stateDict())));
    expect(Array.from(b.apply({ values: [0.2, 0.9] }).advantages)).toEqual(Array.from(a.apply({ values: [0.2, 0.9] }).advantages));
    expect(b.stateDict()).toEqual(a.stateDict());
  });
  it('a malformed state is refused, naming the field', () => {
    const n = new Normalizer({ centre: 'running', scale: 'running' });
    expect(error(() => n.loadStateDict({ mean: 0, variance: -1, count: 1 })).field).toBe('state.variance');
    expect(error(() => n.loadStateDict({ mean: 0, variance: 1, count: 1, extra: 1 })).field).toBe('state.extra');
  });
});

describe('bad options', () => {
  it('unknown keys, bad choices, negative numbers, clipLow > clipHigh are errors naming the field', () => {
    expect(error(() => readNormalization({ centre: 'median' as never })).field).toBe('centre');
    expect(error(() => readNormalization({ epsilon: -1 })).field).toBe('epsilon');
    expect(error(() => readNormalization({ epsilonn: 1 } as never)).field).toBe('epsilonn');
    expect(error(() => readNormalization({ clipLow: 1, clipHigh: 0 })).field).toBe('clipLow');
    expect(error(() => readNormalization({ centre: 'running', leaveOneOut: true })).field).toBe('leaveOneOut');
  });
  it('a zero denominator for a nonzero centred value is zero_std, not an infinity', () => {
    const e = error(() => normalizeStep({ values: [1, 0, 0], groupIds: [0, 0, 0] }, { leaveOneOut: true, scale: 'loo', epsilon: 0 }));
    expect([e.code, e.field, e.index]).toEqual(['zero_std', 'values', 0]);
  });
});

describe('normalized: the step as an estimator', () => {
  it('gives the step on the rewards, the centres as baselines, dropped rows (masked ones included), and diagnostics', () => {
    const batch = { rewards: [1, 0, 0.5, 0.5, 2, Number.NaN], groupIds: [0, 0, 1, 1, 2, 0], mask: [false, false, false, false, false, true] };
    const spec = { leaveOneOut: true, scale: 'none' as const, zeroVariance: 'mask' as const, singleton: 'drop' as const };
    const r = normalized(batch, spec);
    const step = normalizeStep({ values: batch.rewards, groupIds: batch.groupIds, mask: batch.mask }, spec);
    expect(Array.from(r.advantages)).toEqual(Array.from(step.advantages));
    expect(Array.from(r.baselines)).toEqual([0, 1, 0, 0, 0, 0]);
    expect(Array.from(r.dropped ?? [])).toEqual([0, 0, 1, 1, 1, 1]);
    expect([r.diagnostics.masked, r.diagnostics.groupsOfOne, r.diagnostics.zeroVarianceGroups, r.maxSelfWeight]).toEqual([1, 1, 1, 0]);
  });
});
