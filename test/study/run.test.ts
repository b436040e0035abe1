import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import { isSeedDecisionJson } from '../../src/stats/seeds.js';
import { parseAdvantageLog } from '../../src/study/gate-metrics.js';
import { createTinkerBackend } from '../../src/study/backends/tinker.js';
import { runStudyWithReports } from '../../src/report/write.js';
import type { StudyOptions } from '../../src/study/run.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { clusteredQuestions, questionsJsonl } from '../../src/study/sim/questions.js';
import { SIM_CLUSTERED_DEFAULTS, SIM_DEFAULTS } from '../../src/study/sim/world.js';
import { writeFakeDrivers } from '../helpers/fake-drivers.js';
import { gsm8kDir, specPath } from '../helpers/paths.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-'));
const quick = { calibrationBatches: 2000, calibrationBootstrap: 20 } as const;

/** Every file under `dir`, relative, sorted. */
function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, name.name);
      if (name.isDirectory()) walk(full);
      else out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out.sort();
}

/** summary.json without its wall times (the only figures allowed to differ between identical runs). */
function withoutWallTimes(file: string): unknown {
  const summary = JSON.parse(readFileSync(file, 'utf8')) as { phases: Record<string, { wall_seconds?: number }> };
  for (const phase of Object.values(summary.phases)) delete phase.wall_seconds;
  return summary;
}

/** The built-in clustered set written as a GSM8K folder, for the fake tinker drivers (which read --data-dir). */
let clusteredDir: string;
beforeAll(() => {
  clusteredDir = path.join(temp(), 'clustered');
  mkdirSync(clusteredDir);
  const set = clusteredQuestions();
  writeFileSync(path.join(clusteredDir, 'train.jsonl'), questionsJsonl(set.train));
  writeFileSync(path.join(clusteredDir, 'test.jsonl'), questionsJsonl(set.test));
});

describe('runStudy on the sim backend: the gate-failure path (default coupling, the record regime)', () => {
  it('runs preflight, calibration and pilot, fails the gate, scores the fallback and stops with exit code 1', async () => {
    const dir = path.join(temp(), 'run');
    const { exitCode, summary } = await runStudyWithReports({ specPath, dir, backend: createSimBackend(), dataDir: gsm8kDir, ...quick });
    expect(exitCode).toBe(1);
    expect(Object.keys(summary)).toEqual(expect.arrayContaining(['spec', 'seed', 'backend', 'version', 'phases', 'calibration', 'gate']));
    expect(summary.backend).toBe('sim');
    expect(summary.simulation).toBe(true);
    expect(summary.gate?.passed).toBe(false);
    const beff = summary.gate?.checks.find((c) => c.metric === 'offline_beff_ratio_tfidf_vs_loo_mean');
    expect(beff?.status).toBe('fail');
    // The default sim reproduces the record's regime: the kernel is no better than the batch mean.
    expect(beff?.value).toBeLessThan(1.03);
    expect(beff?.value).toBeGreaterThan(0.9);
    expect(summary.fallback?.estimator).toBe('length_bucket_loo');
    expect(Number.isFinite(summary.fallback?.ratio)).toBe(true);
    expect(summary.phases.gate?.status).toBe('stopped');
    expect(summary.phases.arms).toBeUndefined();
    expect(summary.arms).toBeUndefined();
    expect(summary.decision).toBeUndefined();
    // Artifacts of the phases reached, none of the others.
    const list = files(dir);
    expect(list).toEqual(
      expect.arrayContaining([
        'run.json',
        'summary.json',
        'report.md',
        'preflight.json',
        'calibration/calibration.jsonl',
        'calibration/beff.json',
        'pilot/grpo_g8/advantages.jsonl',
        'pilot/gs1_tfidf_g1/advantages.jsonl',
        'pilot/eval_init.jsonl',
        'gate.json',
      ]),
    );
    expect(list.some((f) => f.startsWith('arms/') || f.startsWith('eval/'))).toBe(false);
    expect(list.some((f) => f.includes('.tmp-'))).toBe(false);
    const calibrationRows = readFileSync(path.join(dir, 'calibration', 'calibration.jsonl'), 'utf8').trim().split('\n');
    expect(calibrationRows).toHaveLength(64 * 8);
    // The pilot logs are in the docs/method.md section 9 format (gateMetrics' parser accepts them), 3 steps each.
    const gs1 = parseAdvantageLog(readFileSync(path.join(dir, 'pilot', 'gs1_tfidf_g1', 'advantages.jsonl'), 'utf8'), 'gs1');
    expect(gs1.map((r) => [r.step, r.rollouts, r.group_size, r.groups])).toEqual([
      [0, 32, 1, 32],
      [1, 32, 1, 32],
      [2, 32, 1, 32],
    ]);
    const grpo = parseAdvantageLog(readFileSync(path.join(dir, 'pilot', 'grpo_g8', 'advantages.jsonl'), 'utf8'), 'grpo');
    expect(grpo.map((r) => [r.rollouts, r.group_size, r.groups, r.max_self_weight])).toEqual([
      [32, 8, 4, 0.125],
      [32, 8, 4, 0.125],
      [32, 8, 4, 0.125],
    ]);
    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).toContain('SIMULATION');
    expect(report).toContain('## Activation gate: FAILED');
    expect(report).toContain('length_bucket_loo');
    expect(report).toContain(summary.spec.sha256);
  });
});

