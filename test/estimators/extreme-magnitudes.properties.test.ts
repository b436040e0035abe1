// Issue "Numbers that break": every estimator gives finite advantages and baselines for every reward within the
// documented bound |r| <= 1e100 (docs/method.md section 2.1), and refuses a reward beyond it with `out_of_range`
// naming the field and index; never an infinity or NaN, never a silent 0 from an overflowed std.
import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { createEstimator, createStatefulEstimator, ESTIMATOR_BASE_NAMES, gdpo, isStatefulEstimator, loadKernel, maxrl, NORMALIZATION_PRESET_NAMES, normalizationPreset, normalizeStep, RlAdvantagesError, TfidfVectorizer, type Batch, type EstimatorResult } from '../../src/index.js';

const vectorizer = TfidfVectorizer.fit(['how many apples', 'how many pears', 'cost of three boats', 'a train leaves at noon']);
const kernel = loadKernel({ format: 'rl-advantages/kernel', version: 1, family: 'tfidf', params: { temperature: 0.1, sublinear_tf: false }, fitted: { vectorizer: vectorizer.toJSON() } });
const PROMPTS = ['how many apples', 'how many pears', 'cost of three boats', 'a train leaves'];

/** A reward anywhere from 1e-300 to the bound 1e100 in magnitude, either sign, or 0, or exactly +-1e100. */
const extreme = fc.oneof(
  fc.tuple(fc.constantFrom(-1, 1), fc.integer({ min: -300, max: 99 }), fc.double({ min: 1, max: 9.99, noNaN: true })).map(([s, e, m]) => s * m * 10 ** e),
  fc.constantFrom(0, 1e100, -1e100, 1, 0.1),
);

interface Rows { rewards: number[]; groupIds: number[]; prompts: string[]; lengths: number[]; greedyRewards: number[]; rewardComponents: number[][] }
const batches = fc
  .array(fc.record({ size: fc.integer({ min: 2, max: 4 }), prompt: fc.nat(PROMPTS.length - 1), rewards: fc.array(extreme, { minLength: 4, maxLength: 4 }), greedy: extreme, length: fc.integer({ min: 1, max: 4096 }) }), { minLength: 2, maxLength: 5 })
  .map((groups) => {
    const rows: Rows = { rewards: [], groupIds: [], prompts: [], lengths: [], greedyRewards: [], rewardComponents: [] };
    groups.forEach((g, id) => {
      for (let k = 0; k < g.size; k++) {
        const r = g.rewards[k] as number;
        rows.rewards.push(r);
        rows.groupIds.push(id);
        rows.prompts.push(PROMPTS[g.prompt] as string);
        rows.lengths.push(g.length + k);
        rows.greedyRewards.push(g.greedy);
        rows.rewardComponents.push([r, g.greedy]);
      }
    });
    return rows;
  });

/** Every named estimator, each as it is created by name (passk needs binary rewards, so it is run on their sign). */
const NAMES = ESTIMATOR_BASE_NAMES.filter((n) => !isStatefulEstimator(n)).map((n) => (n === 'tfidf_kernel_loo' ? 'tfidf_kernel_loo_T0.1' : n === 'kernel_loo' ? 'kernel_loo_T0.1' : n === 'passk' ? 'passk_k2' : n));

function finite(result: EstimatorResult): boolean {
  return result.advantages.every(Number.isFinite) && result.baselines.every(Number.isFinite) && result.looMean.every(Number.isFinite);
}

function runAll(batch: Rows): Record<string, EstimatorResult> {
  const features = batch.prompts.map((p) => [p.length, p.charCodeAt(0), 1]);
  const out: Record<string, EstimatorResult> = {};
  for (const name of NAMES) {
    const binary = name.startsWith('passk') ? { rewards: batch.rewards.map((r) => (r > 0 ? 1 : 0)) } : {};
    out[name] = createEstimator(name, { vectorizer, kernel }).compute({ ...batch, features, ...binary } as Batch);
  }
  const stateful = createStatefulEstimator('prompt_value');
  out.prompt_value = stateful.compute(batch);
  stateful.update(batch);
  out.prompt_value_after_update = stateful.compute(batch);
  const running = createStatefulEstimator('roll_running');
  running.update(batch);
  out.roll_running = running.compute(batch);
  out.maxrl = maxrl(batch);
  for (const flavour of ['verl', 'trl', 'nemo'] as const) out[`gdpo_${flavour}`] = gdpo(batch, { flavour });
  return out;
}

describe('extreme rewards within the bound', () => {
  test.prop([batches], { numRuns: 60 })('every estimator and every normalisation preset gives finite output, and does not throw', (batch) => {
    for (const [name, result] of Object.entries(runAll(batch))) expect(finite(result), name).toBe(true);
    for (const preset of NORMALIZATION_PRESET_NAMES) {
      const result = normalizeStep({ values: batch.rewards, groupIds: batch.groupIds, lengths: batch.lengths }, { ...normalizationPreset(preset).spec, singleton: 'zero' });
      expect(result.advantages.every(Number.isFinite), preset).toBe(true);
    }
  });

  test.prop([batches])('a group of two rewards 1e100 and -1e100 (the case that broke) is finite and correct', (batch) => {
    const rewards = batch.rewards.slice();
    rewards[0] = 1e100;
    rewards[1] = -1e100;
    const shaped = { ...batch, rewards, groupIds: [-1, -1, ...batch.groupIds.slice(2)] };
    const std = createEstimator('group_mean_std').compute(shaped).advantages;
    expect(std[0]).toBeCloseTo(Math.SQRT1_2, 12);
    expect(std[1]).toBeCloseTo(-Math.SQRT1_2, 12);
    expect(createEstimator('loo_batch_mean').compute(shaped).advantages.every(Number.isFinite)).toBe(true);
  });
});

describe('rewards beyond the bound are refused, naming the field and index', () => {
  test.prop([batches, fc.nat(), fc.double({ min: 1.0000001e100, max: Number.MAX_VALUE, noNaN: true }), fc.constantFrom(1, -1)])('out_of_range for every estimator', (batch, pick, big, sign) => {
    const i = pick % batch.rewards.length;
    const rewards = batch.rewards.slice();
    rewards[i] = sign * big;
    for (const name of NAMES) {
      let error: unknown;
      try {
        createEstimator(name, { vectorizer, kernel }).compute({ ...batch, rewards, features: batch.prompts.map(() => [1, 2]) } as Batch);
      } catch (e) {
        error = e;
      }
      expect(error, name).toBeInstanceOf(RlAdvantagesError);
      expect([(error as RlAdvantagesError).code, (error as RlAdvantagesError).field, (error as RlAdvantagesError).index], name).toEqual(['out_of_range', 'rewards', i]);
    }
    expect(() => maxrl({ ...batch, rewards })).toThrow(/rewards\[\d+\] is .*\[-1e100, 1e100\]/);
  });
});
