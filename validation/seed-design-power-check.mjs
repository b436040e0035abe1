// seed_design_power (docs/method.md section 5.9) against whole simulated studies of 0/1 item outcomes (issue 39).
//
//   npm run build && nice -n 10 node validation/seed-design-power-check.mjs [--studies R] [--out FILE]
//
// The 0/1 studies come from the logit population of validation/seed-decision-coverage-core.mjs (nothing from src/):
// item difficulty tau z_i (tau = 1.5), no item-specific effect (gamma = 0: the item SD 0 that seed_design_power
// assumes), a run offset u ~ N(0, sigma_u^2) per arm and seed with sigma_u solved so the SD over seeds of a run pair's
// population difference is 0.02 (the run-to-run SD seed_design_power assumes), baseline accuracy p0 and treatment
// p0 + delta, delta = 0 (seed_design_power's true difference). Each cell: R whole studies (S seeds x n items, fresh items and runs, one seedrandom alea stream per
// cell), each decided by the library's seedInterval (the decision a study makes); P(validated) and P(failed) with MC
// error sqrt(p (1 - p) / R). Against them the normal-model power seedPowerBySimulation, which seed_design_power reports,
// at the population's truth, run-to-run SD 0.02, item SD 0 and D (the share of discordant pairs in one 200-seed x
// 4000-item study of the population): at the shipped 4000 draws (seed 0) and at 40000 (seed 1), the model's own figure.
// z = (whole - model) / sqrt(p (1 - p) (1/R + 1/draws)), p the model's figure. Also the coverage of the truth, for the S = 2 and 3 claims
// of docs/study.md section 3.1. Margin -0.05, alpha 0.05, one criterion.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { seedInterval, seedPowerBySimulation } from '../dist/stats.js';
import { population, simulateStudy } from './seed-decision-coverage-core.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const R = Number(opt('--studies', 2000));
const out = resolve(opt('--out', resolve(import.meta.dirname, 'results', 'seed-design-power-check.json')));
const MARGIN = -0.05;
const SEED_SD = 0.02;
const started = performance.now();
const cells = [];
for (const p0 of [0.5, 0.8]) {
  for (const delta of [0]) {
    const pop = population({ p0, delta, seedSd: SEED_SD, tau: 1.5, gamma: 0 });
    const big = simulateStudy({ S: 200, n: 4000, pop, rng: seedrandom.alea(`design-power-check-D:${p0}:${delta}`) });
    let discordant = 0;
    for (const row of big) for (const d of row) if (d !== 0) discordant++;
    const D = discordant / (200 * 4000);
    for (const S of [2, 3, 5, 10]) {
      for (const n of [200, 1319]) {
        const rng = seedrandom.alea(`design-power-check:${p0}:${delta}:${S}:${n}`);
        const tally = { seed_item_t: { v: 0, f: 0, c: 0 }, seed_t: { v: 0, f: 0, c: 0 } };
        for (let r = 0; r < R; r++) {
          const rows = simulateStudy({ S, n, pop, rng });
          for (const method of ['seed_item_t', 'seed_t']) {
            const iv = seedInterval({ differences: rows, alpha: 0.05, method, extremes: [-1, 1] });
            const t = tally[method];
            if (iv.lower > MARGIN) t.v++;
            if (iv.upper < MARGIN) t.f++;
            if (iv.lower <= pop.truth && pop.truth <= iv.upper) t.c++;
          }
        }
        const methods = {};
        for (const method of ['seed_item_t', 'seed_t']) {
          const design = { method, seeds: S, n, effect: pop.truth, margin: MARGIN, alpha: 0.05, comparisons: 1, seedSd: pop.seed_sd, itemSd: 0, discordance: D };
          const shipped = seedPowerBySimulation(design, { replicates: 4000, seed: 0 });
          const model = seedPowerBySimulation(design, { replicates: 40000, seed: 1 });
          const t = tally[method];
          const pv = t.v / R;
          const pf = t.f / R;
          const mc = (p) => Math.sqrt((p * (1 - p)) / R);
          // z with both MC variances at the model's p (a whole-study rate of exactly 0 or 1 has no MC error of its own).
          const z = (w, m, draws) => (m <= 0 || m >= 1 ? 0 : (w - m) / Math.sqrt(m * (1 - m) * (1 / R + 1 / draws)));
          methods[method] = {
            whole_validated: pv,
            whole_validated_mc: mc(pv),
            whole_failed: pf,
            whole_failed_mc: mc(pf),
            coverage: t.c / R,
            coverage_mc: mc(t.c / R),
            shipped_validated: shipped.pValidated,
            shipped_validated_mc: shipped.mcErrorValidated,
            model_validated: model.pValidated,
            model_validated_mc: model.mcErrorValidated,
            model_failed: model.pFailed,
            gap_shipped: pv - shipped.pValidated,
            z_shipped: z(pv, shipped.pValidated, 4000),
            gap_model: pv - model.pValidated,
            z_model: z(pv, model.pValidated, 40000),
          };
        }
        cells.push({ baseline_accuracy: p0, delta, truth: pop.truth, run_to_run_sd: pop.seed_sd, discordance: D, seeds: S, n, methods });
        const m = methods.seed_item_t;
        console.log(
          `p0 ${p0} delta ${delta} S ${S} n ${n}: seed_item_t whole ${m.whole_validated.toFixed(4)} shipped ${m.shipped_validated.toFixed(4)} model ${m.model_validated.toFixed(4)} z ${m.z_model.toFixed(2)} cov ${m.coverage.toFixed(4)}; seed_t whole ${methods.seed_t.whole_validated.toFixed(4)} model ${methods.seed_t.model_validated.toFixed(4)} z ${methods.seed_t.z_model.toFixed(2)} (${((performance.now() - started) / 1000).toFixed(0)} s)`,
        );
      }
    }
  }
}
const all = cells.flatMap((c) => Object.values(c.methods));
const summary = {
  largest_abs_gap_shipped: Math.max(...all.map((m) => Math.abs(m.gap_shipped))),
  largest_abs_z_shipped: Math.max(...all.map((m) => Math.abs(m.z_shipped))),
  largest_abs_gap_model: Math.max(...all.map((m) => Math.abs(m.gap_model))),
  largest_abs_z_model: Math.max(...all.map((m) => Math.abs(m.z_model))),
  mean_gap_model: all.reduce((a, m) => a + m.gap_model, 0) / all.length,
};
const result = { script: 'validation/seed-design-power-check.mjs', studies_per_cell: R, margin: MARGIN, alpha: 0.05, seconds_last_run: +((performance.now() - started) / 1000).toFixed(1), summary, cells };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
console.log(JSON.stringify(summary));
console.log(`${cells.length} cells x ${R} studies in ${result.seconds_last_run} s; wrote ${out}`);
