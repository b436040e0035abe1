// `rl-adv report` checks every file summary.json names, for a replicated run too: a seed's eval file deleted or
// corrupted, or a summary.json whose `replicates` is not an array, gives exit 2 naming the file or field, and the
// report files are left as they were.
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStudyWithReports } from '../../src/report/write.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { rlAdv } from '../cli/run.js';
import { specPath } from '../helpers/paths.js';

let root: string;
let run: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'rl-adv-report-checks-'));
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as { decision_rule: Record<string, unknown> };
  spec.decision_rule.seeds = [0, 3];
  const specFile = path.join(root, 'spec.json');
  writeFileSync(specFile, JSON.stringify(spec, null, 2));
  run = path.join(root, 'run');
  const backend = createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 });
  await runStudyWithReports({ specPath: specFile, dir: run, backend, questions: 'clustered', steps: 4, evalLimit: 60, calibrationBatches: 300, calibrationBootstrap: 0 });
});

/** A copy of the replicated run with `change` applied; the report files of the copy, before `rl-adv report`. */
function variant(name: string, change: (dir: string) => void): { dir: string; reports: Buffer[] } {
  const dir = path.join(root, name);
  cpSync(run, dir, { recursive: true });
  change(dir);
  return { dir, reports: ['report.md', 'report.html'].map((f) => readFileSync(path.join(dir, f))) };
}

describe('rl-adv report on a replicated run', () => {
  it('reports the intact run (exit 0)', async () => {
    expect((await rlAdv(['report', run])).code).toBe(0);
  });

  const seedEval = path.join('seeds', '3', 'eval', 'gs1_tfidf_g1.jsonl');
  const cases: readonly [string, (dir: string) => void, RegExp][] = [
    ['a seed eval file deleted', (d) => rmSync(path.join(d, seedEval)), new RegExp(`seeds/3/eval/gs1_tfidf_g1\\.jsonl: not found \\(summary\\.json names it`)],
    ['a seed eval file corrupted', (d) => writeFileSync(path.join(d, seedEval), '{"item_id": "a", "correct": true}\n{"item_id": "b", "cor'), /seeds\/3\/eval\/gs1_tfidf_g1\.jsonl:2: not a JSON object/],
    [
      'replicates: null',
      (d) => {
        const s = JSON.parse(readFileSync(path.join(d, 'summary.json'), 'utf8')) as Record<string, unknown>;
        writeFileSync(path.join(d, 'summary.json'), JSON.stringify({ ...s, replicates: null }));
      },
      /summary\.json: field "replicates" must be an array, got null/,
    ],
    ['summary.json truncated', (d) => writeFileSync(path.join(d, 'summary.json'), readFileSync(path.join(d, 'summary.json')).subarray(0, 500)), /summary\.json: not valid JSON/],
  ];
  for (const [name, change, message] of cases) {
    it(`${name}: exit 2 naming it, one line, the reports kept`, async () => {
      const { dir, reports } = variant(name.replace(/\W+/g, '-'), change);
      const r = await rlAdv(['report', dir]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(['report.md', 'report.html'].map((f) => readFileSync(path.join(dir, f)))).toEqual(reports);
    });
  }
});
