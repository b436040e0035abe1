// decideAcrossSeeds and seedInterval (docs/method.md section 5.8): hand-worked figures, the rule's seed_method, bad input.
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/index.js';
import {
  decide,
  decideAcrossSeeds,
  parseDecisionRule,
  seedDecisionJson,
  seedInterval,
  StudySpecError,
  type SeedReplicate,
} from '../../src/stats/index.js';

const criterion = { id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } };
function rule(extra: Record<string, unknown> = {}) {
  return parseDecisionRule({ method: 'paired_hoeffding', alpha: 0.05, criteria: [criterion], ...extra });
}
const arm = (n: number, right: (i: number) => boolean) => Array.from({ length: n }, (_, i) => ({ item_id: `q${i}`, correct: right(i) }));

// t quantiles from closed forms (independent of the code): df = 1 tan(pi (1/2 - p)), df = 2 (1 - 2p) / sqrt(2p(1 - p)).
const T1 = Math.tan(Math.PI * (0.5 - 0.025));
const T2 = 0.95 / Math.sqrt(2 * 0.025 * 0.975);

describe('seedInterval, worked by hand', () => {
  // Rows [1, 0, 1] and [0, 0, 1]: row means 2/3, 1/3, grand 1/2, column means 1/2, 0, 1.
  // MS_seed = 3 (2 (1/6)^2) / 1 = 1/6, MS_item = 2 (0 + 1/4 + 1/4) / 2 = 1/2, MS_error = (2 (1/9 + 1/36 + 1/36)) / 2 = 1/6.
  const differences = [Float64Array.of(1, 0, 1), Float64Array.of(0, 0, 1)];
  it('seed_t: se = sqrt(MS_seed / (S n)) = 1/6, df = 1', () => {
    const iv = seedInterval({ differences, alpha: 0.05, method: 'seed_t' });
    expect(iv.estimate).toBeCloseTo(0.5, 15);
    expect(iv.standardError).toBeCloseTo(1 / 6, 15);
    expect(iv.df).toBe(1);
    expect(iv.halfWidth).toBeCloseTo(T1 / 6, 8);
    expect(iv.perSeed[0]).toBeCloseTo(2 / 3, 15);
    expect(iv.betweenSeedSd).toBeCloseTo(Math.sqrt(1 / 18), 15);
    expect(iv.seedComponentSd).toBe(0); // MS_seed = MS_error
    expect(iv.itemComponentSd).toBeCloseTo(Math.sqrt(1 / 6), 15); // (1/2 - 1/6) / 2
  });
  it("seed_item_t: se^2 = (MS_seed + max(0, MS_item - MS_error)) / (S n) = (1/6 + 1/3) / 6, df = S - 1 = 1", () => {
    const iv = seedInterval({ differences, alpha: 0.05, method: 'seed_item_t' });
    expect(iv.standardError).toBeCloseTo(Math.sqrt(1 / 12), 15);
    expect(iv.df).toBe(1);
    expect(iv.halfWidth).toBeCloseTo(T1 * Math.sqrt(1 / 12), 8);
  });
  it('seed_item_t equals seed_t when MS_item <= MS_error (no item term to add)', () => {
    // Column means all equal: MS_item = 0.
    const rows = [Float64Array.of(1, 0), Float64Array.of(0, 1), Float64Array.of(1, 1)];
    const a = seedInterval({ differences: rows, alpha: 0.05, method: 'seed_item_t' });
    const b = seedInterval({ differences: rows, alpha: 0.05, method: 'seed_t' });
    expect([a.lower, a.upper]).toEqual([b.lower, b.upper]);
  });
  it('clips to the extremes, and gives no interval (never a zero-width one, never NaN) when every difference is equal', () => {
    const wide = seedInterval({ differences, alpha: 0.05, method: 'seed_t', extremes: [-1, 1] }); // half-width 12.7 / 6
    expect([wide.lower, wide.upper]).toEqual([-1, 1]);
    const flat = seedInterval({ differences: [Float64Array.of(0, 0), Float64Array.of(0, 0)], alpha: 0.05, method: 'seed_item_t', extremes: [-1, 1] });
    expect([flat.lower, flat.upper, flat.df, flat.degenerate]).toEqual([-1, 1, 1, 'no_variation']);
    const bare = seedInterval({ differences: [Float64Array.of(0, 0), Float64Array.of(0, 0)], alpha: 0.05, method: 'seed_t' });
    expect([bare.lower, bare.upper]).toEqual([-Number.MAX_VALUE, Number.MAX_VALUE]);
  });
  it('seed_t at S = 3 uses t with 2 df and Bonferroni alpha / k', () => {
    const rows = [Float64Array.of(0.1, 0.3), Float64Array.of(0, 0), Float64Array.of(0.2, 0.2)];
    // per-seed means 0.2, 0, 0.2: mean 2/15, sd sqrt(((1/15)^2 * 2 + (2/15)^2) / 2) = sqrt(3) / 15.
    const iv = seedInterval({ differences: rows, alpha: 0.05, method: 'seed_t' });
    expect(iv.halfWidth).toBeCloseTo((T2 * Math.sqrt(3)) / 15 / Math.sqrt(3), 9);
    const k2 = seedInterval({ differences: rows, alpha: 0.1, comparisons: 2, method: 'seed_t' });
    expect(k2.halfWidth).toBeCloseTo(iv.halfWidth, 12);
  });
  it('refuses fewer than 2 seeds, ragged rows, non-finite values and unknown methods', () => {
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (e) {
        return (e as RlAdvantagesError).code;
      }
      return 'none';
    };
    expect(code(() => seedInterval({ differences: [Float64Array.of(1)], alpha: 0.05, method: 'seed_t' }))).toBe('too_few_seeds');
    expect(code(() => seedInterval({ differences: [Float64Array.of(1), Float64Array.of(1, 2)], alpha: 0.05, method: 'seed_t' }))).toBe('length_mismatch');
    expect(code(() => seedInterval({ differences: [Float64Array.of(1), Float64Array.of(NaN)], alpha: 0.05, method: 'seed_t' }))).toBe('non_finite');
    expect(code(() => seedInterval({ differences: [Float64Array.of(1), Float64Array.of(0)], alpha: 0.05, method: 'pooled' as 'seed_t' }))).toBe('unknown_method');
  });
});

