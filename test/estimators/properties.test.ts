// Invariants every estimator must keep, over random batches (fast-check).
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createEstimator, TfidfVectorizer, type Batch, type EstimatorResult } from '../../src/index.js';

const vectorizer = TfidfVectorizer.fit([
  'how many apples does tom have',
  'how many pears does ann have',
  'what is the cost of three boats',
  'a train leaves at noon how far does it go',
  'the farmer sells eggs at the market',
]);
const PROMPTS = [
  'how many apples does tom have',
  'how many pears does ann have',
  'what is the cost of three boats',
  'a train leaves at noon',
  'the farmer sells eggs',
  'how many eggs',
  '',
  'unknown words only zebra',
];

const reward = fc.double({ min: -10, max: 10, noNaN: true, noDefaultInfinity: true });
const batchArbitrary = fc
  .array(fc.record({ reward, prompt: fc.constantFrom(...PROMPTS), group: fc.integer({ min: 0, max: 3 }), f: fc.tuple(reward, reward) }), {
    minLength: 2,
    maxLength: 24,
  })
  .map((rows) => {
    // Every group gets at least two members so rloo applies.
    const groups = rows.map((row, i) => (i < 2 ? 0 : row.group));
    const counts = new Map<number, number>();
    for (const g of groups) counts.set(g, (counts.get(g) ?? 0) + 1);
    const fixed = groups.map((g) => ((counts.get(g) as number) < 2 ? 0 : g));
    return {
      rewards: rows.map((r) => r.reward),
      prompts: rows.map((r) => r.prompt),
      groupIds: fixed,
      features: rows.map((r) => [r.f[0], r.f[1]]),
    };
  });

type Named = { name: string; loo: boolean; kernel: boolean; stdScaled: boolean };
const ESTIMATORS: Named[] = [
  { name: 'group_mean', loo: false, kernel: false, stdScaled: false },
  { name: 'group_mean_std', loo: false, kernel: false, stdScaled: true },
  { name: 'rloo', loo: true, kernel: false, stdScaled: false },
  { name: 'loo_batch_mean', loo: true, kernel: false, stdScaled: false },
  { name: 'tfidf_kernel_loo_T0.1', loo: true, kernel: true, stdScaled: false },
  { name: 'tfidf_kernel_loo_T0.001', loo: true, kernel: true, stdScaled: false },
  { name: 'length_bucket_loo', loo: true, kernel: true, stdScaled: false },
  { name: 'kernel_loo_T0.3', loo: true, kernel: true, stdScaled: false },
];

function run(name: string, batch: Batch): EstimatorResult {
  return createEstimator(name, { vectorizer }).compute(batch);
}

// Sums formed in a different order round differently: equalities that are exact in real
// arithmetic are checked to 1e-12 relative to the reward scale (10) here.
const CLOSE = 1e-11;

