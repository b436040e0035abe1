// decision_rule.comparisons (docs/study.md, "Several arms"): validated against the arms, every problem named by path.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { comparisonRule } from '../../src/study/comparisons.js';
import { studyArms } from '../../src/study/setup.js';
import { loadStudySpec, StudySpecError } from '../../src/study/spec.js';
import { repoRoot, specPath } from '../helpers/paths.js';

type Spec = Record<string, unknown> & { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };

const threeArms = (comparisons: unknown, arms?: Record<string, unknown>[]): Spec => {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as Spec;
  spec.arms = arms ?? [...spec.arms, { ...(spec.arms[1] as Record<string, unknown>), name: 'batchmean_g1', advantage: 'loo_batch_mean' }];
  if (comparisons !== undefined) spec.decision_rule = { ...spec.decision_rule, comparisons };
  return spec;
};

const ok = [
  { id: 'gs1_vs_grpo', treatment: 'gs1_tfidf_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'bm_vs_grpo', treatment: 'batchmean_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'gs1_vs_bm', treatment: 'gs1_tfidf_g1', reference: 'batchmean_g1', kind: 'superiority', metric: 'accuracy' },
];

function problems(spec: Spec): { path: string; message: string }[] {
  try {
    loadStudySpec(spec);
  } catch (error) {
    if (error instanceof StudySpecError) return [...error.problems];
    throw error;
  }
  throw new Error('the spec was accepted');
}

