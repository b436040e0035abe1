// The optional tuning phase: rows on free train tasks, a kernel tuned on them, recorded and never adopted by the
// running study; resumed runs reuse both files; then tune -> revise -> a study of the revised spec to its decision.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadGsm8k } from '../../src/data/gsm8k.js';
import { loadKernel } from '../../src/kernels/kernel-file.js';
import { studyTrainItems } from '../../src/study/load-questions.js';
import { writeRevisedSpec } from '../../src/study/revise.js';
import { runStudyWithReports } from '../../src/report/write.js';
import type { StudyOptions } from '../../src/study/run.js';
import { createTinkerBackend } from '../../src/study/backends/tinker.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { clusteredQuestions, questionsJsonl } from '../../src/study/sim/questions.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { loadStudySpec } from '../../src/study/spec.js';
import type { StudySummary } from '../../src/study/summary.js';
import { gateCalibrationTasks, studyOrder, tuningTaskRows } from '../../src/study/task-sets.js';
import { writeFakeDrivers } from '../helpers/fake-drivers.js';
import { gsm8kDir, readJsonl, specPath } from '../helpers/paths.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-tuning-'));
const sha = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');
const quick = { calibrationBatches: 1000, calibrationBootstrap: 0 } as const;
const tuning = { tuneKernel: true, tuningTasks: 300, tuningBatches: 200 } as const;
const spec = loadStudySpec(readFileSync(specPath, 'utf8'));

describe('the tuning phase (sim backend, GSM8K)', () => {
  const options = (dir: string): StudyOptions => ({ specPath, dir, backend: createSimBackend(), dataDir: gsm8kDir, ...quick, ...tuning });

  it('samples one rollout per free task, tunes kernel.json on them, records both, and leaves the arms alone', async () => {
    const dir = path.join(temp(), 'run');
    const { exitCode, summary } = await runStudyWithReports(options(dir));
    // The default sim fails the gate; the tuning phase ran before it.
    expect(exitCode).toBe(1);
    expect(Object.keys(summary.phases)).toEqual(['preflight', 'calibration', 'tuning', 'pilot', 'gate']);
    const rows = readJsonl<{ task_id: string; prompt: string; reward: number }>(path.join(dir, 'tuning.jsonl'));
    const train = loadGsm8k(gsm8kDir, 'train');
    const expected = tuningTaskRows(spec, train, studyOrder('sim', train.length, 0), 300).rows.map((q) => train[q]!);
    expect(rows.map((r) => [r.task_id, r.prompt])).toEqual(expected.map((t) => [t.id, t.question]));
    expect(rows.every((r) => r.reward === 0 || r.reward === 1 || r.reward === -0.1)).toBe(true);
    const gate = new Set(gateCalibrationTasks(spec, train).map((t) => t.id));
    expect(rows.filter((r) => gate.has(r.task_id))).toEqual([]);
    const t = summary.tuning!;
    expect(t).toMatchObject({ tasks: 300, rows: 300, file: 'tuning.jsonl', sha256: sha(readFileSync(path.join(dir, 'tuning.jsonl'))), order_first: 1920 });
    const kernelText = readFileSync(path.join(dir, 'kernel.json'), 'utf8');
    const kernel = loadKernel(kernelText).file;
    expect(t.kernel).toMatchObject({ file: 'kernel.json', sha256: sha(kernelText), family: kernel.family });
    expect(kernel.provenance?.tuning_tasks.map((x) => x.task_id)).toEqual(expected.map((x) => x.id));
    expect(kernel.provenance?.inputs[0]).toMatchObject({ role: 'input', path: 'tuning.jsonl', sha256: t.sha256, rows: 300 });
    expect(t.kernel?.held_out.ratio).toBe(kernel.provenance?.held_out.ratio);
    expect(t.kernel?.per_family.length).toBeGreaterThan(1);
    // The arms are the spec's: the pilot ran the spec's estimators.
    const pilot = readJsonl<{ estimator: string }>(path.join(dir, 'pilot', 'gs1_tfidf_g1', 'advantages.jsonl'));
    expect(pilot[0]?.estimator).toBe('tfidf_kernel_loo_T0.1');
    expect(Object.keys(summary.calibration?.estimators ?? {})).toEqual(['loo_batch_mean', 'tfidf_kernel_loo_T0.1']);
    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain('## Tuning (not adopted by this run)');
    expect(report).toMatch(/\| tuning \| done \|/);
    expect(readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('Kernel tuning: tuning vs held-out ratio per family');

    // A run interrupted after writing both files reuses them: the same kernel file, untouched.
    const resumed = path.join(temp(), 'resumed');
    cpSync(dir, resumed, { recursive: true });
    const s = JSON.parse(readFileSync(path.join(resumed, 'summary.json'), 'utf8')) as StudySummary;
    for (const phase of ['tuning', 'pilot', 'gate'] as const) delete s.phases[phase];
    delete s.tuning;
    writeFileSync(path.join(resumed, 'summary.json'), JSON.stringify(s));
    const before = statSync(path.join(resumed, 'kernel.json')).mtimeMs;
    const again = await runStudyWithReports({ ...options(resumed), resume: true });
    expect(again.summary.tuning).toEqual(summary.tuning);
    expect(statSync(path.join(resumed, 'kernel.json')).mtimeMs).toBe(before);
    // Another tuning size is another run.
    await expect(runStudyWithReports({ ...options(resumed), tuningTasks: 200, resume: true })).rejects.toThrow(/holds another run \(different tuning\)/);

    // Killed after summary.json recorded tuning.jsonl's sha256, before the phase ended, and the file then cut at a line
    // boundary: it is not reused but sampled again, with its kernel (the same bytes: the same inputs).
    const cut = path.join(temp(), 'cut');
    cpSync(dir, cut, { recursive: true });
    const killed = JSON.parse(readFileSync(path.join(cut, 'summary.json'), 'utf8')) as StudySummary;
    for (const phase of ['tuning', 'pilot', 'gate'] as const) delete killed.phases[phase];
    writeFileSync(path.join(cut, 'summary.json'), JSON.stringify(killed));
    writeFileSync(path.join(cut, 'tuning.jsonl'), readFileSync(path.join(dir, 'tuning.jsonl'), 'utf8').split('\n').slice(0, 120).join('\n') + '\n');
    const notes: string[] = [];
    await runStudyWithReports({ ...options(cut), resume: true, onPhase: (e) => e.kind === 'note' && notes.push(e.line) });
    expect(notes).toContain(`${path.join(cut, 'tuning.jsonl')}: its sha256 differs from the one summary.json records (truncated or edited); sampling it again`);
    for (const f of ['tuning.jsonl', 'kernel.json']) expect(readFileSync(path.join(cut, f)).equals(readFileSync(path.join(dir, f))), f).toBe(true);
  });

  it('refuses tuning options without --tune-kernel and more tasks than are free', async () => {
    const dir = path.join(temp(), 'run');
    await expect(runStudyWithReports({ ...options(dir), tuneKernel: false })).rejects.toThrow(/--tuning-tasks applies with --tune-kernel only/);
    await expect(runStudyWithReports({ ...options(dir), tuningTasks: 0 })).rejects.toThrow(/--tuning-tasks must be an integer >= 1, got 0/);
  });
});

describe('tune -> revise -> study (sim backend, the clustered questions)', () => {
  it('the kernel tuned in one run is adopted by a revised spec, whose study reaches a decision', async () => {
    const root = temp();
    const base = { backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }), questions: 'clustered', steps: 12, evalLimit: 200, ...quick } as const;
    const first = await runStudyWithReports({ ...base, specPath, dir: path.join(root, 'tuned'), ...tuning });
    expect(first.summary.phases.tuning?.status).toBe('done');
    const v2 = path.join(root, 'spec.v2.json');
    const revised = writeRevisedSpec({ specPath, kernelPath: path.join(root, 'tuned', 'kernel.json'), outPath: v2, train: studyTrainItems('clustered'), reason: 'test' });
    expect(revised.revision.advantage).toBe('kernel:tuned/kernel.json');
    const second = await runStudyWithReports({ ...base, specPath: v2, dir: path.join(root, 'revised') });
    const s = second.summary;
    expect(s.arms?.gs1_tfidf_g1?.advantage).toBe('kernel:tuned/kernel.json');
    expect(Object.keys(s.calibration?.estimators ?? {})).toEqual(['loo_batch_mean', 'kernel:tuned/kernel.json']);
    expect(second.exitCode).toBe(0);
    expect(s.gate?.passed).toBe(true);
    expect(['validated', 'failed', 'inconclusive']).toContain(s.decision?.verdict);
  });
});

