// A small version of validation/seed-decision-coverage.mjs (docs/method.md section 5.8): the simulated population's
// truth checked by brute-force Monte Carlo, and the coverage pattern of the seed-level intervals on a few cells.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { seedInterval } from '../../src/stats/index.js';
import { cellCoverage, fixedItemsTruth, normalExpectation, pooledInterval, population, runAverage, simulateStudy, singleSeedInterval } from '../../validation/seed-decision-coverage-core.mjs';

describe('the seed-coverage simulation', () => {
  it("its truth and between-seed SD are the population's: brute-force draws of runs and items agree", () => {
    const pop = population({ p0: 0.2, delta: 0.02, seedSd: 0.05, tau: 1.5, gamma: 1 });
    expect(pop.truth).toBeCloseTo(0.02, 10);
    expect(pop.seed_sd).toBeCloseTo(0.05, 8);
    // 4000 studies of S = 1 seed with n = 2000 items: the per-seed difference has mean Delta and SD
    // sqrt(seedSd^2 + item and outcome noise / n), the latter estimated from the rows themselves.
    const rng = seedrandom.alea('truth-check');
    const means: number[] = [];
    let within = 0;
    for (let r = 0; r < 4000; r++) {
      const [row] = simulateStudy({ S: 1, n: 2000, pop, rng }) as [Float64Array];
      const m = row.reduce((a, b) => a + b, 0) / row.length;
      means.push(m);
      within += row.reduce((a, b) => a + (b - m) ** 2, 0) / (row.length - 1) / row.length;
    }
    const mean = means.reduce((a, b) => a + b, 0) / means.length;
    const sd = Math.sqrt(means.reduce((a, b) => a + (b - mean) ** 2, 0) / (means.length - 1));
    // Monte-Carlo error of the mean about sd / sqrt(4000) = 0.0009: 4 errors.
    expect(Math.abs(mean - pop.truth)).toBeLessThan(4 * (sd / Math.sqrt(4000)));
    expect(Math.sqrt(sd ** 2 - within / 4000)).toBeCloseTo(0.05, 2);
  });

  const intervals = (rows: Float64Array[]) => ({
    seed_item_t: seedInterval({ differences: rows, alpha: 0.05, method: 'seed_item_t' }),
    seed_t: seedInterval({ differences: rows, alpha: 0.05, method: 'seed_t' }),
    pooled_items: pooledInterval(rows),
    single_seed: singleSeedInterval(rows),
  });

  it('with a between-seed SD of 0.05, pooling items and one seed alone under-cover; the seed-level intervals do not', () => {
    const pop = population({ p0: 0.5, delta: 0.02, seedSd: 0.05, tau: 1.5, gamma: 0 });
    const r = cellCoverage({ S: 5, n: 1000, pop, rng: seedrandom.alea('cell-a'), replicates: 400, intervals });
    // 400 studies: MC error about 0.011 at 0.95.
    expect(r.seed_item_t?.coverage).toBeGreaterThan(0.95 - 3 * 0.011);
    expect(r.seed_t?.coverage).toBeGreaterThan(0.95 - 3 * 0.011);
    expect(r.pooled_items?.coverage).toBeLessThan(0.85);
    expect(r.single_seed?.coverage).toBeLessThan(0.85);
  });

  it('with item-specific effects and little seed spread, seed_t under-covers Delta at S = 10 (it misses the item sampling) but covers its own Delta_I; seed_item_t covers Delta', () => {
    const pop = population({ p0: 0.8, delta: 0.02, seedSd: 0.01, tau: 1.5, gamma: 1 });
    const r = cellCoverage({ S: 10, n: 200, pop, rng: seedrandom.alea('cell-b'), replicates: 400, intervals, fixedItems: true });
    expect(r.seed_t?.coverage).toBeLessThan(0.92);
    expect(r.seed_t?.coverage_fixed_items).toBeGreaterThan(0.95 - 3 * 0.011);
    expect(r.seed_item_t?.coverage).toBeGreaterThan(0.95 - 3 * 0.011);
  });

  it("Delta_I: the tabulated run average matches direct quadrature, and its mean over studies is Delta", () => {
    const pop = population({ p0: 0.5, delta: 0.02, seedSd: 0.05, tau: 1.5, gamma: 0.5 });
    const g = runAverage(pop.sigma_u);
    for (const x of [-7.3, -1.234, 0, 0.5, 3.33]) {
      expect(Math.abs(g(x) - normalExpectation((z) => 1 / (1 + Math.exp(-(x + pop.sigma_u * z)))))).toBeLessThan(1e-7);
    }
    const rng = seedrandom.alea('fixed-truth');
    let sum = 0;
    for (let r = 0; r < 400; r++) sum += fixedItemsTruth(simulateStudy({ S: 1, n: 1000, pop, rng }), pop, g);
    // Delta_I has SD about 0.1 / sqrt(1000) over studies: the mean of 400 is within 0.0008 of Delta (5 SEs).
    expect(Math.abs(sum / 400 - pop.truth)).toBeLessThan(0.0008);
  });
});
