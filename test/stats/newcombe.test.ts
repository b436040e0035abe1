// paired_newcombe (Newcombe 1998, method 10; docs/method.md section 5.4.3): published figures, the ends against an
// independent numpy implementation (test/fixtures/paired_newcombe_reference.py), n11 through the counts and the items
// path, and its four-cell power against brute-force enumeration of the multinomial.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/index.js';
import { decide, decisionMethod, nForPower, observedThresholds, parseDecisionRule, powerTable, verdictProbabilities } from '../../src/stats/index.js';
import { newcombeInterval, newcombePhi, pairedNewcombe, wilsonInterval } from '../../src/stats/newcombe.js';
import { fourCells } from '../../src/stats/four-cell-power.js';
import { normalUpperQuantile } from '../../src/internal/normal.js';

interface Case {
  n11: number;
  n10: number;
  n01: number;
  n00: number;
  alpha: number;
  k: number;
  lower: number;
  upper: number;
}
const fixture = JSON.parse(readFileSync(path.join(__dirname, '..', 'fixtures', 'paired-newcombe-reference.json'), 'utf8')) as { cases: Case[] };

function thrown(fn: () => unknown): RlAdvantagesError {
  try {
    fn();
  } catch (error) {
    if (error instanceof RlAdvantagesError) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

describe('newcombeInterval', () => {
  it("gives Fagerland, Lydersen and Laake's published interval for Cavo et al. (2012): [-0.1186, -0.0046]", () => {
    // (59, 6, 16, 80): ad - bc = 4624 > n/2, so the method-10 correction of phi changes the ends here (without it:
    // [-0.1174, -0.0059]). Published in ocbe-uio/contingencytables (the book's chapter 8 test, commit 0b16d6d5).
    const iv = newcombeInterval({ n11: 59, n10: 6, n01: 16, n: 161, alpha: 0.05 });
    expect(iv.estimate.toFixed(4)).toBe('-0.0621');
    expect(iv.lower.toFixed(4)).toBe('-0.1186');
    expect(iv.upper.toFixed(4)).toBe('-0.0046');
  });

  it("the paper's example table (36, 12, 2, 0): D = 0.2, interval [0.0569, 0.3404]", () => {
    // Not the [0.0528, 0.3339] the brief quotes: no table with n <= 79 gives those ends under this formula (searched).
    const iv = newcombeInterval({ n11: 36, n10: 12, n01: 2, n: 50, alpha: 0.05 });
    expect(iv.estimate).toBeCloseTo(0.2, 15);
    expect(iv.lower.toFixed(4)).toBe('0.0569');
    expect(iv.upper.toFixed(4)).toBe('0.3404');
    expect(iv.halfWidth).toBeCloseTo((iv.upper - iv.lower) / 2, 15);
  });

  // Tolerance 1e-12: the reference computes the Wilson ends in another algebraic form and z by bisection on erfc;
  // the ends are sums of a few float64 terms (the largest difference seen is about 1e-15).
  it.each(fixture.cases)('matches numpy at (a, b, c, d) = ($n11, $n10, $n01, $n00), k = $k, to 1e-12', (row) => {
    const n = row.n11 + row.n10 + row.n01 + row.n00;
    const iv = newcombeInterval({ n11: row.n11, n10: row.n10, n01: row.n01, n, alpha: row.alpha, comparisons: row.k });
    expect(Math.abs(iv.lower - row.lower)).toBeLessThanOrEqual(1e-12);
    expect(Math.abs(iv.upper - row.upper)).toBeLessThanOrEqual(1e-12);
  });

  it('the fixture covers a zero in every cell, n = 1 to 1319, and the two published tables', () => {
    const ns = fixture.cases.map((c) => c.n11 + c.n10 + c.n01 + c.n00);
    expect(Math.min(...ns)).toBe(1);
    expect(Math.max(...ns)).toBe(1319);
    for (const cell of ['n11', 'n10', 'n01', 'n00'] as const) expect(fixture.cases.filter((c) => c[cell] === 0).length).toBeGreaterThan(20);
    expect(fixture.cases.length).toBeGreaterThanOrEqual(400);
  });

  it('every table up to n = 12: holds the estimate, lies in [-1, 1], is finite, and swapping the arms negates it', () => {
    for (let n = 1; n <= 12; n++) {
      for (let a = 0; a <= n; a++) {
        for (let b = 0; a + b <= n; b++) {
          for (let c = 0; a + b + c <= n; c++) {
            const iv = newcombeInterval({ n11: a, n10: b, n01: c, n, alpha: 0.05 });
            const swapped = newcombeInterval({ n11: a, n10: c, n01: b, n, alpha: 0.05 });
            expect(Number.isFinite(iv.lower) && Number.isFinite(iv.upper)).toBe(true);
            expect(iv.lower).toBeLessThanOrEqual(iv.estimate + 1e-15);
            expect(iv.upper).toBeGreaterThanOrEqual(iv.estimate - 1e-15);
            expect(iv.lower).toBeGreaterThanOrEqual(-1 - 1e-15);
            expect(iv.upper).toBeLessThanOrEqual(1 + 1e-15);
            expect(swapped.lower).toBeCloseTo(-iv.upper, 14);
            expect(swapped.upper).toBeCloseTo(-iv.lower, 14);
          }
        }
      }
    }
  });

  it("phi: the method-10 correction of the numerator, 0 for an empty margin; Wilson's ends exact at 0 and n", () => {
    expect(newcombePhi(10, 0, 0, 10)).toBeCloseTo((100 - 10) / 100, 15);
    expect(newcombePhi(3, 1, 1, 1)).toBe(0); // ad - bc = 2 <= n/2 = 3
    expect(newcombePhi(0, 5, 5, 0)).toBe(-1);
    expect(newcombePhi(4, 3, 0, 0)).toBe(0);
    const z = normalUpperQuantile(0.025);
    expect(wilsonInterval(0, 7, z)[0]).toBe(0);
    expect(wilsonInterval(7, 7, z)[1]).toBe(1);
  });

  it('requires n11, naming it, and refuses counts that exceed n', () => {
    const missing = thrown(() => newcombeInterval({ n10: 3, n01: 1, n: 10, alpha: 0.05 }));
    expect(missing.code).toBe('missing_count');
    expect(missing.field).toBe('n11');
    expect(missing.message).toContain('paired_newcombe');
    const over = thrown(() => newcombeInterval({ n11: 7, n10: 3, n01: 1, n: 10, alpha: 0.05 }));
    expect(over.code).toBe('bad_counts');
    expect(over.field).toBe('n11');
    expect(thrown(() => newcombeInterval({ n11: -1, n10: 3, n01: 1, n: 10, alpha: 0.05 })).field).toBe('n11');
    expect(thrown(() => newcombeInterval({ n11: 1, n10: 3, n01: 1, n: 10, alpha: 1.5 })).code).toBe('bad_alpha');
    expect(thrown(() => pairedNewcombe({ differences: [1, 0, -1], range: 2, alpha: 0.05 })).field).toBe('n11');
  });

  it('from differences and n11 it equals the counts form; a value outside {-1, 0, 1} is refused', () => {
    const iv = pairedNewcombe({ differences: [1, 0, 0, -1, 1, 1, 0, 0], n11: 3, range: 2, alpha: 0.05 });
    expect(iv).toEqual(newcombeInterval({ n11: 3, n10: 3, n01: 1, n: 8, alpha: 0.05 }));
    expect(thrown(() => pairedNewcombe({ differences: [0.5], n11: 0, range: 2, alpha: 0.05 })).code).toBe('not_binary');
  });

  it('is registered as a binary, asymptotic method that needs the concordant split', () => {
    const m = decisionMethod('paired_newcombe');
    expect(m.binaryOnly).toBe(true);
    expect(m.asymptotic).toBe(true);
    expect(m.needsConcordantSplit).toBe(true);
    expect(m.reference).toContain('5.4.3');
  });
});

describe('decide with paired_newcombe', () => {
  const rule = parseDecisionRule({
    method: 'paired_newcombe',
    alpha: 0.05,
    criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
  });
  /** Items of a 2x2 table: a both right, b treatment only, c baseline only, d both wrong. */
  function arms(a: number, b: number, c: number, d: number): [{ item_id: number; correct: boolean }[], { item_id: number; correct: boolean }[]] {
    const cells: [boolean, boolean][] = [
      ...Array.from({ length: a }, () => [true, true] as [boolean, boolean]),
      ...Array.from({ length: b }, () => [true, false] as [boolean, boolean]),
      ...Array.from({ length: c }, () => [false, true] as [boolean, boolean]),
      ...Array.from({ length: d }, () => [false, false] as [boolean, boolean]),
    ];
    return [cells.map(([t], i) => ({ item_id: i, correct: t })), cells.map(([, s], i) => ({ item_id: i, correct: s })).reverse()];
  }

  it('counts n11 from the items: the interval is the one of the 2x2 table, and moving concordant items between both-right and both-wrong changes it', () => {
    const [t1, b1] = arms(59, 6, 16, 80);
    const d1 = decide(rule, t1, b1).criteria[0];
    const iv1 = newcombeInterval({ n11: 59, n10: 6, n01: 16, n: 161, alpha: 0.05 });
    expect(d1?.lower).toBe(iv1.lower);
    expect(d1?.upper).toBe(iv1.upper);
    const [t2, b2] = arms(120, 6, 16, 19);
    const d2 = decide(rule, t2, b2).criteria[0];
    expect(d2?.estimate).toBe(d1?.estimate);
    expect(d2?.lower).toBe(newcombeInterval({ n11: 120, n10: 6, n01: 16, n: 161, alpha: 0.05 }).lower);
    expect(d2?.lower).not.toBe(d1?.lower);
  });

  it('with the weights (-1, 1) n11 still counts the items both arms have at 1', () => {
    const flipped = parseDecisionRule({ ...rule, criteria: [{ ...rule.criteria[0], weights: { treatment: -1, baseline: 1 } }] });
    const [t, b] = arms(30, 4, 9, 7);
    const c = decide(flipped, t, b).criteria[0];
    // d = y_baseline - y_treatment: n10 (d = +1) are the baseline-only items.
    const iv = newcombeInterval({ n11: 30, n10: 9, n01: 4, n: 50, alpha: 0.05 });
    expect(c?.lower).toBe(iv.lower);
    expect(c?.upper).toBe(iv.upper);
  });

  it("a spec's decision_rule.method may name it, and then needs weights (1, -1) or (-1, 1)", () => {
    expect(rule.method).toBe('paired_newcombe');
    expect(() => parseDecisionRule({ ...rule, criteria: [{ ...rule.criteria[0], weights: { treatment: 0.5, baseline: -0.5 } }] })).toThrow(
      /must be \{ treatment: 1, baseline: -1 \} or \{ treatment: -1, baseline: 1 \} for paired_newcombe/,
    );
  });

  it('refuses a score that is not 0/1, naming the method', () => {
    const e = thrown(() => decide(rule, [{ item_id: 1, score: 0.5 }], [{ item_id: 1, score: 1 }]));
    expect(e.code).toBe('not_binary');
    expect(e.message).toContain('paired_newcombe');
  });
});

/** ln k! for k = 0..n. */
function lnFactorials(n: number): number[] {
  const lf = [0];
  for (let k = 1; k <= n; k++) lf.push((lf[k - 1] as number) + Math.log(k));
  return lf;
}

/** P(validated), P(failed) of paired_newcombe by every (a, b, c, d) of the multinomial, with newcombeInterval's verdicts. */
function bruteForce(n: number, cells: [number, number, number, number], margin: number, alpha: number, k: number): [number, number] {
  const lf = lnFactorials(n);
  const term = (x: number, p: number): number => (x === 0 ? 0 : p <= 0 ? -Infinity : x * Math.log(p));
  let validated = 0;
  let failed = 0;
  for (let a = 0; a <= n; a++) {
    for (let b = 0; a + b <= n; b++) {
      for (let c = 0; a + b + c <= n; c++) {
        const d = n - a - b - c;
        const lp = (lf[n] as number) - (lf[a] as number) - (lf[b] as number) - (lf[c] as number) - (lf[d] as number);
        const p = Math.exp(lp + term(a, cells[0]) + term(b, cells[1]) + term(c, cells[2]) + term(d, cells[3]));
        const iv = newcombeInterval({ n11: a, n10: b, n01: c, n, alpha, comparisons: k });
        if (iv.lower > margin) validated += p;
        else if (iv.upper < margin) failed += p;
      }
    }
  }
  return [validated, failed];
}

describe('the power of paired_newcombe (four cells)', () => {
  it('equals brute-force enumeration of the 4-cell multinomial to 1e-12 at n <= 40', () => {
    const settings = [
      { n: 7, D: 0.5, delta: 0.1, p2: 0.5, margin: -0.05, k: 1 },
      { n: 20, D: 0.2, delta: 0, p2: 0.6, margin: -0.05, k: 1 },
      { n: 25, D: 1, delta: -0.3, p2: 0.65, margin: 0, k: 1 },
      { n: 31, D: 0.3, delta: 0.05, p2: 0.2, margin: -0.1, k: 2 },
      { n: 40, D: 0.2, delta: 0.05, p2: 0.5, margin: -0.05, k: 1 },
      { n: 40, D: 0.1, delta: -0.02, p2: 0.9, margin: 0.02, k: 1 },
    ];
    for (const s of settings) {
      const cells = fourCells(s.D, s.delta, s.p2);
      if (cells === null) throw new Error('test setting has no 2x2 table');
      const [v, f] = bruteForce(s.n, [cells.bothRight, cells.treatmentOnly, cells.controlOnly, cells.bothWrong], s.margin, 0.05, s.k);
      const p = verdictProbabilities(
        { n: s.n, discordance: s.D, alpha: 0.05, comparisons: s.k, margin: s.margin, method: 'paired_newcombe', controlAccuracy: s.p2 },
        s.delta,
      );
      expect(Math.abs(p.validated - v)).toBeLessThan(1e-12);
      expect(Math.abs(p.failed - f)).toBeLessThan(1e-12);
    }
  });

  it('both ends increase with n10 for fixed n11 and n10 + n01 (the power sums one tail per (m, a)): every table at n <= 60, samples at n = 1319', () => {
    const check = (n: number, m: number, a: number): void => {
      let prev = newcombeInterval({ n11: a, n10: 0, n01: m, n, alpha: 0.05 });
      for (let b = 1; b <= m; b++) {
        const iv = newcombeInterval({ n11: a, n10: b, n01: m - b, n, alpha: 0.05 });
        expect(iv.lower).toBeGreaterThanOrEqual(prev.lower);
        expect(iv.upper).toBeGreaterThanOrEqual(prev.upper);
        prev = iv;
      }
    };
    for (const n of [1, 2, 5, 13, 30, 60]) for (let m = 0; m <= n; m++) for (let a = 0; a <= n - m; a++) check(n, m, a);
    for (const m of [0, 1, 2, 50, 200, 264, 700, 1318, 1319]) for (const f of [0, 0.001, 0.3, 0.5, 0.9, 1]) check(1319, m, Math.round(f * (1319 - m)));
  });

  it('equals brute force at n = 100 too (the thresholds and the tails at a size where the windows cut)', () => {
    const cells = fourCells(0.3, 0.06, 0.55);
    if (cells === null) throw new Error('test setting has no 2x2 table');
    const [v, f] = bruteForce(100, [cells.bothRight, cells.treatmentOnly, cells.controlOnly, cells.bothWrong], 0, 0.05, 1);
    const p = verdictProbabilities({ n: 100, discordance: 0.3, alpha: 0.05, margin: 0, method: 'paired_newcombe', controlAccuracy: 0.55 }, 0.06);
    expect(Math.abs(p.validated - v)).toBeLessThan(1e-12);
    expect(Math.abs(p.failed - f)).toBeLessThan(1e-12);
  });

  it('depends on the control accuracy (the concordant split), which the discordant-count methods ignore', () => {
    const design = { n: 300, discordance: 0.2, alpha: 0.05, margin: -0.05 };
    const at = (p2: number, method: 'paired_newcombe' | 'paired_tango'): number => verdictProbabilities({ ...design, method, controlAccuracy: p2 }, 0).validated;
    expect(at(0.5, 'paired_newcombe')).not.toBeCloseTo(at(0.85, 'paired_newcombe'), 6);
    expect(at(0.5, 'paired_tango')).toBe(at(0.85, 'paired_tango'));
  });

  it('n = 1319, D = 0.2: the power figure is a probability near the study design (speed: bench/, not here)', () => {
    const p = verdictProbabilities({ n: 1319, discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_newcombe' }, 0);
    expect(p.validated).toBeGreaterThan(0.9);
    expect(p.validated).toBeLessThanOrEqual(1);
  });

  it('refuses a control accuracy no 2x2 table has, and one outside [0, 1]; the power table leaves such rows out', () => {
    const design = { n: 100, discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_newcombe' as const };
    const e = thrown(() => verdictProbabilities({ ...design, controlAccuracy: 0.95 }, 0));
    expect(e.code).toBe('bad_control_accuracy');
    expect(e.field).toBe('controlAccuracy');
    expect(thrown(() => verdictProbabilities({ ...design, controlAccuracy: 1.5 }, 0)).code).toBe('bad_control_accuracy');
    // p2 = 0.9: p11 = 0.9 - (0.2 - delta)/2 = 0.8 + delta/2 must be <= 1 - D = 0.8, so delta <= 0 only.
    const rows = powerTable({ n: 100, discordance: 0.2, alpha: 0.05, margin: -0.05, controlAccuracy: 0.9 }, ['paired_newcombe', 'paired_tango']);
    expect(rows.filter((r) => r.method === 'paired_newcombe').map((r) => r.difference)).toEqual([-0.05, -0.04, -0.03, -0.02, -0.01, 0]);
    expect(rows.filter((r) => r.method === 'paired_tango')).toHaveLength(11);
  });

  it('observed thresholds and n for 80% power exist at the study design', () => {
    const design = { discordance: 0.2, alpha: 0.05, margin: -0.05, method: 'paired_newcombe' as const };
    const t = observedThresholds({ ...design, n: 1319 });
    expect(t.discordant).toBe(264);
    expect(t.validatesAt).not.toBeNull();
    expect(t.validatesAt as number).toBeLessThan(0);
    const n80 = nForPower(design) as number;
    expect(verdictProbabilities({ ...design, n: n80 }, 0).validated).toBeGreaterThanOrEqual(0.8);
    expect(n80).toBeLessThan(1000);
  });
});
