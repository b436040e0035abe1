// The artifact manifest's parts on real files: which phase owns a path, what is recorded of a file, what is wrong
// with a damaged one, and what a rebuild removes. The whole mechanism, through the CLI, is in
// test/cli/study-torn-artifacts.test.ts.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactPhase, artifactProblem, phaseArtifacts, recordPhaseArtifacts } from '../../src/study/artifact-manifest.js';
import type { StudySummary } from '../../src/study/summary.js';
import { prepareResume, rebuildPaths } from '../../src/study/verify-resume.js';

describe('artifactPhase', () => {
  it.each([
    ['preflight.json', 'preflight'],
    ['preflight_trl.json', 'preflight'],
    ['calibration/calibration.jsonl', 'calibration'],
    ['tuning.jsonl', 'tuning'],
    ['kernel.json', 'tuning'],
    ['pilot/eval_init.jsonl', 'pilot'],
    ['pilot/grpo_g8/state.json', 'pilot'],
    ['gate.json', 'gate'],
    ['arms/grpo_g8/advantages.jsonl', 'arms'],
    ['seeds/3/arms/grpo_g8/state.json', 'arms'],
    ['seeds/3/eval/grpo_g8.jsonl', 'eval'],
    ['eval/init.jsonl', 'eval'],
    ['decision.json', 'decision'],
  ])('%s: %s', (rel, phase) => {
    expect(artifactPhase(rel)).toBe(phase);
  });

  it.each(['summary.json', 'run.json', 'report.md', 'logs/eval.log', 'trl/requests/a.jsonl', 'seeds/3/notes.json', 'eval/init.jsonl.partial'])('%s: no phase', (rel) => {
    expect(artifactPhase(rel)).toBeNull();
  });
});

describe('recording and checking a file', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-manifest-'));
  mkdirSync(path.join(dir, 'eval'));
  writeFileSync(path.join(dir, 'eval', 'init.jsonl'), '{"item_id":"a","correct":true}\n{"item_id":"b","correct":false}\n');
  writeFileSync(path.join(dir, 'gate.json'), '{"ok": true}\n');
  writeFileSync(path.join(dir, 'summary.json'), '{}');
  const summary = { phases: { eval: { status: 'done' }, gate: { status: 'done' } } } as unknown as StudySummary;
  recordPhaseArtifacts(dir, summary, 'eval');
  recordPhaseArtifacts(dir, summary, 'gate');

  it('records bytes, sha256 and rows, the phases in order', () => {
    expect(phaseArtifacts(dir, 'eval')).toEqual(['eval/init.jsonl']);
    expect(Object.keys(summary.artifacts ?? {})).toEqual(['gate.json', 'eval/init.jsonl']);
    expect(summary.artifacts?.['eval/init.jsonl']).toMatchObject({ phase: 'eval', bytes: 63, rows: 2 });
    expect(summary.artifacts?.['eval/init.jsonl']?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(summary.artifacts?.['gate.json']).not.toHaveProperty('rows');
    expect(artifactProblem(dir, 'eval/init.jsonl', summary.artifacts?.['eval/init.jsonl'])).toBeNull();
  });

  it('names a cut, a flipped answer, a torn line and a missing file', () => {
    const record = summary.artifacts?.['eval/init.jsonl'];
    const check = (text: string | null, recorded: typeof record | null = record): string | null => {
      const d = mkdtempSync(path.join(tmpdir(), 'rl-adv-manifest-'));
      mkdirSync(path.join(d, 'eval'));
      if (text !== null) writeFileSync(path.join(d, 'eval', 'init.jsonl'), text);
      return artifactProblem(d, 'eval/init.jsonl', recorded ?? undefined);
    };
    expect(check('{"item_id":"a","correct":true}\n')).toBe('1 rows where summary.json records 2 (cut short or edited)');
    expect(check('{"item_id":"a","correct":true}\n{"item_id":"b","correct":true} \n')).toMatch(/^its content differs from what summary\.json records \(63 bytes/);
    expect(check('{"item_id":"a","correct":true}\n{"item_id":"b","corr')).toBe('line 2 is not valid JSON (truncated or edited)');
    expect(check(null)).toBe('missing');
    // A run written before the manifest: parsed only (a torn line is found, a cut at a line boundary cannot be).
    expect(check('{"item_id":"a","correct":true}\n{"item_id":"b","corr', null)).toBe('line 2 is not valid JSON (truncated or edited)');
    expect(check('{"item_id":"a","correct":true}\n', null)).toBeNull();
  });
});

describe('rebuildPaths', () => {
  it.each([
    ['pilot/grpo_g8/state.json', ['pilot/grpo_g8', 'pilot/eval_grpo_g8.jsonl']],
    ['arms/gs1/advantages.jsonl', ['arms/gs1', 'eval/gs1.jsonl']],
    ['seeds/3/arms/grpo_g8/state.json', ['seeds/3/arms/grpo_g8', 'seeds/3/eval/grpo_g8.jsonl']],
    ['tuning.jsonl', ['tuning.jsonl', 'kernel.json']],
    ['eval/init.jsonl', ['eval/init.jsonl']],
    ['gate.json', ['gate.json']],
  ])('%s: %j', (rel, removed) => {
    expect(rebuildPaths(rel)).toEqual(removed);
  });
});

describe('prepareResume', () => {
  it('refuses a summary.json whose artifacts is not an object, naming the field', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-manifest-'));
    const summary = { phases: {}, artifacts: [] } as unknown as StudySummary;
    expect(() => prepareResume(dir, summary, () => undefined)).toThrow(/summary\.json: field "artifacts" must be an object/);
  });
});
