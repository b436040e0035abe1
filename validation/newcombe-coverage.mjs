// The lowest coverage of paired_newcombe (Newcombe's method 10, ASYMPTOTIC; docs/method.md sections 5.4.3 and 5.7)
// over every valid 2x2 table of cell probabilities, by exact enumeration over the 4-cell multinomial (no simulation).
//
//   npm run build && nice -n 10 node validation/newcombe-coverage.mjs [--quick] [--sizes 10,30,100,300] [--max-discordance X] [--out FILE]
//
// --max-discordance X searches only tables with D <= X (e.g. 0.5: the arms disagree on at most half the items, as in
// the study's design), a row of its own beside the search over every table.
//
// The table of true probabilities (both right, treatment only, baseline only, both wrong) is parametrised by the
// discordance D = p10 + p01 in [0, 1], the share of discordant items favouring the treatment q = p10 / D in [0, 1]
// and the share of concordant items both right r = p11 / (1 - D) in [0, 1]: every valid table is one (D, q, r).
// The true difference is delta = p10 - p01 = D (2q - 1); the interval misses it when lower > delta or upper < delta.
// Under (D, q, r) the counts are nested binomials: m = b + c ~ Bin(n, D), b | m ~ Bin(m, q), a | m ~ Bin(n - m, r),
// so P(a, b, c) = Bin(m; n, D) Bin(b; m, q) Bin(a; n - m, r), each pmf from log-factorials; terms whose weight is below
// 1e-20 are left out (coverage = 1 - miss, so what is left out can only raise it by that much).
// Search: a grid evenly spaced in arcsin(sqrt(D)) (dense near D = 0), q and r (sizes per n below); dense scans of D
// along the edges q = 0 and q = 1 (nearly every discordant item one way, where the normal approximation fails) at
// r = 0, 1/4, 1/2, 3/4, 1; then from each of the 16 lowest points found a compass search over (arcsin(sqrt(D)), q, r)
// (steps halved when no neighbour is lower, down to 1e-7 of the first step). The lowest coverage met anywhere is kept. Each row's ends are the library's own newcombeInterval (dist/stats.js) for every (a, b, c).
// Alpha 0.05, k = 1. Each size's row replaces the same row of an existing --out, so sizes can be run one by one.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { newcombeInterval } from '../dist/stats.js';

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const outIndex = args.indexOf('--out');
const out = resolve(outIndex >= 0 ? args[outIndex + 1] : resolve(import.meta.dirname, 'results', 'newcombe-coverage.json'));
const sizesIndex = args.indexOf('--sizes');
const sizes = sizesIndex >= 0 ? args[sizesIndex + 1].split(',').map(Number) : quick ? [10, 30] : [10, 30, 100, 300];
const ALPHA = 0.05;
const maxIndex = args.indexOf('--max-discordance');
const MAX_D = maxIndex >= 0 ? Number(args[maxIndex + 1]) : 1;
const TINY = 1e-20;
/** Grid points per coordinate (arcsin-sqrt D, q, r) by n. */
const GRID = { 10: 80, 30: 64, 100: 40, 300: 20 };
/** Points in arcsin(sqrt(D)) along each edge q in {0, 1}, r in {0, 1/4, 1/2, 3/4, 1}, by n. */
const EDGE = { 10: 4000, 30: 4000, 100: 2000, 300: 600 };
/** Compass searches, from the lowest points of the grid and the edges. */
const STARTS = 16;

/** The ends of every (a, b, c) of n, laid out by m = b + c, then b, then a. */
function endsTable(n) {
  const offset = new Int32Array(n + 2);
  for (let m = 0; m <= n; m++) offset[m + 1] = offset[m] + (m + 1) * (n - m + 1);
  const lower = new Float64Array(offset[n + 1]);
  const upper = new Float64Array(offset[n + 1]);
  for (let m = 0; m <= n; m++) {
    for (let b = 0; b <= m; b++) {
      for (let a = 0; a <= n - m; a++) {
        const iv = newcombeInterval({ n11: a, n10: b, n01: m - b, n, alpha: ALPHA });
        const i = offset[m] + b * (n - m + 1) + a;
        lower[i] = iv.lower;
        upper[i] = iv.upper;
      }
    }
  }
  return { n, offset, lower, upper };
}

function logFactorials(n) {
  const lf = new Float64Array(n + 1);
  for (let i = 2; i <= n; i++) lf[i] = lf[i - 1] + Math.log(i);
  return lf;
}

/** Bin(x; N, p) for x = 0..N into `into`. */
function binomialPmf(lf, N, p, into) {
  for (let x = 0; x <= N; x++) {
    if (p <= 0) into[x] = x === 0 ? 1 : 0;
    else if (p >= 1) into[x] = x === N ? 1 : 0;
    else into[x] = Math.exp(lf[N] - lf[x] - lf[N - x] + x * Math.log(p) + (N - x) * Math.log1p(-p));
  }
  return into;
}

