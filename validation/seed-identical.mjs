// Identical seeds give no verdict (docs/method.md section 5.8, "How M = 0 is tested"; issue 39): S copies of one run
// pair's per-item 0/1 differences, what a seed that changes nothing produces under greedy evaluation, decided by the
// library's decideAcrossSeeds with both seed methods, over many roundings (different n, accuracies and item
// outcomes). Beside it, the interval the library gave before the identity test, recomputed here from the two-way mean
// squares summed in the library's old order (the mean of S rounded terms m / S), to show what the test removes.
//
//   npm run build && nice -n 10 node validation/seed-identical.mjs [--studies R] [--out FILE]
//
// Each (S, n) cell draws R studies from its own seedrandom stream `seed-identical/<S>/<n>`: a baseline accuracy
// p_b ~ U(0.2, 0.9), a treatment accuracy p_b + U(-0.05, 0.05) (clipped to [0, 1]), the n items of one run pair as
// independent Bernoulli draws; the S seeds are copies of that pair. Margin -0.05, alpha 0.05, one criterion.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { decideAcrossSeeds, parseDecisionRule } from '../dist/stats.js';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const R = Number(opt('--studies', 500));
const out = resolve(opt('--out', resolve(import.meta.dirname, 'results', 'seed-identical.json')));
const MARGIN = -0.05;
const criterion = { id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: MARGIN, weights: { treatment: 1, baseline: -1 } };
const rules = Object.fromEntries(['seed_t', 'seed_item_t'].map((m) => [m, parseDecisionRule({ method: 'paired_hoeffding', alpha: 0.05, seed_method: m, criteria: [criterion] })]));

