// A small version of validation/seed-robustness.mjs (docs/method.md section 5.8, Robustness): the collapsing and
// skewed populations' truths checked by brute-force draws, and the degenerate design where the MS_error floor matters.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { seedInterval } from '../../src/stats/index.js';
import { populationAccuracy } from '../../validation/seed-decision-coverage-core.mjs';
import { cellPopulation, DROP, MARGIN, meanSquares, study, TAU } from '../../validation/seed-robustness-core.mjs';

const expit = (x: number) => 1 / (1 + Math.exp(-x));

describe('the robustness populations', () => {
  it.each(['collapse_0.2', 'skewed'] as const)('%s: the truth is the margin, and brute-force draws of runs and items agree with it', (law) => {
    const pop = cellPopulation({ law, seedSd: 0.02, gamma: 0.5, p0: 0.5 });
    expect(pop.truth).toBeCloseTo(MARGIN, 10);
    const rng = seedrandom(`robust-truth-${law}`);
    const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    // Each draw: a fresh treatment run, baseline run and item; d = y_t - y_b. Var(d) <= 1, so 4 SE <= 4 / sqrt(R).
    const R = 400000;
    let sum = 0;
    for (let r = 0; r < R; r++) {
      const z = TAU * normal();
      const w = pop.gamma * normal();
      const yT = rng() < expit(pop.muT + pop.draw(rng) + z + w) ? 1 : 0;
      const yB = rng() < expit(pop.muB + pop.sigmaU * normal() + z) ? 1 : 0;
      sum += yT - yB;
    }
    expect(Math.abs(sum / R - MARGIN)).toBeLessThan(4 / Math.sqrt(R));
  });

  it('a collapsed run loses 0.14 of population accuracy', () => {
    const pop = cellPopulation({ law: 'collapse_0.1', seedSd: 0.02, gamma: 0, p0: 0.5 });
    const s = Math.sqrt(TAU * TAU + pop.sigmaU * pop.sigmaU);
    expect(populationAccuracy(pop.muT, s) - populationAccuracy(pop.muT + pop.shift, s)).toBeCloseTo(DROP, 8);
  });
});

describe('a degenerate design: 2 seeds x 3 items at 90% accuracy, no run-to-run spread, truth at the margin', () => {
  it('without the floor tied seeds validate falsely; with it (and no interval when nothing varies) never', () => {
    const pop = cellPopulation({ law: 'normal', seedSd: 0, gamma: 0, p0: 0.9 });
    const rng = seedrandom('robust-degenerate');
    let unfloored = 0;
    let floored = 0;
    const t1 = Math.tan(Math.PI * (0.5 - 0.025));
    for (let r = 0; r < 400; r++) {
      const rows = study(pop, 2, 3, rng, false);
      const ms = meanSquares(rows);
      const h = t1 * Math.sqrt((ms.seed + Math.max(0, ms.item - ms.error)) / 6);
      if (ms.g - h > MARGIN) unfloored++;
      if (seedInterval({ differences: rows, alpha: 0.05, method: 'seed_item_t', extremes: [-1, 1] }).lower > MARGIN) floored++;
    }
    expect(unfloored / 400).toBeGreaterThan(0.2);
    expect(floored).toBe(0);
  });
});
