// Invariants of the normalisation step, maxrl and gdpo over random batches (fast-check): shift and scale where
// they hold, permutation, w_ii = 0 for every leave-one-out form, masks, and state round trips.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { gdpo, maxrl, Normalizer, normalizeStep, type NormalizationSpec } from '../../../src/index.js';

const value = fc.integer({ min: -1000, max: 1000 }).map((x) => x / 100);
interface Rows { values: number[]; groupIds: number[]; lengths: number[] }
const rows = fc
  .array(fc.record({ size: fc.integer({ min: 1, max: 5 }), values: fc.array(value, { minLength: 5, maxLength: 5 }), lengths: fc.array(fc.integer({ min: 1, max: 30 }), { minLength: 5, maxLength: 5 }) }), { minLength: 2, maxLength: 6 })
  .map((groups) => {
    const out: Rows = { values: [], groupIds: [], lengths: [] };
    groups.forEach((g, id) => {
      for (let k = 0; k < g.size; k++) {
        out.values.push(g.values[k] as number);
        out.groupIds.push(id);
        out.lengths.push(g.lengths[k] as number);
      }
    });
    return out;
  });

const SPECS: { label: string; spec: NormalizationSpec; shift: boolean; scale: 'invariant' | 'linear' | undefined; loo: boolean }[] = [
  { label: 'group/group', spec: { epsilon: 0, zeroStd: 'skip' }, shift: true, scale: 'invariant', loo: false },
  { label: 'group/none', spec: { scale: 'none' }, shift: true, scale: 'linear', loo: false },
  // Scale-invariant only where the std of the others is > 0 (a zero std leaves x - m undivided, linear in the scale).
  { label: 'loo/loo (NeMo-RL)', spec: { leaveOneOut: true, scale: 'loo', zeroStd: 'skip', epsilon: 0 }, shift: true, scale: undefined, loo: true },
  { label: 'loo/none (RLOO)', spec: { leaveOneOut: true, scale: 'none' }, shift: true, scale: 'linear', loo: true },
  { label: 'batch loo/batch', spec: { centre: 'batch', leaveOneOut: true, scale: 'batch', epsilon: 0, zeroStd: 'skip' }, shift: true, scale: 'invariant', loo: true },
  { label: 'tokens group/group', spec: { weights: 'tokens', epsilon: 0, zeroStd: 'skip' }, shift: true, scale: 'invariant', loo: false },
  { label: 'tokens loo/none', spec: { weights: 'tokens', leaveOneOut: true, scale: 'none' }, shift: true, scale: 'linear', loo: true },
  { label: 'none + token whitening (OpenRLHF)', spec: { centre: 'none', scale: 'none', whiten: true, whitenWeights: 'tokens', whitenVariance: 'biased', whitenEpsilon: 0, whitenZeroStd: 'skip' }, shift: true, scale: 'invariant', loo: false },
  { label: 'batch/batch biased', spec: { centre: 'batch', scale: 'batch', variance: 'biased' }, shift: true, scale: undefined, loo: false },
];

const near = (a: number, b: number, tol: number): boolean => Math.abs(a - b) <= tol * (1 + Math.abs(b));

