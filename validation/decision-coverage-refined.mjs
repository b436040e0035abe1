// The lowest coverage of every decision method's interval for 0/1 outcomes (docs/method.md section 5.7), over the
// true difference delta in [-1, 1] and the discordance D in [|delta|, 1], from a fine grid with local refinement,
// each coverage exact (every (n10, n01) of non-negligible probability summed; no simulation).
//
//   npm run build && nice -n 10 node validation/decision-coverage-refined.mjs [--quick] [--sizes 10,30] [--methods A,B] [--out FILE]
//
// (each size's rows replace the same rows of an existing --out, so the sizes can run one by one, each within
// minutes). Grid: delta every 0.0025 up to n = 100, 0.005 at n = 300, 0.01 at n = 1319 (the exact unconditional
// method: every 0.005 at n <= 100, 0.01 at n = 300, 0.02 at n = 1319, its regions cost more); at each delta 200
// values of D (120 at n = 1319) evenly spaced in arcsin(sqrt(D)) plus golden-section refinement of the 3 lowest
// local minima; then 40 more deltas within one grid step of each of the 3 worst.
// Alpha 0.05, k = 1. paired_exact_binomial at n = 1319 (871k Clopper-Pearson intervals, minutes) runs only when
// named: --sizes 1319 --methods paired_exact_binomial.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { DECISION_METHOD_NAMES, decisionMethod } from '../dist/stats.js';
import { cached, intervalTable, refinedMinimum, regionsAtDelta } from './decision-coverage-core.mjs';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const outIndex = args.indexOf('--out');
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : resolve(import.meta.dirname, 'results', 'decision-coverage-refined.json'));
const ALPHA = 0.05;
const methodsIndex = args.indexOf('--methods');
const methods = methodsIndex >= 0 ? args[methodsIndex + 1].split(',') : DECISION_METHOD_NAMES;
const sizesIndex = args.indexOf('--sizes');
const sizes = sizesIndex >= 0 ? args[sizesIndex + 1].split(',').map(Number) : quick ? [10, 30] : [10, 30, 100, 300, 1319];

const rows = [];
const started = Date.now();
for (const n of sizes) {
  for (const name of methods) {
    if (name === 'paired_exact_binomial' && n > 300 && methodsIndex < 0) continue;
    // Its interval depends on the concordant split too: validation/newcombe-coverage.mjs searches the 4-cell table.
    if (decisionMethod(name).needsConcordantSplit) continue;
    const t0 = Date.now();
    const method = decisionMethod(name);
    let regionsAt;
    let step = n <= 100 ? 0.0025 : n <= 300 ? 0.005 : 0.01;
    const points = n > 300 ? 120 : 200;
    if (method.thresholds !== undefined && name === 'paired_exact_unconditional') {
      // validated at margin delta <=> lower > delta; failed <=> upper < delta.
      regionsAt = (delta) => {
        const t = method.thresholds(n, ALPHA, 1, delta);
        return { from: t.validFrom, to: t.failTo };
      };
      step = n <= 100 ? 0.005 : n <= 300 ? 0.01 : 0.02;
    } else {
      const table = intervalTable(n, cached((b, c) => method.fromCounts({ n10: b, n01: c, n, alpha: ALPHA })));
      regionsAt = (delta) => regionsAtDelta(table, delta);
    }
    const r = refinedMinimum(n, regionsAt, { step, points });
    const row = { method: name, n, k: 1, target: 1 - ALPHA, delta_step: step, d_points: points, ...r, seconds: (Date.now() - t0) / 1000 };
    rows.push(row);
    console.log(JSON.stringify(row));
  }
}
if (existsSync(out)) {
  const old = JSON.parse(readFileSync(out, 'utf8')).rows ?? [];
  for (const r of old) if (!rows.some((x) => x.method === r.method && x.n === r.n)) rows.push(r);
  rows.sort((a, b) => a.n - b.n || DECISION_METHOD_NAMES.indexOf(a.method) - DECISION_METHOD_NAMES.indexOf(b.method));
}
const guaranteed = DECISION_METHOD_NAMES.filter((m) => !decisionMethod(m).asymptotic);
const result = {
  script: 'validation/decision-coverage-refined.mjs',
  alpha: ALPHA,
  quick,
  seconds_last_run: (Date.now() - started) / 1000,
  guaranteed_methods_at_or_above_target: rows.filter((r) => guaranteed.includes(r.method)).every((r) => r.coverage >= r.target - 1e-12),
  rows,
};
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
console.log(`guaranteed methods at or above 1 - alpha: ${result.guaranteed_methods_at_or_above_target}; ${result.seconds_last_run} s; wrote ${out}`);
