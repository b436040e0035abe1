// A study with lr_grid arms on the sim backend (docs/study.md, "Learning-rate grids"): every arm x seed trained at
// every learning rate of its grid, each scored on the held-out split of train, one learning rate picked per arm by the
// spec's rule; only the picked runs are evaluated on test and decided. A resume with another grid or rule is refused
// with nothing lost.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStudyWithReports } from '../../src/report/write.js';
import { selectLr } from '../../src/study/lr-grid.js';
import type { StudyOptions } from '../../src/study/run.js';
import { readJsonl, specPath } from '../helpers/paths.js';
import { runFiles, simStudyOptions } from '../helpers/sim-study.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-lr-grid-'));
const GRID = [3e-5, 3e-4];

/** The shipped two-arm spec with a third arm, three comparisons, 2 seeds, a curve, and a two-LR grid on every arm. */
function gridSpec(dir: string, change: (s: Record<string, unknown>) => void = () => undefined, name = 'spec.json'): string {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, unknown> & { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };
  spec.arms.push({ ...(spec.arms[1] as Record<string, unknown>), name: 'batchmean_g1', advantage: 'loo_batch_mean' });
  for (const arm of spec.arms) {
    arm.lr = GRID[0];
    arm.lr_grid = GRID;
  }
  spec.lr_selection = { split: { from: 'train', items: 150 }, rule: 'max_mean_heldout_accuracy', ties: 'lower_lr' };
  spec.decision_rule = {
    ...spec.decision_rule,
    seeds: [0, 1],
    seed_method: 'seed_item_t',
    method: 'paired_exact_unconditional',
    comparisons: [
      { id: 'gs1_vs_grpo', treatment: 'gs1_tfidf_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
      { id: 'batchmean_vs_grpo', treatment: 'batchmean_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
      { id: 'gs1_vs_batchmean', treatment: 'gs1_tfidf_g1', reference: 'batchmean_g1', kind: 'superiority', metric: 'accuracy' },
    ],
  };
  spec.eval = { ...(spec.eval as object), curve_items: 100, curve_every: 4 };
  change(spec);
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

const options = (spec: string, dir: string, extra: Partial<StudyOptions> = {}): StudyOptions => ({ ...simStudyOptions(spec, dir), ...extra });

/** Every byte of the run folder (nothing lost). */
const snapshot = (dir: string): Record<string, string> => runFiles(dir, { wallTimesAside: false });

describe('a study with lr_grid arms on the sim backend', () => {
  const root = temp();
  const dir = path.join(root, 'run');

  it('trains every LR, scores each on held-out train, picks by the rule and evaluates only the picked LR on test', async () => {
    const file = gridSpec(root);
    const { exitCode, summary: s } = await runStudyWithReports(options(file, dir));
    expect(exitCode).toBe(0);
    const sel = s.lr_selection;
    expect(sel).toBeDefined();
    if (sel === undefined) return;
    expect(sel.split).toMatchObject({ from: 'train', items: 150, overlap: { training: 0, calibration: 0, tuning: 0, test: 0 } });
    for (const arm of ['grpo_g8', 'gs1_tfidf_g1', 'batchmean_g1']) {
      const a = sel.arms[arm];
      expect(a?.grid).toEqual(GRID);
      for (const [i, lr] of GRID.entries()) {
        for (const seed of [0, 1]) {
          const runDir = path.join(dir, 'seeds', String(seed), 'arms', arm, `lr-${i}`);
          expect(existsSync(path.join(runDir, 'advantages.jsonl'))).toBe(true);
          expect(readJsonl(path.join(runDir, 'heldout.jsonl'))).toHaveLength(150);
        }
        expect(a?.lrs[i]?.lr).toBe(lr);
        expect(a?.lrs[i]?.seeds.map((x) => x.seed)).toEqual([0, 1]);
      }
      // The pick is the rule's on the recorded scores.
      const pick = selectLr(GRID, a?.lrs.map((l) => l.seeds) ?? []);
      expect(a?.picked_index).toBe(pick.index);
      expect(a?.picked_lr).toBe(GRID[pick.index]);
      // Only the picked LR's checkpoints are evaluated on test, and the replicates describe them.
      for (const rep of s.replicates ?? []) expect(rep.arms[arm]?.lr).toBe(a?.picked_lr);
    }
    // The held-out split is no seed's training task: its rows are absent from every LR run's advantage log.
    const rows = new Set((JSON.parse(readFileSync(path.join(dir, 'lr_selection.json'), 'utf8')) as { split: { rows: number[] } }).split.rows);
    expect(rows.size).toBe(150);
    const heldIds = new Set(readJsonl<{ item_id: string }>(path.join(dir, 'seeds', '0', 'arms', 'grpo_g8', 'lr-0', 'heldout.jsonl')).map((r) => r.item_id));
    for (const seed of [0, 1]) {
      for (const arm of ['grpo_g8', 'gs1_tfidf_g1']) {
        const trained = readJsonl<{ task_ids: string[] }>(path.join(dir, 'seeds', String(seed), 'arms', arm, 'lr-1', 'advantages.jsonl')).flatMap((r) => r.task_ids);
        expect(trained.filter((id) => heldIds.has(id))).toEqual([]);
      }
    }
    // The two LRs train differently from the same start (the sim's update is lr x its scale).
    const low = readJsonl<{ rewards: number[] }>(path.join(dir, 'seeds', '0', 'arms', 'gs1_tfidf_g1', 'lr-0', 'advantages.jsonl'));
    const high = readJsonl<{ rewards: number[] }>(path.join(dir, 'seeds', '0', 'arms', 'gs1_tfidf_g1', 'lr-1', 'advantages.jsonl'));
    expect(low[0]?.rewards).toEqual(high[0]?.rewards);
    expect(low.map((r) => r.rewards)).not.toEqual(high.map((r) => r.rewards));
    expect(s.comparisons?.length).toBe(3);
    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(md).toContain('## Learning rates: picked on held-out train');
    expect(readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('aria-label="Learning curves per arm and learning rate"');
  }, 120_000);

  it('refuses a resume whose grid or selection rule differ, with nothing in the folder touched', async () => {
    const before = snapshot(dir);
    const otherGrid = gridSpec(root, (s) => {
      for (const arm of s.arms as Record<string, unknown>[]) arm.lr_grid = [3e-5, 1e-4];
    }, 'other-grid.json');
    const otherSplit = gridSpec(root, (s) => {
      s.lr_selection = { split: { from: 'train', items: 151 }, rule: 'max_mean_heldout_accuracy', ties: 'lower_lr' };
    }, 'other-split.json');
    for (const file of [otherGrid, otherSplit]) {
      await expect(runStudyWithReports({ ...options(file, dir), resume: true })).rejects.toMatchObject({ code: 'resume_mismatch', message: expect.stringMatching(/different spec_sha256, lr_grid/) as unknown });
    }
    expect(snapshot(dir)).toEqual(before);
  }, 60_000);
});