describe.each(SPECS)('$label', ({ spec, shift, scale, loo }) => {
  const run = (r: Rows & { mask?: boolean[] }) => normalizeStep(r, spec);

  test.prop([rows])('finite, deterministic, and masked rows/dropped rows are 0', (r) => {
    const a = run(r);
    expect(a.advantages.every(Number.isFinite)).toBe(true);
    expect(Array.from(run(r).advantages)).toEqual(Array.from(a.advantages));
    a.dropped.forEach((d, i) => d === 1 && expect(a.advantages[i]).toBe(0));
  });

  test.prop([rows, fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true }))])('permuting the rows permutes the output', (r, noise) => {
    const order = r.values.map((_, i) => i);
    const keys = order.map(() => noise.next().value as number);
    order.sort((x, y) => (keys[x] as number) - (keys[y] as number));
    const p = (xs: number[]) => order.map((i) => xs[i] as number);
    const a = run(r).advantages;
    const b = run({ values: p(r.values), groupIds: p(r.groupIds), lengths: p(r.lengths) }).advantages;
    order.forEach((i, k) => expect(near(b[k] as number, a[i] as number, 1e-9)).toBe(true));
  });

  if (shift) {
    test.prop([rows, fc.integer({ min: -500, max: 500 }).map((x) => x / 100)])('adding a constant to every value leaves A unchanged', (r, c) => {
      const a = run(r).advantages;
      const b = run({ ...r, values: r.values.map((v) => v + c) }).advantages;
      a.forEach((x, i) => Math.abs(x) < 1e3 && expect(near(b[i] as number, x, 1e-6)).toBe(true));
    });
  }

  if (scale !== undefined) {
    test.prop([rows, fc.constantFrom(0.25, 2, 8, 1024)])(`scaling values by a power of two ${scale === 'linear' ? 'scales A by it' : 'leaves A unchanged'}, exactly`, (r, s) => {
      const a = run(r).advantages;
      const b = run({ ...r, values: r.values.map((v) => v * s) }).advantages;
      a.forEach((x, i) => expect(b[i]).toBe(scale === 'linear' ? x * s : x));
    });
  }

  if (loo) {
    test.prop([rows, fc.nat(), value])("w_ii = 0: changing x_i never changes row i's centre (rows in groups of >= 2; a lone row's centre is itself)", (r, pick, v) => {
      const i = pick % r.values.length;
      if (r.groupIds.filter((g) => g === r.groupIds[i]).length < 2 && spec.centre !== 'batch') return;
      const values = r.values.slice();
      values[i] = v;
      expect(run({ ...r, values }).centres[i]).toBe(run(r).centres[i]);
    });
  }

  test.prop([rows, fc.nat(), value])("a masked row's value changes nothing else", (r, pick, v) => {
    const i = pick % r.values.length;
    const mask = r.values.map((_, k) => k === i);
    const a = run({ ...r, mask }).advantages;
    const values = r.values.slice();
    values[i] = v;
    expect(Array.from(run({ ...r, values, mask }).advantages)).toEqual(Array.from(a));
    expect(a[i]).toBe(0);
  });
});

describe('running state', () => {
  test.prop([fc.array(rows, { minLength: 2, maxLength: 4 }), fc.nat()])('saving and loading the state at any step resumes bit for bit', (batches, cut) => {
    const k = cut % batches.length;
    const straight = new Normalizer({ centre: 'running', scale: 'running' });
    const first = new Normalizer({ centre: 'running', scale: 'running' });
    const outputs = batches.map((b) => Array.from(straight.apply(b).advantages));
    batches.slice(0, k).forEach((b) => first.apply(b));
    const resumed = new Normalizer({ centre: 'running', scale: 'running' });
    resumed.loadStateDict(JSON.parse(JSON.stringify(first.stateDict())));
    batches.slice(k).forEach((b, j) => expect(Array.from(resumed.apply(b).advantages)).toEqual(outputs[k + j]));
    expect(resumed.stateDict()).toEqual(straight.stateDict());
  });
});

describe('maxrl and gdpo', () => {
  const nonneg = (r: Rows) => ({ rewards: r.values.map(Math.abs), groupIds: r.groupIds });
  test.prop([rows, fc.constantFrom(0.5, 4, 64)])('maxrl with epsilon 0 is invariant to scaling the rewards by a power of two, and permutes', (r, s) => {
    const b = nonneg(r);
    const a = maxrl(b, { epsilon: 0 }).advantages;
    expect(Array.from(maxrl({ ...b, rewards: b.rewards.map((x) => x * s) }, { epsilon: 0 }).advantages)).toEqual(Array.from(a));
    expect(a.every(Number.isFinite)).toBe(true);
  });
  test.prop([rows])('gdpo with one component and weight 1 (TRL flavour) is TRL GRPO whitened over the batch', (r) => {
    const batch = { rewards: r.values, groupIds: r.groupIds, rewardComponents: r.values.map((v) => [v]) };
    const step = normalizeStep({ values: r.values, groupIds: r.groupIds }, { epsilon: 1e-4, whiten: true, whitenEpsilon: 1e-4, whitenEpsilonMode: 'add_std' }).advantages;
    const ours = gdpo(batch, { flavour: 'trl' }).advantages;
    step.forEach((x, i) => expect(near(ours[i] as number, x, 1e-12)).toBe(true));
  });
});
