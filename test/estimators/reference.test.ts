// Agreement with verl's, TRL's and Passk_Training's formulas as their code computes them
// (test/fixtures/generate_advantage_fixtures.py, numpy; files and commits cited there).
// Within 1e-12, except where a case states why we differ (docs/estimators.md).
import { describe, expect, it } from 'vitest';
import { gpg, groupMean, groupMeanStd, grpoPassk, opo, passk, reinforcePlusPlusBaseline, remax, rloo, type Normalize } from '../../src/index.js';
import { readFixture } from '../helpers/paths.js';

interface VerlCase {
  name: string;
  rewards: number[];
  groups: number[];
  lengths: number[];
  greedy: number[];
  grpo: number[];
  grpo_no_std: number[];
  grpo_passk: number[] | null;
  reinforce_plus_plus_baseline: number[];
  rloo: number[];
  opo: number[];
  remax: number[];
  gpg: number[];
}
interface TrlCase {
  name: string;
  rewards: (number | null)[];
  groups: number[];
  group: number[];
  batch: number[];
  none: number[];
}
interface PasskCase {
  name: string;
  rewards: number[];
  groups: number[];
  by_k: Record<string, number[]>;
}
const fixture = readFixture<{ verl: VerlCase[]; trl: TrlCase[]; passk: PasskCase[] }>('advantages-reference.json');

/** Rows in a group of one, and rows in a group of equal rewards. */
function rowKinds(c: { rewards: (number | null)[]; groups: number[] }): { single: Set<number>; constant: Set<number> } {
  const members = new Map<number, number[]>();
  c.groups.forEach((g, i) => members.set(g, [...(members.get(g) ?? []), i]));
  const single = new Set<number>();
  const constant = new Set<number>();
  for (const list of members.values()) {
    if (list.length === 1) single.add(list[0] as number);
    else if (list.every((i) => c.rewards[i] === c.rewards[list[0] as number])) list.forEach((i) => constant.add(i));
  }
  return { single, constant };
}

const figures: string[] = [];
function agree(label: string, ours: ArrayLike<number>, theirs: number[], skip: Set<number> = new Set(), tolerance = 1e-12): void {
  let max = 0;
  theirs.forEach((t, i) => {
    if (!skip.has(i)) max = Math.max(max, Math.abs((ours[i] as number) - t));
  });
  figures.push(`${label}: max |diff| ${max.toExponential(2)}`);
  expect(max, label).toBeLessThanOrEqual(tolerance);
}

describe('verl core_algos.py (volcengine/verl@b178a3cd)', () => {
  for (const c of fixture.verl) {
    const batch = { rewards: c.rewards, groupIds: c.groups, lengths: c.lengths, greedyRewards: c.greedy };
    const { single, constant } = rowKinds(c);
    it(`${c.name}: grpo, grpo without std, rloo, opo, gpg, remax, grpo_passk`, () => {
      const std = groupMeanStd(batch).advantages;
      agree(`${c.name} grpo`, std, c.grpo, new Set([...single, ...constant]));
      // Stated differences: verl gives a group of one (r - 0) / (1 + eps); a constant group
      // (r - mean) / (0 + eps) with mean an ulp off r, so up to ~1e-11. We give both exactly 0.
      for (const i of single) expect([std[i], c.grpo[i]]).toEqual([0, (c.rewards[i] as number) / (1 + 1e-6)]);
      for (const i of constant) expect([std[i], Math.abs(c.grpo[i] as number) < 1e-10]).toEqual([0, true]);
      // verl sets a group of one's baseline to 0, so its A is r (alpha r for gpg); ours is 0.
      agree(`${c.name} grpo_no_std`, groupMean(batch).advantages, c.grpo_no_std, single);
      agree(`${c.name} rloo`, rloo(batch, { singleton: 'zero' }).advantages, c.rloo, single);
      agree(`${c.name} opo`, opo(batch).advantages, c.opo, single);
      agree(`${c.name} gpg`, gpg(batch).advantages, c.gpg, single);
      agree(`${c.name} remax`, remax(batch).advantages, c.remax);
      for (const i of single) {
        expect([c.grpo_no_std[i], c.rloo[i], c.opo[i]]).toEqual([c.rewards[i], c.rewards[i], c.rewards[i]]);
        expect(groupMean(batch).advantages[i]).toBe(0);
      }
      if (c.grpo_passk !== null) agree(`${c.name} grpo_passk`, grpoPassk(batch).advantages, c.grpo_passk);
    });
    if (single.size === 0) {
      it(`${c.name}: reinforce_plus_plus_baseline, token-weighted by lengths`, () => {
        // verl's masked_mean divides by (number of tokens + 1e-8): a relative 1e-8 / N that we do not
        // add, so agreement is within 1e-9 here rather than 1e-12 (measured in docs/estimators.md).
        agree(`${c.name} reinforce_plus_plus_baseline`, reinforcePlusPlusBaseline(batch).advantages, c.reinforce_plus_plus_baseline, new Set(), 1e-9);
      });
    }
  }
});

describe('TRL grpo_trainer.py scale_rewards (huggingface/trl@f2cd5771)', () => {
  for (const c of fixture.trl) {
    it(`${c.name}: group, batch and none, unscorable rows masked`, () => {
      const mask = c.rewards.map((r) => r === null);
      const batch = { rewards: c.rewards.map((r) => (r === null ? Number.NaN : r)), groupIds: c.groups, mask };
      for (const scale of ['group', 'batch', 'none'] as Normalize[]) {
        agree(`${c.name} trl ${scale}`, groupMean(batch, { normalize: scale, epsilon: 1e-4 }).advantages, c[scale as 'group']);
      }
    });
  }
});

describe('Passk_Training passk_adv.py (RUCAIBox/Passk_Training@00474d78)', () => {
  for (const c of fixture.passk) {
    it(`${c.name}: the unbiased pass@k advantage for every k given`, () => {
      for (const [k, theirs] of Object.entries(c.by_k)) {
        agree(`${c.name} passk k=${k}`, passk({ rewards: c.rewards, groupIds: c.groups }, { k: Number(k) }).advantages, theirs);
      }
    });
  }
  it('prints the agreement figures when asked (PRINT_AGREEMENT=1)', () => {
    if (process.env.PRINT_AGREEMENT === '1') console.log(figures.join('\n'));
    expect(figures.length).toBeGreaterThan(40);
  });
});