describe.each(ESTIMATORS)('$name', ({ name, loo, kernel, stdScaled }) => {
  test.prop([batchArbitrary])('never yields NaN, and returns one finite value per rollout', (batch) => {
    const result = run(name, batch);
    for (const array of [result.advantages, result.baselines, result.looMean]) {
      expect(array.length).toBe(batch.rewards.length);
      expect(array.every(Number.isFinite)).toBe(true);
    }
  });

  if (loo) {
    test.prop([batchArbitrary, fc.nat(), reward])('w_ii = 0: changing r_i never changes b_i', (batch, pick, value) => {
      const i = pick % batch.rewards.length;
      const before = run(name, batch);
      const rewards = batch.rewards.slice();
      rewards[i] = value;
      const after = run(name, { ...batch, rewards });
      expect(after.baselines[i]).toBe(before.baselines[i]);
      expect(before.maxSelfWeight).toBe(0);
    });
  }

  if (kernel) {
    test.prop([batchArbitrary])('b_i lies within [min_{j != i} r_j, max_{j != i} r_j]', (batch) => {
      const { baselines } = run(name, batch);
      baselines.forEach((b, i) => {
        const others = batch.rewards.filter((_, j) => j !== i);
        expect(b).toBeGreaterThanOrEqual(Math.min(...others) - CLOSE);
        expect(b).toBeLessThanOrEqual(Math.max(...others) + CLOSE);
      });
    });
  }

  test.prop([batchArbitrary, fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true }))])(
    'permuting the batch permutes the output',
    (batch, noise) => {
      const order = batch.rewards.map((_, i) => i);
      const keys = order.map(() => noise.next().value as number);
      order.sort((a, b) => (keys[a] as number) - (keys[b] as number));
      const permuted = {
        rewards: order.map((i) => batch.rewards[i] as number),
        prompts: order.map((i) => batch.prompts[i] as string),
        groupIds: order.map((i) => batch.groupIds[i] as number),
        features: order.map((i) => batch.features[i] as number[]),
      };
      const a = run(name, batch);
      const b = run(name, permuted);
      order.forEach((i, k) => expect(b.advantages[k]).toBeCloseTo(a.advantages[i] as number, 11));
    },
  );

  test.prop([batchArbitrary, reward])('adding a constant to every reward leaves advantages unchanged', (batch, shift) => {
    const a = run(name, batch);
    const b = run(name, { ...batch, rewards: batch.rewards.map((r) => r + shift) });
    if (!stdScaled) {
      a.advantages.forEach((value, i) => expect(Math.abs((b.advantages[i] as number) - value)).toBeLessThanOrEqual(CLOSE * 4));
      return;
    }
    // group_mean_std divides by (std_g + 1e-6): a rounding error δ in r_i - mean_g (at most a few
    // ulps of |r| + |shift| <= 20, bounded here by 1e-12) moves A_i by at most
    // δ (1 + |A_i|) / (std_g + 1e-6), which is large only for groups of nearly equal rewards.
    const std = groupStds(batch.rewards, batch.groupIds);
    a.advantages.forEach((value, i) => {
      const bound = (1e-12 * (1 + Math.abs(value))) / ((std[i] as number) + 1e-6);
      expect(Math.abs((b.advantages[i] as number) - value)).toBeLessThanOrEqual(bound);
    });
  });

  if (!stdScaled) {
    test.prop([batchArbitrary, fc.double({ min: 0.01, max: 100, noNaN: true })])(
      'scaling rewards by c > 0 scales advantages by c',
      (batch, c) => {
        const a = run(name, batch);
        const b = run(name, { ...batch, rewards: batch.rewards.map((r) => r * c) });
        a.advantages.forEach((value, i) => expect(Math.abs((b.advantages[i] as number) - c * value)).toBeLessThanOrEqual(CLOSE * c * 4));
      },
    );
  }

  test.prop([batchArbitrary])('the same input gives bit-identical output', (batch) => {
    const a = run(name, batch);
    const b = run(name, batch);
    expect(Array.from(b.advantages)).toEqual(Array.from(a.advantages));
  });
});

describe('zero-sum advantages', () => {
  test.prop([batchArbitrary])('loo_batch_mean advantages sum to 0 over the batch', (batch) => {
    const { advantages } = run('loo_batch_mean', batch);
    expect(Math.abs(advantages.reduce((s, a) => s + a, 0))).toBeLessThanOrEqual(CLOSE * batch.rewards.length);
  });

  test.prop([batchArbitrary])('group_mean advantages sum to 0 within each group', (batch) => {
    const { advantages } = run('group_mean', batch);
    const sums = new Map<number, number>();
    batch.groupIds.forEach((g, i) => sums.set(g, (sums.get(g) ?? 0) + (advantages[i] as number)));
    for (const sum of sums.values()) expect(Math.abs(sum)).toBeLessThanOrEqual(CLOSE * batch.rewards.length);
  });
});

/** The Bessel-corrected std of each rollout's group (0 for a group of one), as group_mean_std defines it. */
function groupStds(rewards: readonly number[], groupIds: readonly number[]): number[] {
  const members = new Map<number, number[]>();
  groupIds.forEach((g, i) => members.set(g, [...(members.get(g) ?? []), rewards[i] as number]));
  return groupIds.map((g) => {
    const values = members.get(g) as number[];
    if (values.length < 2) return 0;
    const mean = values.reduce((t, r) => t + r, 0) / values.length;
    return Math.sqrt(values.reduce((t, r) => t + (r - mean) ** 2, 0) / (values.length - 1));
  });
}