/** The exact coverage at (D, q, r): 1 - P(lower > delta) - P(upper < delta). */
function coverage(table, lf, D, q, r) {
  const { n, offset, lower, upper } = table;
  const delta = D * (2 * q - 1);
  const pm = binomialPmf(lf, n, D, new Float64Array(n + 1));
  const pb = new Float64Array(n + 1);
  const pa = new Float64Array(n + 1);
  let miss = 0;
  for (let m = 0; m <= n; m++) {
    if (pm[m] < TINY) continue;
    binomialPmf(lf, m, q, pb);
    binomialPmf(lf, n - m, r, pa);
    let a0 = 0;
    let a1 = n - m;
    while (a0 < a1 && pa[a0] < TINY) a0++;
    while (a1 > a0 && pa[a1] < TINY) a1--;
    for (let b = 0; b <= m; b++) {
      const w = pm[m] * pb[b];
      if (w < TINY) continue;
      const base = offset[m] + b * (n - m + 1);
      let s = 0;
      for (let a = a0; a <= a1; a++) {
        const i = base + a;
        if (lower[i] > delta || upper[i] < delta) s += pa[a];
      }
      miss += w * s;
    }
  }
  return 1 - miss;
}

const clamp01 = (x) => Math.min(1, Math.max(0, x));
const toD = (u) => Math.sin(u) ** 2;

function lowestCoverage(n) {
  const table = endsTable(n);
  const lf = logFactorials(n);
  const g = GRID[n] ?? 12;
  const U = Math.asin(Math.sqrt(MAX_D));
  let evaluations = 0;
  let lowest = { p: [0, 0, 0], c: Infinity };
  const at = (u, q, r) => {
    evaluations++;
    const c = coverage(table, lf, toD(u), q, r);
    if (c < lowest.c) lowest = { p: [u, q, r], c };
    return c;
  };
  const grid = [];
  for (let i = 0; i <= g; i++) {
    for (let j = 0; j <= g; j++) {
      for (let k = 0; k <= g; k++) {
        const p = [(U * i) / g, j / g, k / g];
        grid.push({ p, c: at(...p) });
      }
    }
  }
  const gridLowest = grid.reduce((lo, x) => Math.min(lo, x.c), Infinity);
  // The edges where nearly every item goes one way (q = 0 or 1) at a few concordant splits, densely in D: the
  // coverage jumps as D moves, so a narrow dip between grid points is found here.
  const edges = [];
  const e = EDGE[n] ?? 200;
  for (const q of [0, 1]) {
    for (const r of [0, 0.25, 0.5, 0.75, 1]) {
      for (let i = 0; i <= e; i++) {
        const p = [(U * i) / e, q, r];
        edges.push({ p, c: at(...p) });
      }
    }
  }
  const all = grid.concat(edges).sort((x, y) => x.c - y.c);
  const starts = all.slice(0, STARTS);
  let best = all[0];
  for (const start of starts) {
    let p = start.p.slice();
    let c = start.c;
    const step = [U / Math.max(g, e / 10), 1 / g, 1 / g];
    const floor = step.map((s) => s * 1e-7);
    while (step.some((s, i) => s > floor[i])) {
      let moved = false;
      for (let i = 0; i < 3 && !moved; i++) {
        for (const sign of [1, -1]) {
          const t = p.slice();
          t[i] = i === 0 ? Math.min(U, Math.max(0, t[i] + sign * step[i])) : clamp01(t[i] + sign * step[i]);
          const ct = at(...t);
          if (ct < c) {
            p = t;
            c = ct;
            moved = true;
            break;
          }
        }
      }
      if (!moved) for (let i = 0; i < 3; i++) step[i] /= 2;
    }
    if (c < best.c) best = { p, c };
  }
  best = lowest; // the lowest coverage met anywhere (the searches' ends included)
  const [u, q, r] = best.p;
  const D = toD(u);
  return {
    coverage: best.c,
    grid_lowest: gridLowest,
    edge_points: e + 1,
    starts: STARTS,
    difference: D * (2 * q - 1),
    discordance: D,
    treatment_share_of_discordant: q,
    both_right_share_of_concordant: r,
    cells: { both_right: r * (1 - D), treatment_only: D * q, baseline_only: D * (1 - q), both_wrong: (1 - r) * (1 - D) },
    grid_points_per_axis: g + 1,
    evaluations,
  };
}

const rows = [];
const started = Date.now();
for (const n of sizes) {
  const t0 = Date.now();
  const row = { method: 'paired_newcombe', n, k: 1, target: 1 - ALPHA, max_discordance: MAX_D, ...lowestCoverage(n), seconds: (Date.now() - t0) / 1000 };
  rows.push(row);
  console.log(JSON.stringify(row));
}
if (existsSync(out)) {
  const old = JSON.parse(readFileSync(out, 'utf8')).rows ?? [];
  for (const r of old) if (!rows.some((x) => x.n === r.n && x.max_discordance === (r.max_discordance ?? 1))) rows.push({ max_discordance: 1, ...r });
  rows.sort((a, b) => b.max_discordance - a.max_discordance || a.n - b.n);
}
const result = { script: 'validation/newcombe-coverage.mjs', alpha: ALPHA, quick, asymptotic: true, seconds_last_run: (Date.now() - started) / 1000, rows };
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(result, null, 1) + '\n');
console.log(`${result.seconds_last_run} s; wrote ${out}`);
