// Agreement of the normalisation presets, gdpo and maxrl with each framework's formula as its code computes it
// (test/fixtures/generate_advantage_fixtures.py, numpy float64; files and commits cited there). Within 1e-12,
// except the rows each case names, with the reason (docs/estimators.md, "Differences from the framework code").
import { describe, expect, it } from 'vitest';
import { gdpo, gpg, groupMean, groupMeanStd, maxrl, normalizationPreset, normalizeStep, Normalizer, opo, reinforcePlusPlusBaseline, rloo } from '../../../src/index.js';
import { readFixture } from '../../helpers/paths.js';

interface PresetCase {
  name: string;
  rewards: number[];
  groups: number[];
  lengths: number[];
  by_preset: Record<string, number[]>;
}
interface GdpoCase {
  name: string;
  components: number[][];
  groups: number[];
  lengths: number[];
  weights: number[];
  verl: number[];
  trl: number[];
  nemo: number[];
}
interface Fixture {
  presets: PresetCase[];
  trl_masked: { name: string; rewards: (number | null)[]; groups: number[]; trl_rloo: number[] }[];
  gdpo: GdpoCase[];
  roll_running: { rewards: number[]; advantages: number[]; state: { mean: number; variance: number; count: number } }[];
}
const fixture = readFixture<Fixture>('advantages-reference.json');

function groupsOf(groups: number[]): number[][] {
  const map = new Map<number, number[]>();
  groups.forEach((g, i) => map.set(g, [...(map.get(g) ?? []), i]));
  return [...map.values()];
}

/** Rows in groups of equal rewards, and rows in groups of one. */
function kinds(rewards: number[], groups: number[]): { constant: Set<number>; single: Set<number> } {
  const constant = new Set<number>();
  const single = new Set<number>();
  for (const list of groupsOf(groups)) {
    if (list.length === 1) single.add(list[0] as number);
    if (list.length > 1 && list.every((i) => rewards[i] === rewards[list[0] as number])) list.forEach((i) => constant.add(i));
  }
  return { constant, single };
}

export const figures: string[] = [];
function agree(label: string, ours: ArrayLike<number>, theirs: number[], skip: Set<number> = new Set(), tolerance = 1e-12): void {
  let max = 0;
  theirs.forEach((t, i) => {
    if (!skip.has(i)) max = Math.max(max, Math.abs((ours[i] as number) - t));
  });
  figures.push(`${label}: max |diff| ${max.toExponential(2)} over ${theirs.length - skip.size} rows`);
  expect(max, label).toBeLessThanOrEqual(tolerance);
}

describe('normalisation presets against the frameworks', () => {
  for (const c of fixture.presets) {
    it(`${c.name}: every preset the case's groups allow`, () => {
      const batch = { values: c.rewards, groupIds: c.groups, lengths: c.lengths };
      const { constant } = kinds(c.rewards, c.groups);
      for (const [name, theirs] of Object.entries(c.by_preset)) {
        if (name.startsWith('maxrl')) continue;
        const spec = normalizationPreset(name).spec;
        const input = name === 'areal_leave1out' ? { ...batch, lengths: c.rewards.map(() => 1) } : batch;
        const ours = normalizeStep(input, spec).advantages;
        let skip = new Set<number>();
        if (['verl_grpo', 'trl_grpo', 'openrlhf_group_norm', 'roll_grpo', 'areal_grpo', 'areal_leave1out'].includes(name)) {
          // A constant group: (r - mean) / (0 + eps) with their mean an ulp off r: up to 1.4e-8 (OpenRLHF's eps 1e-9); ours is exactly 0.
          for (const i of constant) expect(Math.abs(theirs[i] as number), `${name} ${c.name} constant row ${i}`).toBeLessThan(1e-7);
          for (const i of constant) expect(ours[i]).toBe(0);
          skip = constant;
        }
        agree(`${c.name} ${name}`, ours, theirs, skip);
      }
    });
  }
});

describe('TRL RLOO normalize_advantages with unscorable rows (huggingface/trl@f2cd5771)', () => {
  for (const c of fixture.trl_masked) {
    it(`${c.name}: masked rows and a group left with one scorable row are 0 and out of the whitening`, () => {
      const mask = c.rewards.map((r) => r === null);
      const values = c.rewards.map((r) => (r === null ? Number.NaN : r));
      const ours = normalizeStep({ values, groupIds: c.groups, mask }, normalizationPreset('trl_rloo').spec);
      agree(`${c.name} trl_rloo`, ours.advantages, c.trl_rloo);
      mask.forEach((m, i) => m && expect(ours.dropped[i]).toBe(1));
    });
  }
});

describe('gdpo against verl, TRL normalize_then_sum and NeMo-RL', () => {
  for (const c of fixture.gdpo) {
    it(`${c.name}: each flavour`, () => {
      const batch = { rewards: c.components.map((row) => row[0] as number), rewardComponents: c.components, groupIds: c.groups, lengths: c.lengths };
      agree(`${c.name} gdpo verl`, gdpo(batch, { componentWeights: c.weights }).advantages, c.verl);
      agree(`${c.name} gdpo trl`, gdpo(batch, { componentWeights: c.weights, flavour: 'trl' }).advantages, c.trl);
      agree(`${c.name} gdpo nemo`, gdpo(batch, { componentWeights: c.weights, flavour: 'nemo' }).advantages, c.nemo);
    });
  }
});