// Three seeds on 4 items: the per-seed differences 1/4, 0, 1/4.
const replicates: SeedReplicate[] = [
  { seed: 0, treatment: arm(4, (i) => i < 3), baseline: arm(4, (i) => i < 2) },
  { seed: 1, treatment: arm(4, (i) => i < 2), baseline: arm(4, (i) => i < 2) },
  { seed: 2, treatment: arm(4, (i) => i === 0 || i === 2), baseline: arm(4, (i) => i === 0) },
];

describe('decideAcrossSeeds', () => {
  it('seed_t: the t interval on the per-seed differences, each seed with its own paired decision', () => {
    const d = decideAcrossSeeds({ replicates, rule: rule({ seed_method: 'seed_t' }) });
    const sd = Math.sqrt(((1 / 12) ** 2 * 2 + (1 / 6) ** 2) / 2);
    expect(d.method).toBe('seed_t');
    expect(d.estimate).toBeCloseTo(1 / 6, 15);
    expect(d.interval[0]).toBeCloseTo(1 / 6 - (T2 * sd) / Math.sqrt(3), 9);
    expect(d.interval[1]).toBeCloseTo(1 / 6 + (T2 * sd) / Math.sqrt(3), 9);
    expect(d.betweenSeedSd).toBeCloseTo(sd, 15);
    expect([d.seeds, d.n, d.alpha, d.margin, d.pairedMethod]).toEqual([3, 4, 0.05, -0.05, 'paired_hoeffding']);
    expect(d.perSeed.map((p) => [p.seed, p.estimate, p.treatmentAccuracy, p.baselineAccuracy])).toEqual([
      [0, 0.25, 0.75, 0.5],
      [1, 0, 0.5, 0.5],
      [2, 0.25, 0.5, 0.25],
    ]);
    expect(d.perSeed[2]?.decision).toEqual(decide(rule(), replicates[2]?.treatment ?? [], replicates[2]?.baseline ?? []));
    expect(d.verdict).toBe(d.interval[0] > -0.05 ? 'validated' : 'inconclusive');
  });

  it('defaults to seed_item_t; an explicit method is kept apart from the rule one in the JSON', () => {
    const d = decideAcrossSeeds({ replicates, rule: rule() });
    expect([d.method, d.specMethod]).toEqual(['seed_item_t', 'seed_item_t']);
    const o = decideAcrossSeeds({ replicates, rule: rule(), method: 'seed_t' });
    const json = seedDecisionJson(o);
    expect([json.method, json.spec_method]).toEqual(['seed_t', 'seed_item_t']);
    expect(json.interval).toEqual([o.interval[0], o.interval[1]]);
    expect(json.per_seed.map((p) => p.seed)).toEqual([0, 1, 2]);
    expect(Object.keys(seedDecisionJson(d))).not.toContain('spec_method');
    expect(JSON.stringify(json)).not.toMatch(/NaN|Infinity/);
    expect(JSON.stringify({ ...json, fallback: 0, criteria: json.criteria.map((c) => ({ ...c, fallback: 0 })) })).not.toMatch(/null/);
  });

  it('pairs items by id whatever their order in each file, and splits alpha over criteria', () => {
    const shuffled = replicates.map((r) => ({ ...r, baseline: [...r.baseline].reverse() }));
    expect(decideAcrossSeeds({ replicates: shuffled, rule: rule() }).interval).toEqual(decideAcrossSeeds({ replicates, rule: rule() }).interval);
    const two = parseDecisionRule({ method: 'paired_hoeffding', alpha: 0.1, criteria: [criterion, { ...criterion, id: 'second', margin: 0 }] });
    const d2 = decideAcrossSeeds({ replicates, rule: two, method: 'seed_t' });
    expect(d2.comparisons).toBe(2);
    expect(d2.criteria[0]?.halfWidth).toBeCloseTo(decideAcrossSeeds({ replicates, rule: rule(), method: 'seed_t' }).criteria[0]?.halfWidth ?? NaN, 12);
    expect(d2.criteria[1]?.verdict).toBe('inconclusive');
  });

  const problem = (reps: unknown, method?: string): RlAdvantagesError => {
    try {
      decideAcrossSeeds({ replicates: reps as SeedReplicate[], rule: rule(), ...(method === undefined ? {} : { method: method as 'seed_t' }) });
    } catch (e) {
      if (e instanceof RlAdvantagesError) return e;
      throw e;
    }
    throw new Error('no error');
  };

  it('refuses fewer than 2 seeds, naming the seed', () => {
    const e = problem(replicates.slice(0, 1));
    expect([e.code, e.field]).toEqual(['too_few_seeds', 'replicates']);
    expect(e.message).toContain('seed 0');
    expect(problem([]).code).toBe('too_few_seeds');
  });
  it('refuses a repeated seed, naming both replicates', () => {
    const e = problem([replicates[0], replicates[1], { ...replicates[2], seed: 1 }]);
    expect([e.code, e.field]).toEqual(['duplicate_seed', 'replicates[2].seed']);
    expect(e.message).toContain('replicates[2] (seed 1) repeats the seed of replicates[1]');
  });
  it('refuses a seed evaluated on other items, naming the seed and the items', () => {
    const e = problem([replicates[0], { seed: 7, treatment: arm(5, () => true), baseline: arm(5, () => false) }]);
    expect([e.code, e.field]).toEqual(['item_set_mismatch', 'replicates[1].treatment']);
    expect(e.message).toContain('replicates[1] (seed 7) has 1 item(s) replicates[0] lacks: "q4"');
    const fewer = problem([replicates[0], { seed: 7, treatment: arm(3, () => true), baseline: arm(3, () => false) }]);
    expect(fewer.message).toContain('lacks 1 item(s) of replicates[0] (seed 0): "q3"');
  });
  it('refuses mismatched arms within a seed, naming the replicate, seed and side', () => {
    const e = problem([replicates[0], { seed: 3, treatment: arm(4, () => true), baseline: arm(3, () => false) }]);
    expect([e.code, e.field]).toEqual(['missing_pair', 'replicates[1].treatment']);
    expect(e.message).toMatch(/^replicates\[1\] \(seed 3\): items must pair/);
    const dup = problem([replicates[0], { seed: 3, treatment: [...arm(4, () => true), { item_id: 'q0', correct: true }], baseline: arm(4, () => false) }]);
    expect([dup.code, dup.field, dup.index]).toEqual(['duplicate_item', 'replicates[1].treatment', 4]);
    const bad = problem([replicates[0], { seed: 3, treatment: arm(4, () => true), baseline: arm(4, () => false).map((x) => ({ item_id: x.item_id, score: 2 })) }]);
    expect([bad.code, bad.field]).toEqual(['out_of_bounds', 'replicates[1].baseline']);
    expect(problem([replicates[0], { seed: 3, baseline: arm(4, () => false) }]).field).toBe('replicates[1].treatment');
  });
  it('refuses a non-integer seed, an unknown field, a non-array and an unknown method', () => {
    expect(problem([replicates[0], { ...replicates[1], seed: 1.5 }]).field).toBe('replicates[1].seed');
    expect(problem([replicates[0], { ...replicates[1], seed: '1' }]).code).toBe('bad_seed');
    expect(problem([replicates[0], { ...replicates[1], weight: 2 }]).field).toBe('replicates[1].weight');
    expect(problem('x').code).toBe('bad_type');
    expect(problem(replicates, 'pooled').code).toBe('unknown_method');
  });
});

describe('decision_rule.seed_method and seeds', () => {
  it('accepts the seed methods and distinct integer seeds', () => {
    expect(rule({ seed_method: 'seed_t', seeds: [0, 1, 2] }).seed_method).toBe('seed_t');
  });
  it('refuses an unknown seed_method and repeated or non-integer seeds, with their paths', () => {
    try {
      rule({ seed_method: 'pooled', seeds: [0, 1, 1, 2.5] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(StudySpecError);
      expect((e as StudySpecError).problems.map((p) => p.path)).toEqual(['decision_rule.seed_method', 'decision_rule.seeds[2]', 'decision_rule.seeds[3]']);
    }
    expect(() => rule({ seeds: [] })).toThrow(/decision_rule.seeds must be a non-empty array/);
  });
});
