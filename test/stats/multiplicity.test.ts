// Holm's step-down with intervals and Bonferroni (docs/method.md section 5.10), against Holm on p-values.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { bonferroni, holmStepDown } from '../../src/stats/multiplicity.js';
import type { Verdict } from '../../src/stats/verdict.js';

/** Holm on p-values as Holm (1979) states it: sort, reject H(j) while p(j) < alpha / (K - j + 1). */
function holmByPValues(p: readonly number[], alpha: number): boolean[] {
  const order = p.map((_, i) => i).sort((a, b) => (p[a] as number) - (p[b] as number));
  const reject = p.map(() => false);
  for (const [j, i] of order.entries()) {
    if ((p[i] as number) >= alpha / (p.length - j)) break;
    reject[i] = true;
  }
  return reject;
}

describe('holmStepDown', () => {
  it('rejects exactly what Holm on p-values rejects when a level-a decision is "p < a" (random p-values, K = 1..6)', () => {
    const rng = seedrandom('rl-adv/test/holm');
    for (let trial = 0; trial < 2000; trial++) {
      const K = 1 + Math.floor(rng() * 6);
      // A mix of tiny and ordinary p-values, and some exactly at a threshold.
      const p = Array.from({ length: K }, () => (rng() < 0.5 ? rng() * 0.05 : rng()));
      if (trial % 7 === 0) p[0] = 0.05 / K;
      const steps = holmStepDown(K, 0.05, (i, a) => ({ verdict: ((p[i] as number) < a ? 'validated' : 'inconclusive') as Verdict }));
      expect(steps.map((s) => s.decision.verdict === 'validated')).toEqual(holmByPValues(p, 0.05));
      // Round r runs at alpha / m, m = the comparisons not decided in rounds before r.
      for (const s of steps) {
        const open = K - steps.filter((o) => o.round < s.round && o.decision.verdict !== 'inconclusive').length;
        expect(s.alpha).toBe(0.05 / open);
      }
    }
  });

  it('keeps a failed verdict as decided, and an open comparison at its last round', () => {
    const verdicts: Record<number, Verdict> = { 0: 'failed', 1: 'inconclusive', 2: 'inconclusive' };
    const out = holmStepDown(3, 0.05, (i, a) => ({ verdict: i === 1 && a >= 0.05 / 2 ? 'validated' : (verdicts[i] as Verdict), a }));
    expect(out.map((o) => [o.decision.verdict, o.alpha, o.round])).toEqual([
      ['failed', 0.05 / 3, 1],
      ['validated', 0.05 / 2, 2],
      ['inconclusive', 0.05, 3],
    ]);
  });

  it('Bonferroni decides each at alpha / K; both refuse K < 1 and alpha outside (0, 1)', () => {
    expect(bonferroni(4, 0.05, () => ({ verdict: 'inconclusive' as Verdict })).map((o) => o.alpha)).toEqual([0.0125, 0.0125, 0.0125, 0.0125]);
    expect(() => holmStepDown(0, 0.05, () => ({ verdict: 'inconclusive' as Verdict }))).toThrow(/comparisons must be an integer >= 1/);
    expect(() => bonferroni(2, 1, () => ({ verdict: 'inconclusive' as Verdict }))).toThrow(/alpha must be in \(0, 1\)/);
  });
});