describe('runStudy on the sim backend: the full path (the built-in clustered questions, coupling 0.9)', () => {
  const options = (dir: string): StudyOptions => ({
    specPath,
    dir,
    backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }),
    questions: 'clustered',
    steps: 12,
    evalLimit: 200,
    ...quick,
  });

  it('passes the gate, trains both arms, evaluates and decides; two runs give identical artifacts but wall times', async () => {
    const a = path.join(temp(), 'a');
    const b = path.join(temp(), 'b');
    const first = await runStudyWithReports(options(a));
    expect(first.exitCode).toBe(0);
    const s = first.summary;
    expect(s.gate?.passed).toBe(true);
    expect(s.phases.decision?.status).toBe('done');
    expect(s.data).toMatchObject({ questions: 'clustered', dir: null, train: 7473, test: 1319 });
    expect(s.backend_settings).toMatchObject({ coupling: 0.9, stepCenter: 0 });
    expect(Object.keys(s.arms ?? {})).toEqual(['grpo_g8', 'gs1_tfidf_g1']);
    expect(s.arms?.gs1_tfidf_g1?.reward_per_step).toHaveLength(12);
    expect(s.eval?.grpo_g8?.n).toBe(200);
    expect(s.comparison).toEqual({ treatment: 'gs1_tfidf_g1', baseline: 'grpo_g8' });
    // The same keys as \`rl-adv decide --json\` and \`rl-adv gate --json\` print.
    expect(Object.keys(s.decision ?? {})).toEqual(['method', 'alpha', 'n', 'verdict', 'criteria']);
    expect(Object.keys(s.decision?.criteria[0] ?? {})).toEqual(['id', 'metric', 'estimate', 'lower', 'upper', 'margin', 'verdict']);
    expect(Object.keys(s.gate ?? {})).toEqual(['passed', 'checks']);
    expect(Object.keys(s.gate?.checks[0] ?? {})).toEqual(['metric', 'value', 'min', 'max', 'status']);
    expect(['validated', 'failed', 'inconclusive']).toContain(s.decision?.verdict);
    const c = s.decision && !isSeedDecisionJson(s.decision) ? s.decision.criteria[0] : undefined;
    expect(c && c.lower < c.estimate && c.estimate < c.upper).toBe(true);
    // The estimate is the paired difference of the two arms' accuracies.
    expect(c?.estimate).toBeCloseTo((s.eval?.gs1_tfidf_g1?.accuracy ?? 0) - (s.eval?.grpo_g8?.accuracy ?? 0), 12);
    // planDecision's half-width for n = 200, alpha 0.05, R = 2: 2 sqrt(ln(40) / 400).
    expect(s.plan?.criteria[0]?.half_width).toBeCloseTo(2 * Math.sqrt(Math.log(2 / 0.05) / 400), 12);
    const full = parseAdvantageLog(readFileSync(path.join(a, 'arms', 'gs1_tfidf_g1', 'advantages.jsonl'), 'utf8'), 'gs1');
    expect(full).toHaveLength(12);
    const report = readFileSync(path.join(a, 'report.md'), 'utf8');
    expect(report).toContain('SIMULATION** (`--backend sim`) on the built-in CLUSTERED question set');
    expect(report).toContain('- questions: the built-in clustered set');
    expect(report).toContain('## Decision:');
    expect(report).toContain('half-width');

    const second = await runStudyWithReports(options(b));
    expect(second.exitCode).toBe(0);
    expect(files(b)).toEqual(files(a));
    for (const f of files(a)) {
      if (f === 'summary.json') expect(withoutWallTimes(path.join(b, f))).toEqual(withoutWallTimes(path.join(a, f)));
      else if (f === 'report.md' || f === 'report.html') {
        // The phases table's wall times (both reports show it) are the only difference.
        const strip = (t: string): string =>
          t
            .replace(/^\| (\w+) \| (\w+) \| [0-9.]+ \|/gm, '| $1 | $2 | |')
            .replace(/(<td>\w+<\/td><td>\w+<\/td><td class="num">)[0-9.]+(<\/td>)/g, '$1$2')
            .replace(/Total wall time: [0-9.]+ s\./g, '');
        expect(strip(readFileSync(path.join(b, f), 'utf8'))).toBe(strip(readFileSync(path.join(a, f), 'utf8')));
      } else expect(readFileSync(path.join(b, f)).equals(readFileSync(path.join(a, f))), f).toBe(true);
    }
  });

  it('--resume of a finished run changes nothing and returns the same outcome', async () => {
    const dir = path.join(temp(), 'r');
    const first = await runStudyWithReports(options(dir));
    const again = await runStudyWithReports({ ...options(dir), resume: true });
    expect(again.exitCode).toBe(first.exitCode);
    expect(again.summary.decision).toEqual(first.summary.decision);
  });
});

