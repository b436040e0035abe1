// The lr_grid / lr_selection fields (src/study/lr-grid.ts): what loadStudySpec accepts and refuses, and the selection
// rule max_mean_heldout_accuracy with ties to the lower learning rate, against hand-computed picks.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Problems } from '../../src/internal/spec-problems.js';
import { collectLrGrid, selectLr } from '../../src/study/lr-grid.js';
import { loadStudySpec } from '../../src/study/spec.js';

const SELECTION = { split: { from: 'train', items: 200 }, rule: 'max_mean_heldout_accuracy', ties: 'lower_lr' };
const paths = (raw: Record<string, unknown>): string[] => {
  const p = new Problems();
  collectLrGrid(p, raw);
  return p.list.map((x) => x.path);
};

describe('lr_grid and lr_selection in a spec', () => {
  it('accepts specs/arith-lr.json and leaves a spec without grids as it was', () => {
    const spec = loadStudySpec(readFileSync('specs/arith-lr.json', 'utf8'));
    expect(spec.arms.map((a) => a.lr_grid)).toEqual([
      [5e-5, 1.5e-4],
      [5e-5, 1.5e-4],
      [5e-5, 1.5e-4],
    ]);
    expect(paths(JSON.parse(readFileSync('specs/arith-ablation.json', 'utf8')) as Record<string, unknown>)).toEqual([]);
  });

  it('names every refused field', () => {
    expect(paths({ arms: [{ lr_grid: [1e-4] }], lr_selection: SELECTION })).toEqual(['arms[0].lr_grid']);
    expect(paths({ arms: [{ lr_grid: [-1e-4, 1e-4] }], lr_selection: SELECTION })).toEqual(['arms[0].lr_grid[0]']);
    expect(paths({ arms: [{ lr_grid: [1e-4, 1e-4] }], lr_selection: SELECTION })).toEqual(['arms[0].lr_grid[1]']);
    expect(paths({ arms: [{ lr_grid: [1e-4, 3e-4], lr: 2e-4 }], lr_selection: SELECTION })).toEqual(['arms[0].lr']);
    expect(paths({ arms: [{ lr_grid: [1e-4, 3e-4] }] })).toEqual(['lr_selection']);
    expect(paths({ arms: [{}], lr_selection: SELECTION })).toEqual(['lr_selection']);
    expect(paths({ arms: [{ lr_grid: [1e-4, 3e-4] }], lr_selection: { ...SELECTION, split: { from: 'train', items: 0 } } })).toEqual(['lr_selection.split.items']);
    expect(paths({ arms: [{ lr_grid: [1e-4, 3e-4] }], lr_selection: { ...SELECTION, extra: 1 } })).toEqual(['lr_selection.extra']);
  });
});

describe('selectLr (max_mean_heldout_accuracy, ties to lower_lr)', () => {
  const s = (seed: number, correct: number, n = 200): { seed: number; correct: number; n: number } => ({ seed, correct, n });

  it('picks the higher mean over seeds, not the best single seed', () => {
    // lr 0: 100, 100, 100 -> 0.5; lr 1: 150, 40, 100 -> 0.4833 (its best seed is the best of all).
    const pick = selectLr([1e-4, 3e-4], [[s(0, 100), s(1, 100), s(2, 100)], [s(0, 150), s(1, 40), s(2, 100)]]);
    expect(pick.index).toBe(0);
    expect(pick.means[1]).toBeCloseTo(290 / 600, 15);
  });

  it('sends an exact tie to the lower learning rate, and says so', () => {
    const pick = selectLr([1e-4, 3e-4, 1e-3], [[s(0, 90), s(1, 110)], [s(0, 110), s(1, 90)], [s(0, 50), s(1, 50)]]);
    expect(pick.index).toBe(0);
    expect(pick.reason).toMatch(/^tie at the highest mean held-out accuracy over 2 seeds .*the lower learning rate, 0.0001$/);
  });

  it('picks a higher learning rate when it is strictly better', () => {
    expect(selectLr([1e-4, 3e-4, 1e-3], [[s(0, 90)], [s(0, 91)], [s(0, 91)]]).index).toBe(1);
  });
});
