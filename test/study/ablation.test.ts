// A study with three arms and decision_rule.comparisons on the sim backend (docs/study.md, "Several arms"): every
// arm x seed through the scheduler, every comparison decided across seeds under Holm, resumable; a changed set of arms
// or comparisons is refused with nothing lost.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runStudyWithReports } from '../../src/report/write.js';
import { decideAcrossSeeds } from '../../src/stats/seeds.js';
import { comparisonRule } from '../../src/study/comparisons.js';
import type { StudyOptions } from '../../src/study/run.js';
import { loadStudySpec } from '../../src/study/spec.js';
import { readJsonl, specPath } from '../helpers/paths.js';
import { runFiles, simStudyOptions } from '../helpers/sim-study.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-ablation-'));

const COMPARISONS: object[] = [
  { id: 'gs1_vs_grpo', treatment: 'gs1_tfidf_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'batchmean_vs_grpo', treatment: 'batchmean_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'gs1_vs_batchmean', treatment: 'gs1_tfidf_g1', reference: 'batchmean_g1', kind: 'superiority', metric: 'accuracy' },
];

/** The shipped spec with a third arm (the LOO batch mean at G = 1), three comparisons, the given seeds and a curve. */
function ablationSpec(dir: string, seeds: number[] = [0, 3, 7], comparisons: object[] = COMPARISONS, name = 'spec.json'): string {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, unknown> & { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };
  spec.arms.push({ ...(spec.arms[1] as Record<string, unknown>), name: 'batchmean_g1', advantage: 'loo_batch_mean' });
  spec.decision_rule = { ...spec.decision_rule, seeds, seed_method: 'seed_item_t', method: 'paired_exact_unconditional', comparisons };
  spec.eval = { ...(spec.eval as object), curve_items: 100, curve_every: 4 };
  const file = path.join(dir, name);
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

const options = (spec: string, dir: string, jobs: number): StudyOptions => simStudyOptions(spec, dir, { jobs });

const snapshot = (dir: string): Record<string, string> => runFiles(dir);

describe('a three-arm study on the sim backend', () => {
  it('trains and evaluates every arm x seed and decides every comparison across seeds under Holm; resumes to the same bytes', async () => {
    const root = temp();
    const file = ablationSpec(root);
    const dir = path.join(root, 'run');
    const { exitCode, summary: s } = await runStudyWithReports(options(file, dir, 2));
    expect(exitCode).toBe(0);
    expect(s.replicates?.map((r) => Object.keys(r.arms))).toEqual([0, 3, 7].map(() => ['grpo_g8', 'gs1_tfidf_g1', 'batchmean_g1']));
    expect(s.decision).toBeUndefined();
    expect(s.multiplicity).toMatchObject({ procedure: 'holm', alpha: 0.05, comparisons: 3, per_seed_procedure: 'bonferroni' });
    expect(s.comparisons?.map((c) => [c.id, c.kind, c.margin])).toEqual([
      ['gs1_vs_grpo', 'non_inferiority', -0.05],
      ['batchmean_vs_grpo', 'non_inferiority', -0.05],
      ['gs1_vs_batchmean', 'superiority', 0],
    ]);
    // Each comparison's figures are decideAcrossSeeds' on its own two arms' eval files at the level Holm reached.
    const spec = loadStudySpec(readFileSync(file, 'utf8'));
    for (const [i, c] of (s.comparisons ?? []).entries()) {
      expect([0.05 / 3, 0.05 / 2, 0.05]).toContain(c.alpha);
      const reps = [0, 3, 7].map((seed) => ({
        seed,
        treatment: readJsonl<{ item_id: string; correct: boolean }>(path.join(dir, 'seeds', String(seed), 'eval', `${c.treatment}.jsonl`)),
        baseline: readJsonl<{ item_id: string; correct: boolean }>(path.join(dir, 'seeds', String(seed), 'eval', `${c.reference}.jsonl`)),
      }));
      const d = decideAcrossSeeds({ replicates: reps, rule: comparisonRule(spec.decisionRule, spec.comparisons?.[i] as never, c.alpha) });
      expect([c.estimate, c.interval, c.verdict, c.method]).toEqual([d.estimate, [...d.interval], d.verdict, 'seed_item_t']);
      expect(c.per_seed.map((p) => p.seed)).toEqual([0, 3, 7]);
      expect(c.per_seed.every((p) => p.alpha === 0.05 / 3)).toBe(true);
      expect(c.per_seed.map((p) => p.estimate).reduce((a, b) => a + b, 0) / 3).toBeCloseTo(c.estimate, 12);
    }
    const decision = JSON.parse(readFileSync(path.join(dir, 'decision.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(decision)).toEqual(['comparisons', 'multiplicity', 'learning']);
    expect(Object.keys(s.learning?.arms ?? {})).toEqual(['grpo_g8', 'gs1_tfidf_g1', 'batchmean_g1']);
    expect(s.phases.decision?.result).toMatch(/^holm over 3 comparisons across 3 seeds: gs1_vs_grpo (validated|failed|inconclusive)/);

    // Lose one seed's batch-mean arm and its evals and the phases after the arms: --resume recomputes them only.
    const before = snapshot(dir);
    rmSync(path.join(dir, 'seeds', '3', 'arms', 'batchmean_g1'), { recursive: true });
    rmSync(path.join(dir, 'seeds', '3', 'eval'), { recursive: true });
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { phases: Record<string, unknown> };
    for (const p of ['arms', 'eval', 'decision']) delete summary.phases[p];
    writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
    await runStudyWithReports({ ...options(file, dir, 1), resume: true });
    expect(existsSync(path.join(dir, 'seeds', '3', 'eval', 'batchmean_g1.jsonl'))).toBe(true);
    expect(snapshot(dir)).toEqual(before);

    // Other comparisons, or another set of arms, are another run: refused, nothing in the folder touched.
    const fewer = ablationSpec(root, [0, 3, 7], [COMPARISONS[0] as object, { ...COMPARISONS[1], margin: -0.1 }, COMPARISONS[2] as object], 'other.json');
    await expect(runStudyWithReports({ ...options(fewer, dir, 1), resume: true })).rejects.toThrow(/another run|spec/);
    const twoArms = path.join(root, 'two.json');
    writeFileSync(twoArms, readFileSync(specPath, 'utf8'));
    await expect(runStudyWithReports({ ...options(twoArms, dir, 1), resume: true })).rejects.toThrow(/another run|spec/);
    expect(snapshot(dir)).toEqual(before);
    // The answer first, then the run; the comparisons with their table; the same sections in both reports.
    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    const headings = md.split('\n').filter((l) => l.startsWith('## '));
    expect(headings.slice(0, 2)).toEqual(['## Answer', '## What was run']);
    expect(headings).toContain(`## Comparisons: ${(s.comparisons ?? []).map((c) => `${c.id} ${c.verdict}`).join(', ')}`);
    for (const c of s.comparisons ?? []) expect(md).toContain(`**${c.id}: ${c.verdict}**`);
    expect(md).toContain("**Holm's step-down**");
    // What each comparison's design can conclude (issue 41), not the first only; the first's is design_power as before.
    expect(s.comparisons_design_power?.map((c) => c.id)).toEqual(['gs1_vs_grpo', 'batchmean_vs_grpo', 'gs1_vs_batchmean']);
    expect(s.comparisons_design_power?.[0]?.design_power).toEqual(s.design_power);
    expect(s.comparisons_design_power?.[0]?.seed_design_power).toEqual(s.seed_design_power);
    for (const c of s.comparisons_design_power ?? []) {
      expect(c.alpha).toBe(0.05 / 3);
      expect(c.seed_design_power).toMatchObject({ seeds: 3, alpha: 0.05 / 3 });
      expect(md).toContain(`**${c.id}** (${c.treatment} − ${c.reference}), planned at alpha`);
    }
    // Every seed-level verdict carries the collapse rate 3 seeds cannot rule out (issue 39).
    for (const c of s.comparisons ?? []) expect(c.collapse_rate_not_ruled_out).toBeCloseTo(1 - 0.05 ** (1 / 3), 15);
    expect(md).toContain('Collapse: 3 seeds cannot rule out a collapse rate up to 0.63 per run');
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html.match(/<h2>[^<]*/g)?.map((h) => h.slice(4).trim())).toEqual(headings.map((h) => h.slice(3)));
    expect(html).toContain('aria-label="Each comparison across seeds and each seed"');
    expect(html).toContain('aria-label="Learning curves per arm and seed"');
  });
});
