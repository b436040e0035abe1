// A replicated study (decision_rule.seeds) on the sim backend: per-seed artifacts, the decision across seeds,
// learning curves and the no-arm-improved flag, --jobs 1 and --jobs 2 byte-identical, and resume per arm x seed.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStudyWithReports } from '../../src/report/write.js';
import { isSeedDecisionJson } from '../../src/stats/seeds.js';
import type { StudyOptions } from '../../src/study/run.js';
import { specPath } from '../helpers/paths.js';
import { runFiles, simStudyOptions } from '../helpers/sim-study.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-replicates-'));

/** The shipped spec with seeds 0, 3 and 7, the rule's exact unconditional method, and a learning curve. */
function replicatedSpec(dir: string, seeds: number[] = [0, 3, 7]): string {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, Record<string, unknown>>;
  spec.decision_rule = { ...spec.decision_rule, seeds, seed_method: 'seed_item_t', method: 'paired_exact_unconditional' };
  spec.eval = { ...spec.eval, curve_items: 100, curve_every: 4 };
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

const options = (spec: string, dir: string, jobs: number): StudyOptions => simStudyOptions(spec, dir, { steps: 10, jobs });

const snapshot = (dir: string): Record<string, string> => runFiles(dir);

describe('a replicated study on the sim backend', () => {
  it('trains and evaluates every arm x seed, decides across seeds, and --jobs 1 equals --jobs 2 byte for byte', async () => {
    const root = temp();
    const spec = replicatedSpec(root);
    const one = await runStudyWithReports(options(spec, path.join(root, 'one'), 1));
    await runStudyWithReports(options(spec, path.join(root, 'two'), 2));
    expect(one.exitCode).toBe(0);
    const s = one.summary;
    expect(s.replicates?.map((r) => r.seed)).toEqual([0, 3, 7]);
    for (const rep of s.replicates ?? []) {
      expect(Object.keys(rep.arms)).toEqual(['grpo_g8', 'gs1_tfidf_g1']);
      for (const arm of Object.values(rep.arms)) {
        expect(arm.reward_per_step).toHaveLength(10);
        expect(arm.curve?.map((p) => p.step)).toEqual([0, 4, 8, 10]);
        expect(arm.n).toBe(200);
      }
      expect(rep.start_accuracy).toBe(s.start?.accuracy);
      expect(rep.difference?.method).toBe('paired_exact_unconditional');
    }
    // The seeds train on different data orders and rollouts: their logs differ.
    const log = (seed: number): string => readFileSync(path.join(root, 'one', 'seeds', String(seed), 'arms', 'grpo_g8', 'advantages.jsonl'), 'utf8');
    expect(log(0)).not.toBe(log(3));
    const d = s.decision;
    expect(d && isSeedDecisionJson(d)).toBe(true);
    if (d && isSeedDecisionJson(d)) {
      expect(d.method).toBe('seed_item_t');
      expect(d.seeds).toBe(3);
      expect(d.per_seed.map((p) => p.seed)).toEqual([0, 3, 7]);
      expect(d.per_seed.map((p) => p.estimate)).toEqual(s.replicates?.map((r) => r.difference?.criteria[0]?.estimate));
    }
    expect(Object.keys(s.learning?.arms ?? {})).toEqual(['grpo_g8', 'gs1_tfidf_g1']);
    expect(s.learning?.no_arm_improved).toBe(Object.values(s.learning?.arms ?? {}).every((a) => a.interval[0] <= 0));
    const md = readFileSync(path.join(root, 'one', 'report.md'), 'utf8');
    expect(md).toContain(`## Decision across seeds: ${s.decision?.verdict}`);
    expect(md).toMatch(/## Learning/);
    const html = readFileSync(path.join(root, 'one', 'report.html'), 'utf8');
    expect(html).toContain('aria-label="Learning curves per arm and seed"');
    expect(html).toContain('aria-label="Treatment minus baseline per seed and across seeds"');
    expect(snapshot(path.join(root, 'two'))).toEqual(snapshot(path.join(root, 'one')));
  });

  it('resumes a run whose arm x seed jobs were lost and gets the same artifacts; changed seeds are refused', async () => {
    const root = temp();
    const spec = replicatedSpec(root, [1, 2]);
    const dir = path.join(root, 'run');
    await runStudyWithReports(options(spec, dir, 2));
    const before = snapshot(dir);
    // Lose one seed's GS1 arm and its eval, and the phases after the arms: --resume recomputes them only.
    rmSync(path.join(dir, 'seeds', '2', 'arms', 'gs1_tfidf_g1'), { recursive: true });
    rmSync(path.join(dir, 'seeds', '2', 'eval'), { recursive: true });
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { phases: Record<string, unknown> };
    for (const p of ['arms', 'eval', 'decision']) delete summary.phases[p];
    writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
    await runStudyWithReports({ ...options(spec, dir, 1), resume: true });
    expect(existsSync(path.join(dir, 'seeds', '2', 'eval', 'gs1_tfidf_g1.jsonl'))).toBe(true);
    expect(snapshot(dir)).toEqual(before);
    // Other seeds are another spec: the folder is refused, nothing in it touched.
    const other = replicatedSpec(path.join(root), [1, 5]);
    await expect(runStudyWithReports({ ...options(other, dir, 1), resume: true })).rejects.toThrow(/another run|spec/);
    expect(snapshot(dir)).toEqual(before);
  });

  it('refuses repeated seeds and --jobs below 1 before touching the folder', async () => {
    const root = temp();
    const dir = path.join(root, 'run');
    await expect(runStudyWithReports(options(replicatedSpec(root, [1, 1]), dir, 1))).rejects.toThrow(/decision_rule\.seeds/);
    await expect(runStudyWithReports(options(replicatedSpec(root), dir, 0))).rejects.toThrow(/--jobs must be an integer >= 1/);
    expect(existsSync(dir)).toBe(false);
  });
});
