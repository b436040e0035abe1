// rl-adv study revise: the revised spec adopts a kernel file and records why; it refuses a kernel tuned on the
// gate's calibration set (by task id or by prompt), never changes anything else, never overwrites --out.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadGsm8k } from '../../src/data/gsm8k.js';
import { reviseStudySpec, writeRevisedSpec } from '../../src/study/revise.js';
import { loadStudySpec } from '../../src/study/spec.js';
import { gateCalibrationTasks, studyOrder, tuningTaskRows } from '../../src/study/task-sets.js';
import { rlAdv } from '../cli/run.js';
import { gsm8kDir, specPath } from '../helpers/paths.js';
import { kernelTunedOn } from '../helpers/study-kernel.js';

const train = loadGsm8k(gsm8kDir, 'train');
const spec = loadStudySpec(readFileSync(specPath, 'utf8'));
const sha = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-revise-'));

let dir: string;
let kernelPath: string;
beforeAll(() => {
  dir = temp();
  mkdirSync(path.join(dir, 'run'));
  const rows = tuningTaskRows(spec, train, studyOrder('sim', train.length, 0), 200).rows.map((q) => train[q]!);
  kernelPath = path.join(dir, 'run', 'kernel.json');
  writeFileSync(kernelPath, JSON.stringify(kernelTunedOn(rows), null, 2));
});

