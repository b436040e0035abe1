// rl-adv study on a spec with decision_rule.comparisons: bad comparisons exit 2 naming the field and its line, before
// any folder is made; a three-arm quick run prints every comparison's verdict first.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { specPath } from '../helpers/paths.js';
import { rlAdv } from './run.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-comparisons-'));

function threeArmSpec(dir: string, comparisons: object[]): string {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };
  spec.arms.push({ ...(spec.arms[1] as Record<string, unknown>), name: 'batchmean_g1', advantage: 'loo_batch_mean' });
  spec.decision_rule.comparisons = comparisons;
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  return file;
}

const OK: object[] = [
  { id: 'gs1_vs_grpo', treatment: 'gs1_tfidf_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'bm_vs_grpo', treatment: 'batchmean_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
  { id: 'gs1_vs_bm', treatment: 'gs1_tfidf_g1', reference: 'batchmean_g1', kind: 'superiority', metric: 'accuracy' },
];

describe('rl-adv study with decision_rule.comparisons', () => {
  it('refuses an unknown arm and a margin on superiority: exit 2, FILE:LINE and the field, no folder', async () => {
    const root = temp();
    const file = threeArmSpec(root, [{ ...OK[0], treatment: 'nope' }, OK[1] as object, { ...OK[2], margin: 0 }]);
    const out = path.join(root, 'out');
    const r = await rlAdv(['study', '--spec', file, '--out', out, '--sim-questions', 'clustered']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${file}:\\d+: field "decision_rule\\.comparisons\\[0\\]\\.treatment": "nope" is not an arm`));
    expect(r.stderr).toMatch(new RegExp(`${file}:\\d+: field "decision_rule\\.comparisons\\[2\\]\\.margin": must be absent for a superiority comparison`));
    expect(existsSync(out)).toBe(false);
  });

  it('a quick three-arm run prints every comparison and the procedure first (exit 0)', async () => {
    const root = temp();
    const file = threeArmSpec(root, OK);
    const out = path.join(root, 'out');
    const args = ['study', '--spec', file, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9', '--steps', '2', '--eval-limit', '50', '--calibration-batches', '200', '--calibration-interval', 'none'];
    const r = await rlAdv(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toMatch(/^comparisons \(bonferroni\): gs1_vs_grpo \w+, bm_vs_grpo \w+, gs1_vs_bm \w+; summary /);
  });
});