// The fake sample_calibration.py imports the real driver's task selection, which needs numpy (as the real one does).
// Skipped only outside CI: .ci/run installs numpy (python3-sklearn), so there a missing numpy fails the test.
const numpy = spawnSync('python3', ['-c', 'import numpy'], { encoding: 'utf8' }).status === 0;

describe.skipIf(!numpy && !process.env.CI)('the tuning phase on the tinker backend (fake drivers, the real task selection)', () => {
  it('asks sample_calibration.py for the same tasks, in the cookbook order, and tunes on its rows', async () => {
    const root = temp();
    const dataDir = path.join(root, 'clustered');
    mkdirSync(dataDir);
    const set = clusteredQuestions();
    writeFileSync(path.join(dataDir, 'train.jsonl'), questionsJsonl(set.train));
    writeFileSync(path.join(dataDir, 'test.jsonl'), questionsJsonl(set.test));
    const drivers = writeFakeDrivers(path.join(root, 'drivers'));
    const backend = createTinkerBackend({ env: { ...process.env, TINKER_API_KEY: 'fake' }, driversDir: drivers });
    const dir = path.join(root, 'run');
    const { summary } = await runStudyWithReports({ specPath, dir, backend, dataDir, ...quick, evalLimit: 20, ...tuning });
    expect(summary.phases.tuning?.status).toBe('done');
    const calls = readFileSync(path.join(drivers, 'calls.log'), 'utf8');
    expect(calls).toMatch(/sample_calibration\.py --out \S+tuning\.jsonl\.partial --first 1920 --tasks 300 --rollouts 1 --seed 0 --exclude-rows [0-9,]+ --spec /);
    const train = loadGsm8k(dataDir, 'train');
    const expected = tuningTaskRows(spec, train, studyOrder('tinker', train.length, 0), 300).rows.map((q) => train[q]!.id);
    expect(readJsonl<{ task_id: string }>(path.join(dir, 'tuning.jsonl')).map((r) => r.task_id)).toEqual(expected);
    expect(loadKernel(readFileSync(path.join(dir, 'kernel.json'), 'utf8')).file.provenance?.tuning_tasks).toHaveLength(300);
  });
});
