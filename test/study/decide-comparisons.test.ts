// decideComparisons (docs/method.md section 5.10): each comparison carries the seed-level decision's named SDs, its
// level, its fallback and its outlying seeds, and the report's answer states them.
import { readFileSync } from 'node:fs';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { decideComparisons, type ArmSeedRows } from '../../src/study/decide-comparisons.js';
import { loadStudySpec } from '../../src/study/spec.js';
import { answerSection } from '../../src/report/comparison-sections.js';
import type { StudySummary } from '../../src/study/summary.js';
import { specPath } from '../helpers/paths.js';

type Spec = Record<string, unknown> & { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };

const comparisons = [
  { id: 'gs1_vs_grpo', treatment: 'gs1_tfidf_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'bm_vs_grpo', treatment: 'batchmean_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'gs1_vs_bm', treatment: 'gs1_tfidf_g1', reference: 'batchmean_g1', kind: 'superiority', metric: 'accuracy' },
];

function spec() {
  const raw = JSON.parse(readFileSync(specPath, 'utf8')) as Spec;
  raw.arms = [...raw.arms, { ...(raw.arms[1] as Record<string, unknown>), name: 'batchmean_g1', advantage: 'loo_batch_mean' }];
  raw.decision_rule = { ...raw.decision_rule, comparisons };
  return loadStudySpec(raw);
}

/** n items per seed, item i correct when correctAt(seed, i). */
const rows = (seeds: number, n: number, correctAt: (s: number, i: number) => boolean) =>
  Array.from({ length: seeds }, (_, s) => Array.from({ length: n }, (_, i) => ({ item_id: `q${i}`, correct: correctAt(s, i) })));

describe('decideComparisons across seeds', () => {
  it('names the two SDs apart and gives the level 1 - alpha of each Holm round', () => {
    const rng = seedrandom('decide-comparisons');
    const arm = (p: number) => rows(4, 200, () => rng() < p);
    const rowsOf: ArmSeedRows = new Map([
      ['grpo_g8', arm(0.5)],
      ['gs1_tfidf_g1', arm(0.52)],
      ['batchmean_g1', arm(0.5)],
    ]);
    const { comparisons: out } = decideComparisons(spec(), [0, 1, 2, 3], rowsOf);
    for (const c of out) {
      expect(c.level).toBeCloseTo(1 - c.alpha, 15);
      expect(c.per_seed_difference_sd).toBeGreaterThan(0);
      expect(c.run_to_run_sd).toBeGreaterThanOrEqual(0);
      expect(c.run_to_run_sd as number).toBeLessThanOrEqual(c.per_seed_difference_sd as number);
      expect(c).not.toHaveProperty('between_seed_sd');
    }
  });

  it('a comparison whose seeds all give the same differences has no interval, is inconclusive, and the answer says so', () => {
    // Every seed the same rows in every arm: no variance can be estimated for any comparison.
    const same = rows(3, 3, () => true);
    const rowsOf: ArmSeedRows = new Map([
      ['grpo_g8', same],
      ['gs1_tfidf_g1', same],
      ['batchmean_g1', same],
    ]);
    const { comparisons: out, multiplicity } = decideComparisons(spec(), [0, 1, 2], rowsOf);
    for (const c of out) {
      expect(c.verdict).toBe('inconclusive');
      expect(c.fallback?.rule).toBe('whole_range');
    }
    const section = answerSection({ comparisons: out, multiplicity } as unknown as StudySummary);
    const text = JSON.stringify(section);
    expect(text).toContain('gs1_vs_grpo: no interval');
  });
});
