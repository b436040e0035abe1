// report.md and report.html: written by every study run, and rebuilt bit for bit from the artifacts alone.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import { readStudyArtifacts } from '../../src/report/artifacts.js';
import { runStudyWithReports, writeStudyReports } from '../../src/report/write.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { rlAdv } from '../cli/run.js';
import { specPath } from '../helpers/paths.js';

let failed: string;
let decided: string;

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'rl-adv-report-write-'));
  failed = path.join(root, 'failed');
  decided = path.join(root, 'decided');
  const quick = { calibrationBatches: 1000, calibrationBootstrap: 10, questions: 'clustered' as const };
  await runStudyWithReports({ specPath, dir: failed, backend: createSimBackend(SIM_CLUSTERED_DEFAULTS), ...quick });
  await runStudyWithReports({ specPath, dir: decided, backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }), steps: 4, evalLimit: 200, ...quick });
});

describe('study reports', () => {
  it('a gate-failing run has report.html with the reward, B_eff (fallback included) and gate charts, no decision', () => {
    const html = readFileSync(path.join(failed, 'report.html'), 'utf8');
    expect(html).toContain('aria-label="B_eff ratio of every estimator scored"');
    expect(html).toContain('length_bucket_loo (fallback)');
    expect(html).toContain('The gate FAILED');
    expect(html).not.toContain('aria-label="The paired decision');
    expect(html).not.toMatch(/<script|https?:\/\/(?!www\.w3\.org)/);
  });

  it('rl-adv report RUN_DIR rebuilds report.md and report.html bit for bit from the artifacts', async () => {
    for (const dir of [failed, decided]) {
      const before = ['report.md', 'report.html'].map((f) => readFileSync(path.join(dir, f)));
      rmSync(path.join(dir, 'report.md'));
      rmSync(path.join(dir, 'report.html'));
      const run = await rlAdv(['report', dir]);
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`wrote ${path.join(dir, 'report.md')}\nwrote ${path.join(dir, 'report.html')}\n`);
      const after = ['report.md', 'report.html'].map((f) => readFileSync(path.join(dir, f)));
      expect(after[0]?.equals(before[0] as Buffer)).toBe(true);
      expect(after[1]?.equals(before[1] as Buffer)).toBe(true);
    }
  });

  it('every figure in the eval table and the 2x2 table is traced to the run files', () => {
    const artifacts = readStudyArtifacts(decided);
    expect(artifacts.files).toEqual(expect.arrayContaining(['summary.json', ...Object.values(artifacts.summary.eval ?? {}).map((e) => e.file)]));
    const html = readFileSync(path.join(decided, 'report.html'), 'utf8');
    const items = [...(artifacts.evalItems.values())];
    const correct = items.map((m) => [...m.values()].filter(Boolean).length);
    for (const [i, arm] of Object.keys(artifacts.summary.eval ?? {}).entries()) {
      expect(html).toContain(`<td>${arm}</td><td class="num">${correct[i]}</td><td class="num">200</td>`);
    }
  });

  it('"What this design can conclude": summary.json holds the power rows, report.md and report.html show them', () => {
    const decidedSummary = readStudyArtifacts(decided).summary;
    const p = decidedSummary.design_power;
    expect(p?.n).toBe(200);
    expect(p?.spec_method).toBe('paired_hoeffding');
    // 11 true differences for each of the five discordant-count methods; paired_newcombe leaves out those no 2x2
    // table has with the control accuracy (the arms' mean accuracy when D is observed).
    expect(p?.power.filter((r) => r.method !== 'paired_newcombe')).toHaveLength(55);
    expect(p?.power.filter((r) => r.method === 'paired_newcombe').length).toBeGreaterThanOrEqual(1);
    // The observed D is the share of eval items the arms disagree on.
    const [t, b] = [...readStudyArtifacts(decided).evalItems.values()] as [ReadonlyMap<string, boolean>, ReadonlyMap<string, boolean>];
    const disagree = [...t.entries()].filter(([id, c]) => b.get(id) !== c).length;
    const md = readFileSync(path.join(decided, 'report.md'), 'utf8');
    expect(md).toContain('## What this design can conclude');
    expect(md).toContain('| paired_tango (asymptotic) |');
    expect(md).toContain('| paired_newcombe (asymptotic: lowest measured coverage 0.835 at n = 10) |');
    expect(md).toMatch(/paired_newcombe's power also takes the control arm's accuracy, /);
    expect(md).toContain('| paired_exact_unconditional |');
    expect(md).toContain('Scope: each arm is one training run (one seed); the interval covers which test items were drawn');
    if (disagree > 0) {
      expect(p?.discordance).toEqual({ value: disagree / 200, source: 'observed' });
      expect(md).toMatch(/observed between the two arms on the eval items/);
    } else {
      // The simulated arms can agree on every greedy answer (docs/sim.md): D = 0 is no basis, so 0.2 is assumed.
      expect(p?.discordance).toEqual({ value: 0.2, source: 'assumed' });
      expect(md).toMatch(/assumed: the two arms agreed on every eval item/);
    }
    const html = readFileSync(path.join(decided, 'report.html'), 'utf8');
    expect(html).toContain('aria-label="What this design can conclude"');
    // A gate-failing run still says what its design could conclude, at the assumed D = 0.2 and the full test split.
    const f = readStudyArtifacts(failed);
    expect(f.summary.design_power?.discordance).toEqual({ value: 0.2, source: 'assumed' });
    expect(f.power).toEqual(f.summary.design_power?.power);
    expect(readFileSync(path.join(failed, 'report.md'), 'utf8')).toMatch(/assumed: the run stopped before the eval/);
    expect(readFileSync(path.join(failed, 'report.html'), 'utf8')).toContain('aria-label="What this design can conclude"');
  });

  it('refuses a folder that is not a study run (exit 2, names the folder), and a run missing a file summary.json names', async () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'rl-adv-report-empty-'));
    const run = await rlAdv(['report', empty]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`${empty}: no summary.json here, so it is not a study run folder`);
    rmSync(path.join(decided, 'eval', Object.keys(readStudyArtifacts(decided).summary.eval ?? {})[0] + '.jsonl'));
    await expect(writeStudyReports(decided)).rejects.toThrow(RlAdvantagesError);
    expect(existsSync(path.join(decided, 'report.html'))).toBe(true);
  });
});