describe('the activation gate over seeds 0..4 at the study\'s calibration size (20000 batches)', () => {
  // The ratio does not depend on the bootstrap (drawn after the main batches), so it is skipped to save time; the
  // gate then sees exactly the ratio the CLI's default run sees (docs/sim.md has the figures per seed).
  const gateOf = async (seed: number, o: Pick<StudyOptions, 'backend' | 'questions' | 'dataDir'>) => {
    const { summary } = await runStudyWithReports({ specPath, dir: path.join(temp(), 'run'), seed, ...o, calibrationBootstrap: 0, steps: 1, evalLimit: 10 });
    const beff = summary.gate?.checks.find((c) => c.metric === 'offline_beff_ratio_tfidf_vs_loo_mean');
    const others = summary.gate?.checks.filter((c) => c !== beff).map((c) => c.status);
    return { passed: summary.gate?.passed, ratio: beff?.value ?? Number.NaN, others };
  };

  it.each([0, 1, 2, 3, 4])('seed %i: passes at coupling 0.9 on the clustered set and fails at the default coupling on GSM8K', async (seed) => {
    const clustered = await gateOf(seed, { backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }), questions: 'clustered' });
    expect(clustered.passed).toBe(true);
    expect(clustered.ratio).toBeGreaterThanOrEqual(1.03);
    const gsm8k = await gateOf(seed, { backend: createSimBackend(), dataDir: gsm8kDir });
    expect(gsm8k.passed).toBe(false);
    // Only the B_eff check fails, with the kernel no better than the batch mean (docs/sim.md: 0.995 to 1.007).
    expect(gsm8k.ratio).toBeLessThan(1.03);
    expect(gsm8k.ratio).toBeGreaterThan(0.95);
    expect(new Set(gsm8k.others)).toEqual(new Set(['pass']));
  });
});