describe('ROLL running moments (alibaba/ROLL@8eb27cc2)', () => {
  it('three batches in a row: the advantages and the state after each, and a resume from the saved state', () => {
    const step = new Normalizer(normalizationPreset('roll_running').spec);
    fixture.roll_running.forEach((b, k) => {
      const result = step.apply({ values: b.rewards });
      agree(`roll_running step ${k}`, result.advantages, b.advantages);
      const state = step.stateDict();
      expect(Math.abs(state.mean - b.state.mean)).toBeLessThanOrEqual(1e-15);
      expect(Math.abs(state.variance - b.state.variance) / b.state.variance).toBeLessThanOrEqual(1e-14);
      expect(state.count).toBe(b.state.count);
    });
    const resumed = new Normalizer(normalizationPreset('roll_running').spec);
    const first = new Normalizer(normalizationPreset('roll_running').spec);
    first.apply({ values: fixture.roll_running[0]?.rewards as number[] });
    resumed.loadStateDict(JSON.parse(JSON.stringify(first.stateDict())));
    const [a, b] = [first.apply({ values: fixture.roll_running[1]?.rewards as number[] }), resumed.apply({ values: fixture.roll_running[1]?.rewards as number[] })];
    expect(Array.from(b.advantages)).toEqual(Array.from(a.advantages));
    expect(resumed.stateDict()).toEqual(first.stateDict());
  });
});

describe('maxrl against SkyRL and prime-rl', () => {
  for (const c of fixture.presets) {
    it(`${c.name}: SkyRL (epsilon 1e-6, a group of one keeps r) and prime-rl (epsilon 0)`, () => {
      const batch = { rewards: c.rewards, groupIds: c.groups };
      const means = new Map<number, number>();
      for (const list of groupsOf(c.groups)) for (const i of list) means.set(i, list.reduce((s, j) => s + (c.rewards[j] as number), 0) / list.length);
      // SkyRL divides by mean_g + 1e-6 even when mean_g <= 0 (a sign flip, or ~1e6 at mean 0 with unequal rewards);
      // ours gives those rows 0, as prime-rl.
      const nonPositive = new Set([...means].filter(([i, m]) => m <= 0 && groupsOf(c.groups).some((l) => l.length > 1 && l.includes(i))).map(([i]) => i));
      const skyrl = maxrl(batch, { singleton: 'raw' }).advantages;
      agree(`${c.name} maxrl skyrl`, skyrl, c.by_preset.maxrl_skyrl as number[], nonPositive);
      for (const i of nonPositive) expect(skyrl[i]).toBe(0);
      agree(`${c.name} maxrl prime-rl`, maxrl(batch, { epsilon: 0 }).advantages, c.by_preset.maxrl_prime as number[]);
    });
  }
});

describe("verl's lone rollout: singleton 'raw' on the existing estimators (volcengine/verl@b178a3cd)", () => {
  interface VerlCase {
    name: string;
    rewards: number[];
    groups: number[];
    lengths: number[];
    rloo: number[];
    grpo: number[];
    grpo_no_std: number[];
    opo: number[];
    gpg: number[];
    reinforce_plus_plus_baseline: number[];
  }
  const verl = readFixture<{ verl: VerlCase[] }>('advantages-reference.json').verl;
  for (const c of verl) {
    it(`${c.name}: rloo, group_mean, group_mean_std, opo, gpg, reinforce_plus_plus_baseline with 'raw' equal verl on every row, groups of one included`, () => {
      const batch = { rewards: c.rewards, groupIds: c.groups, lengths: c.lengths };
      const raw = { singleton: 'raw' } as const;
      const constant = kinds(c.rewards, c.groups).constant;
      agree(`${c.name} rloo raw`, rloo(batch, raw).advantages, c.rloo);
      agree(`${c.name} group_mean raw`, groupMean(batch, raw).advantages, c.grpo_no_std);
      agree(`${c.name} group_mean_std raw`, groupMeanStd(batch, raw).advantages, c.grpo, constant); // constant groups: verl's ulp / 1e-6, ours 0
      agree(`${c.name} opo raw`, opo(batch, raw).advantages, c.opo);
      agree(`${c.name} gpg raw`, gpg(batch, raw).advantages, c.gpg);
      // verl's masked_mean divides by N + 1e-8 (the estimator does not; the preset does): 1e-9 here.
      agree(`${c.name} reinforce_plus_plus_baseline raw`, reinforcePlusPlusBaseline(batch, raw).advantages, c.reinforce_plus_plus_baseline, new Set(), 1e-9);
    });
  }
  it('prints the agreement figures when asked (PRINT_AGREEMENT=1)', () => {
    if (process.env.PRINT_AGREEMENT === '1') console.log(figures.join('\n'));
    expect(figures.length).toBeGreaterThan(100);
  });
});
