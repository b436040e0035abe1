// Invariants of the estimators of docs/method.md section 2.2 and the normalisation and mask of
// section 2.1, over random batches (fast-check).
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createEstimator, createStatefulEstimator, PromptValueEstimator, TfidfVectorizer, type Batch, type EstimatorContext, type EstimatorResult, type PromptValueJSON } from '../../src/index.js';

const vectorizer = TfidfVectorizer.fit(['how many apples', 'how many pears', 'cost of three boats', 'a train leaves at noon', 'eggs at the market']);
const PROMPTS = ['how many apples', 'how many pears', 'cost of three boats', 'a train leaves', 'eggs market', 'zebra'];

// Rewards on a 0.01 grid: realistic, and no subnormal std that underflows to 0 with epsilon 0.
const reward = fc.integer({ min: -1000, max: 1000 }).map((x) => x / 100);
interface Rows {
  rewards: number[];
  groupIds: number[];
  prompts: string[];
  lengths: number[];
  greedyRewards: number[];
}
/** Groups of 1 to 5 rollouts; a group's rollouts share its prompt. `binary` draws rewards in {0, 1}. */
function batches(binary: boolean, minGroup = 1): fc.Arbitrary<Rows> {
  const value = binary ? fc.constantFrom(0, 1) : fc.oneof(reward, fc.constantFrom(0, 1, 0.5));
  return fc
    .array(fc.record({ size: fc.integer({ min: minGroup, max: 5 }), prompt: fc.nat(PROMPTS.length - 1), rewards: fc.array(value, { minLength: 5, maxLength: 5 }), lengths: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 5, maxLength: 5 }), greedy: reward }), { minLength: 2, maxLength: 6 })
    .map((groups) => {
      const rows: Rows = { rewards: [], groupIds: [], prompts: [], lengths: [], greedyRewards: [] };
      groups.forEach((g, id) => {
        for (let k = 0; k < g.size; k++) {
          rows.rewards.push(g.rewards[k] as number);
          rows.groupIds.push(id);
          rows.prompts.push(PROMPTS[g.prompt] as string);
          rows.lengths.push(g.lengths[k] as number);
          rows.greedyRewards.push(g.greedy);
        }
      });
      return rows;
    });
}

interface Case {
  name: string;
  context?: EstimatorContext;
  binary?: boolean;
  minGroup?: number;
  /** Changing r_i never changes b_i. */
  loo?: boolean;
  /** r + c leaves A unchanged (with the greedy rewards shifted too). */
  shift?: boolean;
  /** r * c scales A by c ('linear') or leaves it unchanged ('invariant', with epsilon 0). */
  scale?: 'linear' | 'invariant';
  /** sum of (weight x A) over each group (or the batch) is 0. */
  zeroSum?: 'group' | 'group_length' | 'batch_length';
}
const CASES: Case[] = [
  { name: 'reinforce_plus_plus_baseline', context: { epsilon: 0 }, shift: true, scale: 'invariant', zeroSum: 'batch_length' },
  { name: 'remax', shift: true, scale: 'linear', loo: true },
  { name: 'opo', shift: true, scale: 'linear', zeroSum: 'group_length' },
  { name: 'gpg', scale: 'linear', zeroSum: 'group' },
  { name: 'grpo_passk', context: { epsilon: 0 }, minGroup: 2, shift: true, scale: 'invariant' },
  { name: 'grpo_passk', context: { normalize: 'none' }, minGroup: 2, shift: true, scale: 'linear' },
  { name: 'passk_k1', context: { normalize: 'none' }, binary: true, zeroSum: 'group' },
  { name: 'passk_k2', context: { normalize: 'none' }, binary: true, minGroup: 2, zeroSum: 'group' },
  { name: 'passk_k3', binary: true, minGroup: 3 },
  { name: 'rloo', context: { singleton: 'zero' }, shift: true, scale: 'linear', zeroSum: 'group' },
  { name: 'rloo', context: { singleton: 'zero' }, minGroup: 2, loo: true },
  { name: 'group_mean', context: { normalize: 'group', epsilon: 0 }, shift: true, scale: 'invariant', zeroSum: 'group' },
  { name: 'group_mean', context: { normalize: 'batch', epsilon: 0, stdFloor: 0.5 }, zeroSum: 'group' },
  { name: 'loo_batch_mean', context: { normalize: 'batch' }, loo: true },
  { name: 'shrinkage_loo', loo: true, shift: true, scale: 'linear' },
  { name: 'shrinkage_loo_tfidf_kernel_loo_T0.1', loo: true, shift: true, scale: 'linear' },
];

