// The seed-level power (docs/method.md section 5.9): the sufficient-statistic simulation against whole simulated
// studies decided by seedInterval, the searches, and bad designs.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/index.js';
import { parseDecisionRule, seedDesignPower, seedInterval, seedNForPower, seedPowerBySimulation, type SeedDesign } from '../../src/stats/index.js';

const rule = parseDecisionRule({
  method: 'paired_hoeffding',
  alpha: 0.05,
  criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
});

/** P(validated) from whole S x n studies d_si = Delta + a_s + b_i + e_si (normal), each decided by seedInterval. */
function bruteForce(d: SeedDesign, R: number, seed: string): number {
  const rng = seedrandom(seed);
  const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  const e = Math.sqrt(d.discordance - d.effect ** 2 - d.seedSd ** 2 - d.itemSd ** 2);
  let validated = 0;
  for (let r = 0; r < R; r++) {
    const b = Array.from({ length: d.n }, () => d.itemSd * normal());
    const rows = Array.from({ length: d.seeds }, () => {
      const a = d.seedSd * normal();
      return Float64Array.from(b, (bi) => d.effect + a + bi + e * normal());
    });
    const iv = seedInterval({ differences: rows, alpha: d.alpha, method: d.method });
    if (iv.lower > d.margin) validated++;
  }
  return validated / R;
}

describe('seedPowerBySimulation', () => {
  const base: SeedDesign = { method: 'seed_item_t', seeds: 4, n: 150, effect: 0, margin: -0.05, alpha: 0.05, comparisons: 1, seedSd: 0.03, itemSd: 0.05, discordance: 0.2 };
  it.each(['seed_item_t', 'seed_t'] as const)('%s: agrees with whole simulated studies within 4 Monte-Carlo errors', (method) => {
    const d = { ...base, method };
    const fast = seedPowerBySimulation(d, { replicates: 20000 });
    const slow = bruteForce(d, 3000, `brute-${method}`);
    const err = Math.sqrt(fast.mcErrorValidated ** 2 + (slow * (1 - slow)) / 3000);
    expect(slow).toBeGreaterThan(0.15);
    expect(slow).toBeLessThan(0.9);
    expect(Math.abs(fast.pValidated - slow)).toBeLessThan(4 * err);
  });

  it('at the margin itself P(validated) is at most alpha/2 for seed_t, and about alpha/2 where the MS_error floor never binds', () => {
    // seed_t is exact under the model; the floor max(MS_seed, MS_error) only widens it (docs/method.md section 5.8).
    const floored = seedPowerBySimulation({ ...base, method: 'seed_t', itemSd: 0, effect: -0.05 }, { replicates: 40000 });
    expect(floored.pValidated).toBeLessThan(0.025 + 4 * Math.sqrt((0.025 * 0.975) / 40000));
    // n sigma_a^2 = 10 against sigma_e^2 = 0.18: MS_seed < MS_error has probability below 1e-6 at S = 4.
    const p = seedPowerBySimulation({ ...base, method: 'seed_t', itemSd: 0, seedSd: 0.1, n: 1000, effect: -0.05 }, { replicates: 40000 });
    expect(Math.abs(p.pValidated - 0.025)).toBeLessThan(4 * Math.sqrt((0.025 * 0.975) / 40000));
  });

  it('the n search returns an n with power >= 0.8 whose predecessor has less, and null when S seeds cannot reach it', () => {
    const { n: _n, ...d } = { ...base, effect: 0.02 };
    const n80 = seedNForPower(d, { replicates: 2000 });
    expect(n80).not.toBeNull();
    expect(seedPowerBySimulation({ ...d, n: n80 as number }, { replicates: 2000 }).pValidated).toBeGreaterThanOrEqual(0.8);
    expect(seedPowerBySimulation({ ...d, n: (n80 as number) - 1 }, { replicates: 2000 }).pValidated).toBeLessThan(0.8);
    expect(seedNForPower({ ...d, seeds: 2, seedSd: 0.05 }, { replicates: 1000 })).toBeNull();
  });
});

describe('seedDesignPower', () => {
  const design = { rule, seeds: 5, n: 1319, effect: 0.02, seedSd: 0.02, discordance: { value: 0.2, source: 'assumed' as const } };
  it('is reproducible, reports its error, and its searches agree with its own figures', () => {
    const p = seedDesignPower({ ...design, replicates: 2000, frontier: true });
    expect(p).toEqual(seedDesignPower({ ...design, replicates: 2000, frontier: true }));
    expect(p?.method).toBe('seed_item_t');
    expect(p?.mc_error.p_validated).toBeCloseTo(Math.sqrt(((p?.p_validated ?? 0) * (1 - (p?.p_validated ?? 0))) / 2000), 15);
    expect(p?.residual_sd).toBeCloseTo(Math.sqrt(0.2 - 0.0004 - 0.0004), 15);
    const s80 = p?.seeds_for_80_percent_power as number;
    expect(seedDesignPower({ ...design, seeds: s80, replicates: 2000 })?.p_validated).toBeGreaterThanOrEqual(0.8);
    expect(seedDesignPower({ ...design, seeds: s80 - 1, replicates: 2000 })?.p_validated ?? 0).toBeLessThan(0.8);
    expect(p?.frontier?.find((f) => f.seeds === 5)?.n_for_80_percent_power).toBe(p?.n_for_80_percent_power);
  });
  it("uses the rule's seed_method, or the one asked", () => {
    const r = parseDecisionRule({ ...rule, seed_method: 'seed_t' });
    expect(seedDesignPower({ ...design, rule: r, replicates: 500 })?.method).toBe('seed_t');
    expect(seedDesignPower({ ...design, rule: r, method: 'seed_item_t', replicates: 500 })?.method).toBe('seed_item_t');
  });
  const code = (extra: Record<string, unknown>) => {
    try {
      seedDesignPower({ ...design, replicates: 200, ...extra });
    } catch (e) {
      return [(e as RlAdvantagesError).code, (e as RlAdvantagesError).field];
    }
    return ['none'];
  };
  it('refuses bad designs, naming the field', () => {
    expect(code({ seeds: 1 })).toEqual(['bad_integer', 'seeds']);
    expect(code({ n: 1.5 })).toEqual(['bad_integer', 'n']);
    expect(code({ seedSd: -0.01 })).toEqual(['bad_design', 'seedSd']);
    expect(code({ effect: Number.NaN })).toEqual(['bad_design', 'effect']);
    expect(code({ discordance: { value: 0.01, source: 'given' } })).toEqual(['bad_control_accuracy', 'controlAccuracy']);
    expect(code({ discordance: { value: 0.002, source: 'given' }, effect: 0, seedSd: 0.05 })).toEqual(['bad_design', 'discordance']);
    expect(code({ controlAccuracy: { value: 0.02, source: 'given' } })).toEqual(['bad_control_accuracy', 'controlAccuracy']);
    expect(code({ method: 'pooled' })).toEqual(['unknown_method', 'method']);
  });
  it('is null for a rule with no 0/1 criterion', () => {
    const scores = parseDecisionRule({ method: 'paired_hoeffding', alpha: 0.05, criteria: [{ id: 'c', metric: 'm', bounds: [0, 10], margin: 0, weights: { treatment: 1, baseline: -1 } }] });
    expect(seedDesignPower({ ...design, rule: scores })).toBeNull();
  });
});