describe('reviseStudySpec', () => {
  it('raises version, points the treatment arm at the kernel (relative to --out) and records the revision; nothing else changes', () => {
    const outPath = path.join(dir, 'specs', 'spec.v2.json');
    const date = new Date('2026-12-03T08:00:00Z');
    const revised = reviseStudySpec({ specPath, kernelPath, outPath, train, reason: 'tuned on 200 free tasks', date });
    const before = JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, unknown>;
    const after = revised.spec as Record<string, unknown>;
    expect(after.version).toBe(2);
    const arms = after.arms as { name: string; advantage: string }[];
    expect(arms.map((a) => a.advantage)).toEqual(['group_mean', 'kernel:../run/kernel.json']);
    // Every other field, the gate and the other arm included, is the same value.
    const { version: _v, arms: _a, revision: _r, ...rest } = after;
    const { arms: armsBefore, ...restBefore } = before;
    expect(rest).toEqual(restBefore);
    expect(after.activation_gate).toEqual(before.activation_gate);
    expect(arms[0]).toEqual((armsBefore as unknown[])[0]);
    expect({ ...arms[1], advantage: 'x' }).toEqual({ ...(armsBefore as Record<string, unknown>[])[1], advantage: 'x' });
    expect(revised.revision).toMatchObject({
      reason: 'tuned on 200 free tasks',
      date: '2026-12-03T08:00:00.000Z',
      previous_version: 1,
      previous_spec_sha256: sha(readFileSync(specPath)),
      arm: 'gs1_tfidf_g1',
      previous_advantage: 'tfidf_kernel_loo_T0.1',
      advantage: 'kernel:../run/kernel.json',
      kernel_sha256: sha(readFileSync(kernelPath)),
      kernel_family: 'length',
      tuning_data_sha256: sha('rows'),
      tuning_tasks: 200,
      held_out: { ratio: 1.031, ratio_ci95: [1.002, 1.06], interval_method: 'jackknife' },
    });
    expect(revised.text).toBe(JSON.stringify(after, null, 2) + '\n');
  });

  it('a revision of a revision keeps the previous record and counts on', () => {
    const v2 = path.join(dir, 'v2.json');
    writeRevisedSpec({ specPath, kernelPath, outPath: v2, train });
    const v3 = reviseStudySpec({ specPath: v2, kernelPath, outPath: path.join(dir, 'v3.json'), train });
    expect(v3.spec.version).toBe(3);
    expect(v3.revision.previous_advantage).toBe('kernel:run/kernel.json');
    expect((v3.revision.previous_revision as { previous_version: number }).previous_version).toBe(1);
  });

  it('refuses a kernel tuned on a task of the gate calibration set, by task id or by prompt alone', () => {
    const gate = gateCalibrationTasks(spec, train);
    const free = tuningTaskRows(spec, train, studyOrder('sim', train.length, 0), 10).rows.map((q) => train[q]!);
    const byId = path.join(dir, 'by-id.json');
    writeFileSync(byId, JSON.stringify(kernelTunedOn([...free, { id: gate[3]!.id, question: 'another text' }])));
    expect(() => reviseStudySpec({ specPath, kernelPath: byId, outPath: path.join(dir, 'x.json'), train })).toThrow(
      new RegExp(`was tuned on 1 task\\(s\\) of the gate's calibration set \\(${gate[3]!.id}\\)`),
    );
    // A tinker-order gate task (the numpy permutation's last 64) counts too.
    const tinkerGate = train[studyOrder('tinker', train.length, 0)[train.length - 1]!]!;
    const byPrompt = path.join(dir, 'by-prompt.json');
    writeFileSync(byPrompt, JSON.stringify(kernelTunedOn([...free, { id: 'elsewhere_7', question: tinkerGate.question }])));
    expect(() => reviseStudySpec({ specPath, kernelPath: byPrompt, outPath: path.join(dir, 'x.json'), train })).toThrow(
      new RegExp(`elsewhere_7 \\(same prompt as ${tinkerGate.id}\\)`),
    );
    expect(existsSync(path.join(dir, 'x.json'))).toBe(false);
  });

  it('refuses a kernel file without the fields it reads, naming the field', async () => {
    const bad = path.join(dir, 'bad.json');
    const noTasks = kernelTunedOn([]);
    writeFileSync(bad, JSON.stringify(noTasks));
    expect(() => reviseStudySpec({ specPath, kernelPath: bad, outPath: path.join(dir, 'x.json'), train })).toThrow(/field "provenance.tuning_tasks" must be a non-empty array/);
    writeFileSync(bad, JSON.stringify({ ...noTasks, format: 'other' }));
    expect(() => reviseStudySpec({ specPath, kernelPath: bad, outPath: path.join(dir, 'x.json'), train })).toThrow(/field "format" must be "rl-advantages\/kernel"/);
    writeFileSync(bad, '{');
    expect(() => reviseStudySpec({ specPath, kernelPath: bad, outPath: path.join(dir, 'x.json'), train })).toThrow(/is not valid JSON/);
  });

  it('never overwrites --out without force, nor the spec itself', async () => {
    const out = path.join(dir, 'exists.json');
    writeFileSync(out, 'keep me');
    expect(() => writeRevisedSpec({ specPath, kernelPath, outPath: out, train })).toThrow(/--out .* exists; refusing to overwrite it \(pass --force/);
    expect(readFileSync(out, 'utf8')).toBe('keep me');
    writeRevisedSpec({ specPath, kernelPath, outPath: out, train, force: true });
    expect(JSON.parse(readFileSync(out, 'utf8')).version).toBe(2);
    expect(() => writeRevisedSpec({ specPath: out, kernelPath, outPath: out, train, force: true })).toThrow(/is the --spec file/);
  });
});

describe('rl-adv study revise', () => {
  it('writes the revised spec and says what changed; refusals exit 2; study --spec and study revise --spec do not clash', async () => {
    const out = path.join(dir, 'cli.v2.json');
    const ok = await rlAdv(['study', 'revise', '--spec', specPath, '--kernel', kernelPath, '--out', out, '--reason', 'cli test']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/version 2, arm gs1_tfidf_g1: tfidf_kernel_loo_T0.1 -> kernel:run\/kernel.json \(length, held-out ratio 1.0310 \[1.0020, 1.0600\]; 200 tuning tasks, none in the gate's calibration set\)/);
    expect(JSON.parse(readFileSync(out, 'utf8')).revision.reason).toBe('cli test');
    const again = await rlAdv(['study', 'revise', '--spec', specPath, '--kernel', kernelPath, '--out', out]);
    expect([again.code, again.stderr]).toEqual([2, expect.stringMatching(/^rl-adv: --out .* exists; it is kept: give another file, or --force to replace it\n$/)]);
    const missing = await rlAdv(['study', 'revise', '--spec', specPath, '--out', out]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/required option '--kernel <file>' not specified/)]);
    // `study` without --out is still refused by name, before any work.
    const noOut = await rlAdv(['study', '--spec', specPath]);
    expect([noOut.code, noOut.stderr]).toEqual([2, expect.stringMatching(/required option '--out <dir>' not specified/)]);
  });
});