const CLOSE = 1e-9;
const label = (c: Case): string => `${c.name} ${JSON.stringify(c.context ?? {})}`;

describe.each(CASES.map((c) => ({ ...c, label: label(c) })))('$label', (c) => {
  const estimator = createEstimator(c.name, { ...c.context, vectorizer });
  const run = (batch: Batch): EstimatorResult => estimator.compute(batch);
  const arbitrary = batches(c.binary ?? false, c.minGroup ?? 1);

  test.prop([arbitrary])('is deterministic and finite, with diagnostics that count the batch', (batch) => {
    const a = run(batch);
    const b = run(batch);
    expect(Array.from(b.advantages)).toEqual(Array.from(a.advantages));
    expect(a.advantages.every(Number.isFinite) && a.baselines.every(Number.isFinite)).toBe(true);
    expect(a.diagnostics.groups).toBe(new Set(batch.groupIds).size);
    expect(a.diagnostics.zeroAdvantageFraction).toBe(a.advantages.filter((x) => x === 0).length / batch.rewards.length);
  });

  test.prop([arbitrary, fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true }))])('permuting the batch permutes the output', (batch, noise) => {
    const order = batch.rewards.map((_, i) => i);
    const keys = order.map(() => noise.next().value as number);
    order.sort((x, y) => (keys[x] as number) - (keys[y] as number));
    const permute = <T>(a: T[]): T[] => order.map((i) => a[i] as T);
    const p: Rows = { rewards: permute(batch.rewards), groupIds: permute(batch.groupIds), prompts: permute(batch.prompts), lengths: permute(batch.lengths), greedyRewards: permute(batch.greedyRewards) };
    const a = run(batch);
    const b = run(p);
    // grpo_passk credits the first best rollout: under a tie a permutation can move the credit, of value 0.
    order.forEach((i, k) => expect(Math.abs((b.advantages[k] as number) - (a.advantages[i] as number))).toBeLessThanOrEqual(CLOSE * (1 + Math.abs(a.advantages[i] as number))));
  });

  if (c.loo) {
    test.prop([arbitrary, fc.nat(), reward])('w_ii = 0: changing r_i never changes b_i', (batch, pick, value) => {
      const i = pick % batch.rewards.length;
      const rewards = batch.rewards.slice();
      rewards[i] = value;
      expect(run({ ...batch, rewards }).baselines[i]).toBe(run(batch).baselines[i]);
    });
  }

  if (c.shift) {
    test.prop([arbitrary, fc.double({ min: -5, max: 5, noNaN: true })])('adding a constant to every reward leaves A unchanged', (batch, shift) => {
      const a = run(batch);
      const b = run({ ...batch, rewards: batch.rewards.map((r) => r + shift), greedyRewards: batch.greedyRewards.map((r) => r + shift) });
      // Normalised forms divide rounding of order 1e-15 by the std: compare only where the std is not tiny.
      a.advantages.forEach((x, i) => {
        if (c.scale !== 'invariant' || Math.abs(x) < 1e3) expect(Math.abs((b.advantages[i] as number) - x)).toBeLessThanOrEqual(c.scale === 'invariant' ? 1e-6 : CLOSE);
      });
    });
  }

  if (c.scale !== undefined) {
    test.prop([arbitrary, fc.double({ min: 0.1, max: 10, noNaN: true })])(`scaling rewards by s > 0 ${c.scale === 'linear' ? 'scales A by s' : 'leaves A unchanged'}`, (batch, s) => {
      const a = run(batch);
      const b = run({ ...batch, rewards: batch.rewards.map((r) => r * s), greedyRewards: batch.greedyRewards.map((r) => r * s) });
      const factor = c.scale === 'linear' ? s : 1;
      a.advantages.forEach((x, i) => expect(Math.abs((b.advantages[i] as number) - factor * x)).toBeLessThanOrEqual(1e-6 * (1 + Math.abs(factor * x))));
    });
  }

  if (c.zeroSum !== undefined) {
    test.prop([arbitrary])(`advantages sum to 0 (${c.zeroSum})`, (batch) => {
      const { advantages } = run(batch);
      const weight = (i: number): number => (c.zeroSum === 'group' ? 1 : (batch.lengths[i] as number));
      const keys = c.zeroSum === 'batch_length' ? batch.rewards.map(() => 0) : batch.groupIds;
      const sums = new Map<number, number>();
      const scale = new Map<number, number>();
      keys.forEach((g, i) => {
        sums.set(g, (sums.get(g) ?? 0) + weight(i) * (advantages[i] as number));
        scale.set(g, (scale.get(g) ?? 0) + weight(i) * Math.abs(advantages[i] as number));
      });
      for (const [g, sum] of sums) expect(Math.abs(sum)).toBeLessThanOrEqual(1e-9 * (1 + (scale.get(g) as number)));
    });
  }

  test.prop([arbitrary, fc.nat()])('a masked rollout gets A = 0, and the others what the batch without it gives', (batch, pick) => {
    const i = pick % batch.rewards.length;
    const mask = batch.rewards.map((_, j) => j === i);
    const without = <T>(a: T[]): T[] => a.filter((_, j) => j !== i);
    const reduced: Rows = { rewards: without(batch.rewards), groupIds: without(batch.groupIds), prompts: without(batch.prompts), lengths: without(batch.lengths), greedyRewards: without(batch.greedyRewards) };
    let expected: EstimatorResult;
    try {
      expected = run(reduced);
    } catch (error) {
      // The batch without the row is too small for the estimator: the masked batch is refused too.
      expect(() => run({ ...batch, rewards: batch.rewards.map((r, j) => (j === i ? Number.NaN : r)), mask })).toThrow((error as Error).constructor as new () => Error);
      return;
    }
    const masked = run({ ...batch, rewards: batch.rewards.map((r, j) => (j === i ? Number.NaN : r)), mask });
    expect(masked.advantages[i]).toBe(0);
    expect(Array.from(without(Array.from(masked.advantages)))).toEqual(Array.from(expected.advantages));
    expect(masked.diagnostics.masked).toBe(1);
  });
});