// t_{df} upper quantile by bisection on the t CDF (regularised incomplete beta by Simpson on the density), independent of src/.
function tDensity(x, df) {
  const lg = (z) => {
    // Lanczos log-gamma
    const g = 7;
    const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
    if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - lg(1 - z);
    z -= 1;
    let a = c[0];
    const t = z + g + 0.5;
    for (let i = 1; i < g + 2; i++) a += c[i] / (z + i);
    return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
  };
  return Math.exp(lg((df + 1) / 2) - lg(df / 2) - 0.5 * Math.log(df * Math.PI) - ((df + 1) / 2) * Math.log(1 + (x * x) / df));
}
function tUpper(p, df) {
  const tail = (q) => {
    // P(T > q) = 1/2 - int_0^q density, Simpson with 4000 panels
    const m = 4000;
    const h = q / m;
    let s = tDensity(0, df) + tDensity(q, df);
    for (let i = 1; i < m; i++) s += (i % 2 ? 4 : 2) * tDensity(i * h, df);
    return 0.5 - (s * h) / 3;
  };
  let lo = 0;
  let hi = 200;
  for (let it = 0; it < 60; it++) {
    const mid = (lo + hi) / 2;
    if (tail(mid) > p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** The old computation: the library's summation order before the identity test (seed-interval.ts at a02dca7). */
function oldInterval(rows, method, t) {
  const S = rows.length;
  const n = rows[0].length;
  const rowMeans = new Float64Array(S);
  const colMeans = new Float64Array(n);
  rows.forEach((row, s) => {
    let sum = 0;
    for (let i = 0; i < n; i++) {
      sum += row[i];
      colMeans[i] += row[i] / S;
    }
    rowMeans[s] = sum / n;
  });
  let grand = 0;
  for (const m of rowMeans) grand += m / S;
  let ssSeed = 0;
  for (const m of rowMeans) ssSeed += (m - grand) ** 2;
  let ssItem = 0;
  for (const m of colMeans) ssItem += (m - grand) ** 2;
  let ssError = 0;
  rows.forEach((row, s) => {
    const r = rowMeans[s] - grand;
    for (let i = 0; i < n; i++) ssError += (row[i] - r - colMeans[i]) ** 2;
  });
  const msSeed = (n * ssSeed) / (S - 1);
  const msItem = (S * ssItem) / (n - 1);
  const msError = ssError / ((S - 1) * (n - 1));
  const M = Math.max(msSeed, msError);
  if (!(M > 0)) return null;
  const v = M + (method === 'seed_item_t' ? Math.max(0, msItem - msError) : 0);
  const half = t * Math.sqrt(v / (S * n));
  return { lower: Math.max(-1, grand - half), upper: Math.min(1, grand + half), M };
}

const started = performance.now();
const cells = [];
for (let S = 2; S <= 20; S++) {
  const t = tUpper(0.025, S - 1);
  for (const n of [30, 200, 1319]) {
    const rng = seedrandom(`seed-identical/${S}/${n}`);
    const tally = { seed_t: { verdict: 0, no_interval: 0, se_null: 0, old_validated: 0, old_failed: 0, old_zero_m: 0 }, seed_item_t: { verdict: 0, no_interval: 0, se_null: 0, old_validated: 0, old_failed: 0, old_zero_m: 0 } };
    let largestM = 0;
    for (let r = 0; r < R; r++) {
      const pb = 0.2 + 0.7 * rng();
      const pt = Math.min(1, Math.max(0, pb + 0.1 * rng() - 0.05));
      const tRows = [];
      const bRows = [];
      const d = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const yt = rng() < pt;
        const yb = rng() < pb;
        tRows.push({ item_id: `q${i}`, correct: yt });
        bRows.push({ item_id: `q${i}`, correct: yb });
        d[i] = (yt ? 1 : 0) - (yb ? 1 : 0);
      }
      const replicates = Array.from({ length: S }, (_, seed) => ({ seed, treatment: tRows, baseline: bRows }));
      const rows = Array.from({ length: S }, () => Float64Array.from(d));
      for (const method of ['seed_t', 'seed_item_t']) {
        const x = tally[method];
        const dec = decideAcrossSeeds({ replicates, rule: rules[method] });
        if (dec.verdict !== 'inconclusive') x.verdict++;
        if (dec.fallback?.rule === 'whole_range' && dec.fallback.reason === 'no_variation') x.no_interval++;
        if (dec.standardError === null) x.se_null++;
        const old = oldInterval(rows, method, t);
        if (old === null) x.old_zero_m++;
        else {
          largestM = Math.max(largestM, old.M);
          if (old.lower > MARGIN) x.old_validated++;
          if (old.upper < MARGIN) x.old_failed++;
        }
      }
    }
    const rate = (k) => k / R;
    cells.push({
      seeds: S,
      n,
      studies: R,
      largest_rounded_M_before: largestM,
      methods: Object.fromEntries(
        Object.entries(tally).map(([m, x]) => [
          m,
          { verdicts_now: x.verdict, no_interval_now: rate(x.no_interval), standard_error_null_now: rate(x.se_null), validated_before: rate(x.old_validated), failed_before: rate(x.old_failed), exact_zero_before: rate(x.old_zero_m) },
        ]),
      ),
    });
    const c = cells.at(-1);
    console.log(`S=${S} n=${n}: now verdicts ${c.methods.seed_t.verdicts_now}/${c.methods.seed_item_t.verdicts_now}; before validated ${c.methods.seed_t.validated_before.toFixed(3)}/${c.methods.seed_item_t.validated_before.toFixed(3)} (largest M ${largestM.toExponential(2)})`);
  }
}
const total = cells.reduce((a, c) => a + c.methods.seed_t.verdicts_now + c.methods.seed_item_t.verdicts_now, 0);
const result = { script: 'validation/seed-identical.mjs', studies_per_cell: R, margin: MARGIN, alpha: 0.05, verdicts_now_total: total, decisions_total: cells.length * R * 2, seconds_last_run: +((performance.now() - started) / 1000).toFixed(1), cells };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 1)}\n`);
console.log(`${total} verdicts in ${result.decisions_total} decisions of identical seeds; wrote ${out}`);
