// validation/newcombe-coverage.mjs's results (docs/method.md section 5.7) against an independent computation, and
// the lowest coverage shown beside the asymptotic methods (help, plan, report) against the results files.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ASYMPTOTIC_DECISION_METHODS, ASYMPTOTIC_LOWEST_COVERAGE } from '../../src/stats/method-names.js';
import { newcombeInterval } from '../../src/stats/newcombe.js';

interface Row {
  n: number;
  max_discordance: number;
  coverage: number;
  difference: number;
  cells: { both_right: number; treatment_only: number; baseline_only: number; both_wrong: number };
}
const results = (file: string): { rows: Row[] } => JSON.parse(readFileSync(path.join(__dirname, '..', '..', 'validation', 'results', file), 'utf8')) as { rows: Row[] };

/** The coverage of Newcombe's interval at one table of cell probabilities, every (a, b, c, d) of the multinomial. */
function bruteCoverage(n: number, p: [number, number, number, number], delta: number): number {
  const lf = [0];
  for (let k = 1; k <= n; k++) lf.push((lf[k - 1] as number) + Math.log(k));
  const term = (x: number, q: number): number => (x === 0 ? 0 : q <= 0 ? -Infinity : x * Math.log(q));
  let covered = 0;
  for (let a = 0; a <= n; a++) {
    for (let b = 0; a + b <= n; b++) {
      for (let c = 0; a + b + c <= n; c++) {
        const d = n - a - b - c;
        const pr = Math.exp((lf[n] as number) - (lf[a] as number) - (lf[b] as number) - (lf[c] as number) - (lf[d] as number) + term(a, p[0]) + term(b, p[1]) + term(c, p[2]) + term(d, p[3]));
        const iv = newcombeInterval({ n11: a, n10: b, n01: c, n, alpha: 0.05 });
        if (iv.lower <= delta && iv.upper >= delta) covered += pr;
      }
    }
  }
  return covered;
}

describe("paired_newcombe's measured coverage", () => {
  const rows = results('newcombe-coverage.json').rows;

  it.each(rows.filter((r) => r.n <= 30))('n = $n, D <= $max_discordance: the lowest coverage recorded is the coverage of its table, summed cell by cell (1e-9)', (row) => {
    const c = row.cells;
    const covered = bruteCoverage(row.n, [c.both_right, c.treatment_only, c.baseline_only, c.both_wrong], row.difference);
    // The script leaves out terms below 1e-20 and sums in another order: agreement to 1e-9 is far inside that.
    expect(Math.abs(covered - row.coverage)).toBeLessThan(1e-9);
    expect(row.coverage).toBeLessThan(0.95);
  });

  it('the figures shown beside the asymptotic methods are the lowest measured at small n (results files, 3 decimals)', () => {
    expect(Object.keys(ASYMPTOTIC_LOWEST_COVERAGE).sort()).toEqual([...ASYMPTOTIC_DECISION_METHODS].sort());
    const newcombe = rows.filter((r) => r.max_discordance === 1);
    const lowest = newcombe.reduce((lo, r) => (r.coverage < lo.coverage ? r : lo));
    expect(ASYMPTOTIC_LOWEST_COVERAGE.paired_newcombe).toEqual({ coverage: Number(lowest.coverage.toFixed(3)), n: lowest.n });
    const tango = (results('decision-coverage-refined.json').rows as (Row & { method: string })[]).filter((r) => r.method === 'paired_tango');
    const tangoLowest = tango.reduce((lo, r) => (r.coverage < lo.coverage ? r : lo));
    expect(ASYMPTOTIC_LOWEST_COVERAGE.paired_tango).toEqual({ coverage: Number(tangoLowest.coverage.toFixed(3)), n: tangoLowest.n });
  });
});