describe('decision_rule.comparisons', () => {
  it('reads each comparison, superiority with margin 0, and names the kernel and group_mean arms for the gate', () => {
    const spec = loadStudySpec(threeArms(ok));
    expect(spec.comparisons).toEqual([ok[0], ok[1], { ...ok[2], margin: 0 }]);
    const { treatment, baseline } = studyArms(spec);
    expect([treatment.name, baseline.name]).toEqual(['gs1_tfidf_g1', 'grpo_g8']);
    const rule = comparisonRule(spec.decisionRule, spec.comparisons?.[2] as never, 0.025);
    expect(rule.alpha).toBe(0.025);
    expect(rule.criteria).toEqual([{ id: 'gs1_vs_bm', metric: 'accuracy', bounds: [0, 1], margin: 0, weights: { treatment: 1, baseline: -1 } }]);
  });

  it('a spec without it keeps the two-arm meaning (no comparisons key) and a third arm without it is refused', () => {
    const two = loadStudySpec(readFileSync(specPath, 'utf8'));
    expect('comparisons' in two).toBe(false);
    expect(problems(threeArms(undefined))).toEqual([{ path: 'arms', message: expect.stringMatching(/holds 3 arms: .*needs decision_rule\.comparisons/) as string }]);
  });

  it('refuses an unknown arm, an arm in no comparison, a margin on superiority, a missing margin, a bad kind, an unknown metric, a repeated id', () => {
    const at = (i: number, f: string): string => `decision_rule.comparisons[${i}].${f}`;
    expect(problems(threeArms([{ ...ok[0], treatment: 'nope' }, ok[1], ok[2]])).map((p) => p.path)).toEqual([at(0, 'treatment')]);
    // The reverse of a pair is another comparison (not a repeat): only the arm in none is refused.
    expect(problems(threeArms([ok[0], { ...ok[0], id: 'c1', treatment: 'grpo_g8', reference: 'gs1_tfidf_g1' }]))).toEqual([
      { path: 'arms[2].name', message: '"batchmean_g1" is in no comparison of decision_rule.comparisons' },
    ]);
    expect(problems(threeArms([ok[0], ok[1], { ...ok[2], margin: 0 }]))).toEqual([{ path: at(2, 'margin'), message: expect.stringMatching(/absent for a superiority/) as string }]);
    expect(problems(threeArms([{ ...ok[0], margin: undefined }, ok[1], ok[2]])).map((p) => p.path)).toEqual([at(0, 'margin')]);
    expect(problems(threeArms([{ ...ok[0], kind: 'equivalence' }, ok[1], ok[2]])).map((p) => p.path)).toEqual([at(0, 'kind')]);
    expect(problems(threeArms([{ ...ok[0], metric: 'loss' }, ok[1], ok[2]])).map((p) => p.path)).toEqual([at(0, 'metric')]);
    expect(problems(threeArms([ok[0], { ...ok[1], id: 'gs1_vs_grpo' }, ok[2]])).map((p) => p.path)).toEqual([at(1, 'id')]);
    expect(problems(threeArms([{ ...ok[0], reference: 'gs1_tfidf_g1' }, ok[1], ok[2]])).map((p) => p.path)).toEqual([at(0, 'reference')]);
    expect(problems(threeArms([])).map((p) => p.path)).toEqual(['decision_rule.comparisons']);
  });

  it('a non-inferiority margin must be below 0, or 0 and above with margin_reason (kept on the comparison)', () => {
    const at = (i: number, f: string): string => `decision_rule.comparisons[${i}].${f}`;
    for (const margin of [0, 0.02]) {
      expect(problems(threeArms([ok[0], { ...ok[1], margin }, ok[2]]))).toEqual([{ path: at(1, 'margin'), message: expect.stringMatching(new RegExp(`^must be below 0 for a non-inferiority comparison .*got ${margin}; .*margin_reason$`)) as string }]);
    }
    const reasoned = loadStudySpec(threeArms([ok[0], { ...ok[1], margin: 0, margin_reason: 'batch-mean must be at least as good: it replaces grpo' }, ok[2]]));
    expect(reasoned.comparisons?.[1]).toEqual({ ...ok[1], margin: 0, margin_reason: 'batch-mean must be at least as good: it replaces grpo' });
    expect('margin_reason' in (reasoned.comparisons?.[0] as object)).toBe(false);
    expect(problems(threeArms([ok[0], { ...ok[1], margin: 0, margin_reason: '' }, ok[2]])).map((p) => p.path)).toEqual([at(1, 'margin_reason')]);
    expect(problems(threeArms([ok[0], ok[1], { ...ok[2], margin_reason: 'why' }])).map((p) => p.path)).toEqual([at(2, 'margin_reason')]);
  });

  it('refuses an unknown field by name, suggesting the field meant, and one ordered pair compared twice', () => {
    const { margin, ...rest } = ok[0] as Record<string, unknown>;
    expect(problems(threeArms([{ ...rest, marign: margin }, ok[1], ok[2]]))).toEqual([
      { path: 'decision_rule.comparisons[0].marign', message: 'is not a field of a comparison (did you mean "margin"?); the fields are id, treatment, reference, kind, margin, margin_reason, metric' },
      { path: 'decision_rule.comparisons[0].margin', message: 'must be a finite number, got undefined' },
    ]);
    expect(problems(threeArms([ok[0], ok[1], ok[2], { ...ok[1], id: 'again', kind: 'superiority', margin: undefined }]))).toEqual([
      { path: 'decision_rule.comparisons[3]', message: 'compares "batchmean_g1" with "grpo_g8" again, as decision_rule.comparisons[1] does: one comparison per ordered pair (treatment, reference)' },
    ]);
  });

  it('refuses a comparison id that cannot be a path part', () => {
    for (const id of ['../x', 'a/b', '.x', 'x'.repeat(65)]) {
      expect(problems(threeArms([{ ...ok[0], id }, ok[1], ok[2]])).map((p) => p.path)).toEqual(['decision_rule.comparisons[0].id']);
    }
  });

  it('refuses two arms of one name', () => {
    const spec = threeArms(ok);
    spec.arms[2] = { ...spec.arms[2], name: 'gs1_tfidf_g1' };
    expect(problems(spec).map((p) => p.path)).toEqual(['arms[2].name']);
  });

  it('the shipped ablation spec loads with its three arms and three comparisons', () => {
    const spec = loadStudySpec(readFileSync(path.join(repoRoot, 'specs', 'arith-ablation.json'), 'utf8'));
    expect(spec.arms.map((a) => [a.name, a.advantage, a.group_size, a.groups_per_batch])).toEqual([
      ['grpo_g8', 'group_mean', 8, 4],
      ['gs1_tfidf_g1', 'tfidf_kernel_loo_T0.1', 1, 32],
      ['batchmean_g1', 'loo_batch_mean', 1, 32],
    ]);
    expect(spec.comparisons?.map((c) => [c.id, c.kind, c.margin])).toEqual([
      ['gs1_vs_grpo', 'non_inferiority', -0.05],
      ['batchmean_vs_grpo', 'non_inferiority', -0.05],
      ['gs1_vs_batchmean', 'superiority', 0],
    ]);
    expect(spec.decisionRule.seeds?.length).toBeGreaterThanOrEqual(5);
  });
});