describe('prompt_value', () => {
  const steps = fc.array(fc.array(fc.record({ prompt: fc.constantFrom(...PROMPTS), reward: fc.constantFrom(0, 1, 0.25) }), { minLength: 1, maxLength: 8 }), { minLength: 2, maxLength: 6 });
  const toBatch = (rows: { prompt: string; reward: number }[]): Batch => ({ rewards: rows.map((r) => r.reward), prompts: rows.map((r) => r.prompt) });

  for (const [name, context] of [
    ['prompt_value', {}],
    ['prompt_value', { promptValue: { kind: 'beta', decay: 0.8 } }],
    ['prompt_value_tfidf_kernel_loo_T0.1', { vectorizer, promptValue: { kind: 'beta' } }],
  ] as [string, EstimatorContext][]) {
    test.prop([steps, fc.nat()])(`${name} ${JSON.stringify(context.promptValue ?? {})}: resuming from toJSON equals an uninterrupted run, bit for bit`, (all, cut) => {
      const at = 1 + (cut % (all.length - 1));
      const straight = createStatefulEstimator(name, context);
      const first = createStatefulEstimator(name, context);
      const outputs: number[][] = [];
      all.forEach((rows) => {
        outputs.push(Array.from(straight.compute(toBatch(rows)).advantages));
        straight.update(toBatch(rows));
      });
      all.slice(0, at).forEach((rows) => {
        first.compute(toBatch(rows));
        first.update(toBatch(rows));
      });
      const saved = JSON.parse(JSON.stringify(first)) as PromptValueJSON;
      const resumed = PromptValueEstimator.fromJSON(saved, { vectorizer });
      all.slice(at).forEach((rows, k) => {
        expect(Array.from(resumed.compute(toBatch(rows)).advantages)).toEqual(outputs[at + k]);
        resumed.update(toBatch(rows));
      });
      expect(resumed.toJSON()).toEqual(straight.toJSON());
    });

    test.prop([steps, fc.nat(), fc.constantFrom(0, 1)])(`${name}: b_i never uses this step's rewards`, (all, pick, value) => {
      const estimator = createStatefulEstimator(name, context);
      for (const rows of all.slice(0, -1)) estimator.update(toBatch(rows));
      const last = all[all.length - 1] as { prompt: string; reward: number }[];
      const i = pick % last.length;
      const changed = last.map((r, j) => (j === i ? { ...r, reward: value } : r));
      expect(estimator.compute(toBatch(changed)).baselines[i]).toBe(estimator.compute(toBatch(last)).baselines[i]);
    });
  }
});