describe('runStudy refuses bad input before writing anything', () => {
  it('a malformed spec: RlAdvantagesError naming the problem, and no folder', async () => {
    const root = temp();
    const bad = path.join(root, 'bad.spec.json');
    writeFileSync(bad, JSON.stringify({ decision_rule: { method: 'paired_hoeffding', alpha: 2, criteria: [] }, arms: [] }));
    const dir = path.join(root, 'out');
    await expect(runStudyWithReports({ specPath: bad, dir, backend: createSimBackend(), dataDir: gsm8kDir })).rejects.toThrow(/alpha/);
    expect(existsSync(dir)).toBe(false);
    writeFileSync(bad, '{ not json');
    await expect(runStudyWithReports({ specPath: bad, dir, backend: createSimBackend(), dataDir: gsm8kDir })).rejects.toThrow(/not valid JSON/);
    expect(existsSync(dir)).toBe(false);
  });

  it('an unwritable folder (under a file): a clear error and no artifact', async () => {
    const root = temp();
    writeFileSync(path.join(root, 'file'), 'x');
    const dir = path.join(root, 'file', 'out');
    const run = runStudyWithReports({ specPath, dir, backend: createSimBackend(), dataDir: gsm8kDir });
    await expect(run).rejects.toThrow(/cannot be created|not writable/);
    await expect(run).rejects.toBeInstanceOf(RlAdvantagesError);
    expect(readdirSync(root)).toEqual(['file']);
  });

  it('an --out that is a regular file, or lies under one (unwritable even for root): a clear error and no artifact', async () => {
    const root = temp();
    const file = path.join(root, 'file');
    writeFileSync(file, 'x');
    const asFile = runStudyWithReports({ specPath, dir: file, backend: createSimBackend(), dataDir: gsm8kDir });
    await expect(asFile).rejects.toThrow(/--out .*file exists and is not a folder/);
    await expect(asFile).rejects.toBeInstanceOf(RlAdvantagesError);
    // Two levels under the file, resuming: mkdir fails with ENOTDIR whoever runs it.
    const under = runStudyWithReports({ specPath, dir: path.join(file, 'a', 'b'), backend: createSimBackend(), dataDir: gsm8kDir, resume: true });
    await expect(under).rejects.toThrow(/cannot be created: a part of the path is not a folder/);
    expect(readdirSync(root)).toEqual(['file']);
    expect(readFileSync(file, 'utf8')).toBe('x');
  });

  it('--sim-questions clustered with a real backend or with a data folder, or an unknown set: refused, nothing written', async () => {
    const dir = path.join(temp(), 'out');
    const tinker = createTinkerBackend({ env: { ...process.env, TINKER_API_KEY: 'fake' }, driversDir: writeFakeDrivers(path.join(temp(), 'drivers')) });
    await expect(runStudyWithReports({ specPath, dir, backend: tinker, questions: 'clustered' })).rejects.toThrow(
      /--sim-questions clustered applies to the simulated backend only, not --backend tinker/,
    );
    await expect(runStudyWithReports({ specPath, dir, backend: createSimBackend(), questions: 'clustered', dataDir: gsm8kDir })).rejects.toThrow(
      /--data-dir does not apply to --sim-questions clustered/,
    );
    await expect(runStudyWithReports({ specPath, dir, backend: createSimBackend(), questions: 'mmlu' as 'gsm8k' })).rejects.toThrow(
      /--sim-questions must be "gsm8k" or "clustered", got "mmlu"/,
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('a non-empty folder without --resume, or a folder of another run with --resume, is refused untouched', async () => {
    const dir = temp();
    writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    await expect(runStudyWithReports({ specPath, dir, backend: createSimBackend(), dataDir: gsm8kDir })).rejects.toThrow(/not empty/);
    await expect(runStudyWithReports({ specPath, dir, backend: createSimBackend(), dataDir: gsm8kDir, resume: true })).rejects.toThrow(/no rl-adv study run/);
    expect(readdirSync(dir)).toEqual(['notes.txt']);

    const run = path.join(temp(), 'run');
    await runStudyWithReports({ specPath, dir: run, backend: createSimBackend(), dataDir: gsm8kDir, ...quick });
    const before = files(run);
    await expect(runStudyWithReports({ specPath, dir: run, backend: createSimBackend(), dataDir: gsm8kDir, ...quick, seed: 1, resume: true })).rejects.toThrow(
      /another run \(different seed\)/,
    );
    await expect(
      runStudyWithReports({ specPath, dir: run, backend: createSimBackend({ ...SIM_DEFAULTS, coupling: 0.5 }), dataDir: gsm8kDir, ...quick, resume: true }),
    ).rejects.toThrow(/different backend_settings/);
    // The question set is part of the run's identity.
    await expect(runStudyWithReports({ specPath, dir: run, backend: createSimBackend(), questions: 'clustered', ...quick, resume: true })).rejects.toThrow(
      /different questions, data_sha256\)/,
    );
    expect(files(run)).toEqual(before);
  });
});

describe('the tinker backend', () => {
  it('refuses without TINKER_API_KEY, without a working python, or without the drivers', () => {
    expect(() => createTinkerBackend({ env: {} })).toThrow(/TINKER_API_KEY is not set/);
    expect(() => createTinkerBackend({ env: { TINKER_API_KEY: 'k' }, python: '/nonexistent/python3' })).toThrow(/cannot run Python/);
    expect(() => createTinkerBackend({ env: { TINKER_API_KEY: 'k', PATH: process.env.PATH }, driversDir: temp() })).toThrow(
      /preflight\.py, sample_calibration\.py, run_arm\.py, eval_gsm8k\.py not found/,
    );
  });

  it('runs the drivers phase by phase and reads their artifacts (fake drivers)', async () => {
    const drivers = writeFakeDrivers(path.join(temp(), 'drivers'));
    const backend = createTinkerBackend({ env: { ...process.env, TINKER_API_KEY: 'fake' }, driversDir: drivers });
    const dir = path.join(temp(), 'run');
    const { exitCode, summary } = await runStudyWithReports({ specPath, dir, backend, dataDir: clusteredDir, ...quick, evalLimit: 50 });
    expect(summary.preflight?.checks.map((c) => c.id)).toContain('tinker:reference_advantages');
    expect(summary.simulation).toBe(false);
    expect(summary.gate?.passed).toBe(true);
    expect(exitCode).toBe(0);
    expect(summary.arms?.gs1_tfidf_g1?.reward_per_step).toEqual(Array.from({ length: 60 }, () => 0.5));
    expect(summary.eval?.grpo_g8).toMatchObject({ n: 50 });
    expect(summary.decision?.n).toBe(50);
    const report = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(report).not.toContain('SIMULATION');
    // Every driver ran with the spec; eval got the pilot's 100 and the eval limit's 50 items.
    const calls = readFileSync(path.join(drivers, 'calls.log'), 'utf8');
    expect(calls).toMatch(/run_arm\.py --arm grpo_g8 .*--steps 3 /);
    expect(calls).toMatch(/run_arm\.py --arm gs1_tfidf_g1 .*--steps 60 --resume /);
    expect(calls).toMatch(/eval_gsm8k\.py --checkpoint base .*--limit 100/);
    expect(calls).toMatch(/eval_gsm8k\.py --checkpoint tinker:\/\/fake\/gs1_tfidf_g1\/60 .*--limit 50/);
  });
});

describe('a replicated three-arm spec with a learning curve on the tinker backend', () => {
  it('hands run_arm.py each replicate seed and the curve, reads every arm x seed curve back and decides every comparison (fake drivers)', async () => {
    const root = temp();
    const spec = JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, unknown> & { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };
    spec.arms.push({ ...(spec.arms[1] as Record<string, unknown>), name: 'batchmean_g1', advantage: 'loo_batch_mean' });
    const comparisons = [
      { id: 'gs1_vs_grpo', treatment: 'gs1_tfidf_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
      { id: 'batchmean_vs_grpo', treatment: 'batchmean_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' },
      { id: 'gs1_vs_batchmean', treatment: 'gs1_tfidf_g1', reference: 'batchmean_g1', kind: 'superiority', metric: 'accuracy' },
    ];
    spec.decision_rule = { ...spec.decision_rule, seeds: [0, 3, 7], seed_method: 'seed_item_t', method: 'paired_exact_unconditional', comparisons };
    spec.eval = { ...(spec.eval as object), curve_items: 20, curve_every: 25 };
    const replicated = path.join(root, 'spec.json');
    writeFileSync(replicated, JSON.stringify(spec));
    const drivers = writeFakeDrivers(path.join(root, 'drivers'));
    const backend = createTinkerBackend({ env: { ...process.env, TINKER_API_KEY: 'fake' }, driversDir: drivers });
    const dir = path.join(root, 'run');
    const { exitCode, summary } = await runStudyWithReports({ specPath: replicated, dir, backend, dataDir: clusteredDir, ...quick, evalLimit: 50, jobs: 2 });
    expect(exitCode).toBe(0);
    const calls = readFileSync(path.join(drivers, 'calls.log'), 'utf8').split('\n').filter((l) => l.startsWith('run_arm.py'));
    // The pilot runs once, with the arms' own seed; every full arm x seed gets --seed and the curve.
    expect(calls.filter((l) => l.includes('--steps 3 ')).every((l) => !l.includes('--seed'))).toBe(true);
    for (const seed of [0, 3, 7]) {
      for (const arm of ['grpo_g8', 'gs1_tfidf_g1', 'batchmean_g1']) {
        const logPath = path.join(dir, 'seeds', String(seed), 'arms', arm, 'tinker');
        expect(calls).toContain(`run_arm.py --arm ${arm} --log-path ${logPath} --steps 60 --resume --seed ${seed} --curve-items 20 --curve-every 25 --spec ${replicated} --data-dir ${clusteredDir}`);
        const curve = summary.replicates?.find((r) => r.seed === seed)?.arms[arm]?.curve;
        expect(curve?.map((p) => [p.step, p.correct, p.n])).toEqual([0, 25, 50, 60].map((s) => [s, Math.min(20, s + seed), 20]));
        expect(existsSync(path.join(dir, 'seeds', String(seed), 'arms', arm, 'curve.jsonl'))).toBe(true);
      }
    }
    expect(summary.replicates?.map((r) => r.seed)).toEqual([0, 3, 7]);
    expect(summary.curve).toEqual({ items: 20, every: 25 });
    expect(summary.comparisons?.map((c) => [c.id, c.per_seed.length])).toEqual(comparisons.map((c) => [c.id, 3]));
  });

  it('refuses a curve whose items are not the first GSM8K test items before any arm trains', async () => {
    const { replicateArgs } = await import('../../src/study/backends/tinker.js');
    const item = (id: string) => ({ index: 0, id, question: 'q', answer: '#### 1', referenceAnswer: '1' });
    const request = { arm: { name: 'a', advantage: 'group_mean' }, phase: 'full', steps: 2, dir: temp(), seed: 4 } as const;
    expect(replicateArgs({ ...request, curve: { items: [item('gsm8k_test_0'), item('gsm8k_test_1')], every: 5 } } as never)).toEqual(['--seed', '4', '--curve-items', '2', '--curve-every', '5']);
    expect(() => replicateArgs({ ...request, curve: { items: [item('gsm8k_test_0'), item('gsm8k_test_7')], every: 5 } } as never)).toThrow(
      /eval\.curve_items: .*item 1 is gsm8k_test_7/,
    );
  });
});

describe('the tinker backend when a driver fails', () => {
  it('a preflight whose checks failed (exit 1 with its report) is recorded FAILED and stops the run with exit code 1', async () => {
    const drivers = writeFakeDrivers(path.join(temp(), 'drivers'));
    writeFileSync(
      path.join(drivers, 'preflight.py'),
      'import json, sys\nout = sys.argv[sys.argv.index("--out") + 1]\n' +
        'json.dump({"passed": False, "checks": {"reference_loss": {"passed": False, "max_abs_error": 0.002}}}, open(out, "w"))\n' +
        'sys.stderr.write("1 check(s) failed: reference_loss\\n")\nsys.exit(1)\n',
    );
    const backend = createTinkerBackend({ env: { ...process.env, TINKER_API_KEY: 'fake' }, driversDir: drivers });
    const dir = path.join(temp(), 'run');
    const { exitCode, summary } = await runStudyWithReports({ specPath, dir, backend, dataDir: clusteredDir, ...quick });
    expect(exitCode).toBe(1);
    expect(summary.phases.preflight?.status).toBe('failed');
    expect(summary.preflight?.checks).toContainEqual({ id: 'tinker:reference_loss', passed: false, detail: 'examples/tinker-cookbook/preflight.py: max abs error 2.000e-3' });
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain('## Preflight: FAILED');
    expect(readFileSync(path.join(dir, 'report.html'), 'utf8')).toContain('Preflight: FAILED');
  });


  it('stops with an error naming the driver, its exit code, its log and the end of its stderr', async () => {
    const drivers = writeFakeDrivers(path.join(temp(), 'drivers'));
    writeFileSync(path.join(drivers, 'run_arm.py'), 'import sys\nsys.stderr.write("tinker: quota exceeded\\n")\nsys.exit(3)\n');
    const backend = createTinkerBackend({ env: { ...process.env, TINKER_API_KEY: 'fake' }, driversDir: drivers });
    const dir = path.join(temp(), 'run');
    await expect(runStudyWithReports({ specPath, dir, backend, dataDir: clusteredDir, ...quick })).rejects.toThrow(
      /run_arm\.py failed with exit code 3 \(log .*pilot_grpo_g8\.log\):\n\s+tinker: quota exceeded/,
    );
    // The phases before it are kept; the pilot is not marked done, so --resume runs it again.
    const summary = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as { phases: Record<string, unknown> };
    expect(Object.keys(summary.phases)).toEqual(['preflight', 'calibration']);
  });
});
