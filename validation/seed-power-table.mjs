// The seed-level power table of docs/study.md (docs/method.md section 5.9) and a check of the normal-model power
// against whole simulated studies of 0/1 outcomes.
//
//   npm run build && nice -n 10 node validation/seed-power-table.mjs [--out FILE]
//
// Table: the shipped spec's rule (margin -0.05, alpha 0.05), D = 0.2 (the assumed discordance), control accuracy 0.5,
// item SD 0; between-seed SD 0.01 and 0.02; true difference 0, +0.02, +0.05; S = 2, 3, 5, 10 seeds at n = 1319 items:
// P(validated) of seed_item_t (the default) and seed_t by seedDesignPower (4000 draws, seed 0), the n for 80% power at
// each S, and the S for 80% power at n = 1319.
// Check: for populations of validation/seed-decision-coverage-core.mjs (logit model, tau = 1.5), P(validated) over
// 2000 whole simulated studies of 0/1 outcomes decided by the library's seedInterval, against seedPowerBySimulation
// at the population's D, between-seed SD and item SD (estimated from one 200-seed x 4000-item study of it).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { parseDecisionRule, seedDesignPower, seedInterval, seedPowerBySimulation } from '../dist/stats.js';
import { population, simulateStudy } from './seed-decision-coverage-core.mjs';

const args = process.argv.slice(2);
const out = resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : resolve(import.meta.dirname, 'results', 'seed-power-table.json'));
const spec = JSON.parse(readFileSync(resolve(import.meta.dirname, '..', 'specs', 'gs1-vs-grpo.json'), 'utf8'));
const rule = parseDecisionRule(spec.decision_rule);
const started = performance.now();

const table = [];
for (const seedSd of [0.01, 0.02]) {
  for (const effect of [0, 0.02, 0.05]) {
    for (const method of ['seed_item_t', 'seed_t']) {
      const row = { seed_sd: seedSd, effect, method, by_seeds: [] };
      for (const S of [2, 3, 5, 10]) {
        const p = seedDesignPower({ rule, seeds: S, n: 1319, effect, seedSd, method, discordance: { value: 0.2, source: 'assumed' } });
        row.by_seeds.push({ seeds: S, p_validated: p.p_validated, mc_error: p.mc_error.p_validated, p_failed: p.p_failed, n_for_80_percent_power: p.n_for_80_percent_power });
        row.seeds_for_80_percent_power_at_1319 = p.seeds_for_80_percent_power;
      }
      table.push(row);
    }
  }
}

const checks = [];
for (const [p0, seedSd, gamma, S, n, delta] of [
  [0.5, 0.02, 0, 3, 1319, 0],
  [0.5, 0.02, 0, 5, 1000, 0],
  [0.2, 0.01, 1, 5, 500, 0.02],
  [0.8, 0.02, 0.5, 10, 200, 0],
]) {
  const pop = population({ p0, delta, seedSd, tau: 1.5, gamma });
  const big = simulateStudy({ S: 200, n: 4000, pop, rng: seedrandom.alea(`power-check-big:${p0}:${seedSd}:${gamma}`) });
  let discordant = 0;
  for (const row of big) for (const d of row) if (d !== 0) discordant++;
  const D = discordant / (200 * 4000);
  const moments = seedInterval({ differences: big, alpha: 0.05, method: 'seed_item_t' });
  const result = {};
  for (const method of ['seed_item_t', 'seed_t']) {
    let validated = 0;
    const R = 2000;
    const rngM = seedrandom.alea(`power-check:${p0}:${seedSd}:${gamma}:${S}:${n}:${method}`);
    for (let r = 0; r < R; r++) {
      const iv = seedInterval({ differences: simulateStudy({ S, n, pop, rng: rngM }), alpha: 0.05, method });
      if (iv.lower > -0.05) validated++;
    }
    const sim = validated / R;
    const model = seedPowerBySimulation(
      { method, seeds: S, n, effect: pop.truth, margin: -0.05, alpha: 0.05, comparisons: 1, seedSd: pop.seed_sd, itemSd: moments.itemComponentSd, discordance: D },
      { replicates: 20000 },
    );
    result[method] = { whole_studies: sim, whole_studies_mc_error: Math.sqrt((sim * (1 - sim)) / R), normal_model: model.pValidated, normal_model_mc_error: model.mcErrorValidated };
  }
  checks.push({ baseline_accuracy: p0, seed_sd: seedSd, gamma, seeds: S, n, truth: pop.truth, discordance: D, item_sd: moments.itemComponentSd, ...result });
}

const result = { script: 'validation/seed-power-table.mjs', margin: -0.05, alpha: 0.05, discordance: 0.2, control_accuracy: 0.5, n: 1319, seconds_last_run: +((performance.now() - started) / 1000).toFixed(1), table, checks };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
for (const row of table) {
  console.log(
    `| ${row.seed_sd} | ${row.effect >= 0 ? '+' : ''}${row.effect} | ${row.method} | ` +
      row.by_seeds.map((b) => `${b.p_validated.toFixed(3)} (${b.n_for_80_percent_power ?? '-'})`).join(' | ') +
      ` | ${row.seeds_for_80_percent_power_at_1319 ?? '> 50'} |`,
  );
}
for (const c of checks) console.log(JSON.stringify(c));
console.log(`${result.seconds_last_run} s; wrote ${out}`);
