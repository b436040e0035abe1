// rl-adv study end to end through the built CLI (node dist/cli.js), as a user runs it.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { gsm8kDir, repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-cli-'));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function study(args: readonly string[], env: NodeJS.ProcessEnv = {}): Run {
  const r = spawnSync(process.execPath, [cli, 'study', ...args], {
    encoding: 'utf8',
    env: { ...process.env, ...env },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.error) throw r.error;
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The numbers of a run: everything in summary.json but wall times. */
function numbers(dir: string): unknown {
  const s = JSON.parse(readFileSync(path.join(dir, 'summary.json'), 'utf8')) as Record<string, unknown>;
  return { calibration: s.calibration, gate: s.gate, fallback: s.fallback, pilot: s.pilot, arms: s.arms, eval: s.eval, decision: s.decision, plan: s.plan };
}

beforeAll(() => {
  // npm test builds dist first; a run of this file alone needs `npm run build` after a change under src/.
  if (!existsSync(cli)) throw new Error(`${cli} is missing: build first (npm run build, or npm test)`);
});

describe('rl-adv study (sim backend)', () => {
  it('without GSM8K anywhere and RL_ADV_OFFLINE=1, stops at once with one message saying how to provide it (exit 2)', () => {
    const empty = temp();
    const r = study(['--out', path.join(empty, 'run')], { GSM8K_DIR: '', RL_ADV_CACHE_DIR: path.join(empty, 'cache'), RL_ADV_OFFLINE: '1' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/^rl-adv: GSM8K not found: .*rl-adv data gsm8k --from DIR.*--data-dir DIR.*GSM8K_DIR=DIR.*RL_ADV_OFFLINE is set/)]);
    expect(readdirSync(empty)).toEqual([]);
  });

  it('the default study (no --spec: the shipped spec; GSM8K from GSM8K_DIR) reproduces the record: the gate fails, exit 1, a plain log line per phase off a terminal', () => {
    const out = path.join(temp(), 'run');
    const r = study(['--out', out], { GSM8K_DIR: gsm8kDir });
    expect(r.code).toBe(1);
    const recorded = (JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')) as { spec: { path: string; sha256: string } }).spec;
    expect(recorded).toMatchObject({ path: specPath, sha256: createHash('sha256').update(readFileSync(specPath)).digest('hex') });
    expect(r.stdout).toContain('activation gate FAILED');
    expect(r.stderr).toMatch(/rl-adv study: calibration: mean reward [0-9.]+, sigma_eps\^2 [0-9.]+, B_eff ratio [0-9.]+/);
    expect(r.stderr).toMatch(/rl-adv study: gate: FAILED: offline_beff_ratio_tfidf_vs_loo_mean/);
    const summary = JSON.parse(readFileSync(path.join(out, 'summary.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(summary)).toEqual(expect.arrayContaining(['spec', 'seed', 'backend', 'version', 'phases', 'calibration', 'gate']));
    expect(summary.gate).toMatchObject({ passed: false });
    expect(summary.arms).toBeUndefined();
    expect(readFileSync(path.join(out, 'report.md'), 'utf8')).toContain('SIMULATION');
  });

  it('--sim-questions clustered at a high coupling runs the full study to a decision (exit 0), the same numbers on every run', () => {
    const args = (out: string): string[] => ['--spec', specPath, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9'];
    const a = path.join(temp(), 'a');
    const r = study(args(a));
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^decision (validated|failed|inconclusive);.*\(simulation\)/);
    expect(r.stderr).toMatch(/rl-adv study: gate: PASSED/);
    expect(r.stderr).toMatch(/rl-adv study: eval: .* \(accuracy on 1319 items\)/);
    const summary = JSON.parse(readFileSync(path.join(a, 'summary.json'), 'utf8')) as {
      decision: { verdict: string; criteria: unknown[] };
      gate: { passed: boolean };
      gate_metrics: Record<string, number>;
      data: { questions: string; dir: string | null };
      backend_settings: Record<string, number>;
      arms: Record<string, { steps: number }>;
    };
    expect(summary.gate.passed).toBe(true);
    expect(summary.data).toMatchObject({ questions: 'clustered', dir: null });
    expect(summary.backend_settings).toMatchObject({ coupling: 0.9, stepCenter: 0 });
    expect(summary.arms.gs1_tfidf_g1?.steps).toBe(60);
    expect(summary.decision.criteria).toHaveLength(1);
    const run = JSON.parse(readFileSync(path.join(a, 'run.json'), 'utf8')) as Record<string, unknown>;
    expect(run.questions).toBe('clustered');
    expect(readFileSync(path.join(a, 'report.md'), 'utf8')).toContain('on the built-in CLUSTERED question set');
    // summary.json holds exactly what \`rl-adv decide --json\` and \`rl-adv gate --json\` print for the run's artifacts.
    const evalFile = (arm: string): string => path.join(a, 'eval', `${arm}.jsonl`);
    const decide = spawnSync(
      process.execPath,
      [cli, 'decide', '--spec', specPath, '--treatment', evalFile('gs1_tfidf_g1'), '--baseline', evalFile('grpo_g8'), '--json'],
      { encoding: 'utf8' },
    );
    expect(JSON.parse(decide.stdout)).toEqual(summary.decision);
    const metrics = path.join(temp(), 'metrics.json');
    writeFileSync(metrics, JSON.stringify(summary.gate_metrics));
    const gate = spawnSync(process.execPath, [cli, 'gate', '--spec', specPath, '--metrics', metrics, '--json'], { encoding: 'utf8' });
    expect(gate.status).toBe(0);
    expect(JSON.parse(gate.stdout)).toEqual(summary.gate);
    const b = path.join(temp(), 'b');
    expect(study(args(b)).code).toBe(0);
    expect(numbers(b)).toEqual(numbers(a));
  });

  it('killed with SIGKILL in the middle of an arm and resumed, it ends with the same numbers as an uninterrupted run', () => {
    const args = (out: string): string[] => ['--spec', specPath, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9', '--seed', '1'];
    const whole = path.join(temp(), 'whole');
    expect(study(args(whole)).code).toBe(0);

    // Killed at a fixed point (RL_ADV_SIM_KILL_AT: in step 7 of the arm, after its log line and before its
    // checkpoint), so the test does not race a timer on a busy machine.
    const cut = path.join(temp(), 'cut');
    const killed = spawnSync(process.execPath, [cli, 'study', ...args(cut)], { env: { ...process.env, RL_ADV_SIM_KILL_AT: 'gs1_tfidf_g1:7' }, stdio: 'ignore' });
    expect(killed.signal).toBe('SIGKILL');
    const state = path.join(cut, 'arms', 'gs1_tfidf_g1', 'state.json');
    const interrupted = JSON.parse(readFileSync(state, 'utf8')) as { step: number; done: boolean };
    expect(interrupted).toMatchObject({ step: 7, done: false });
    // The line of the step cut short is in the log; --resume drops it and redoes the step.
    expect(readFileSync(path.join(cut, 'arms', 'gs1_tfidf_g1', 'advantages.jsonl'), 'utf8').trim().split('\n')).toHaveLength(8);
    expect(existsSync(path.join(cut, 'eval'))).toBe(false);

    const resumed = study([...args(cut), '--resume']);
    expect(resumed.code).toBe(0);
    expect(numbers(cut)).toEqual(numbers(whole));
    const leftovers = (readdirSync(cut, { recursive: true }) as string[]).filter((f) => f.includes('.tmp-') || f.includes('.rl-adv-tmp-') || f.includes('.rl-adv.lock'));
    expect(leftovers).toEqual([]);
    for (const arm of ['grpo_g8', 'gs1_tfidf_g1']) {
      const log = (dir: string): string => readFileSync(path.join(dir, 'arms', arm, 'advantages.jsonl'), 'utf8');
      expect(log(cut)).toBe(log(whole));
    }
  });

  it('a malformed spec: exit 2, a message naming the field, and no run folder', () => {
    const root = temp();
    const bad = path.join(root, 'bad.json');
    writeFileSync(bad, JSON.stringify({ decision_rule: {}, activation_gate: { checks: [] }, arms: [] }));
    const out = path.join(root, 'out');
    const r = study(['--spec', bad, '--out', out, '--data-dir', gsm8kDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rl-adv: .*decision_rule\.method/s);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(out)).toBe(false);
  });

  it('an unwritable or non-empty --out: exit 2 and nothing written', () => {
    const root = temp();
    writeFileSync(path.join(root, 'file'), 'x');
    const r = study(['--spec', specPath, '--out', path.join(root, 'file', 'out'), '--data-dir', gsm8kDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^rl-adv: --out .* cannot be created/);
    expect(readdirSync(root)).toEqual(['file']);
    const busy = study(['--spec', specPath, '--out', root, '--data-dir', gsm8kDir]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/is not empty: pass --resume/);
    expect(readdirSync(root)).toEqual(['file']);
  });

  it('bad options: exit 2 (coupling outside [0, 1], unknown backend or question set, clustered with --data-dir)', () => {
    const out = path.join(temp(), 'x');
    expect(study(['--spec', specPath, '--out', out, '--sim-coupling', '1.5']).code).toBe(2);
    const set = study(['--spec', specPath, '--out', out, '--sim-questions', 'mmlu']);
    expect(set.code).toBe(2);
    expect(set.stderr).toMatch(/--sim-questions.*must be "gsm8k" or "clustered"/);
    const both = study(['--spec', specPath, '--out', out, '--sim-questions', 'clustered', '--data-dir', gsm8kDir]);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^rl-adv: --data-dir does not apply to --sim-questions clustered: the clustered question set is built in/);
    const r = study(['--spec', specPath, '--out', out, '--backend', 'gpu']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--backend must be "sim", "tinker" or "trl"/);
    // The removed bootstrap option is an error that names what replaced it (0 used to turn the interval off silently).
    for (const value of ['0', '100']) {
      const old = study(['--spec', specPath, '--out', out, '--calibration-bootstrap', value]);
      expect(old.code).toBe(2);
      expect(old.stderr).toMatch(/--calibration-bootstrap.*the percentile bootstrap was removed.*--calibration-interval none/);
    }
    expect(study(['--spec', specPath, '--out', out, '--calibration-interval', 'percentile']).code).toBe(2);
    expect(existsSync(out)).toBe(false);
  });

  it('--backend tinker without TINKER_API_KEY is refused clearly (exit 2) before anything is written', () => {
    const out = path.join(temp(), 't');
    const r = study(['--spec', specPath, '--out', out, '--backend', 'tinker', '--data-dir', gsm8kDir], { TINKER_API_KEY: '' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--backend tinker: TINKER_API_KEY is not set/);
    expect(existsSync(out)).toBe(false);
    const questions = study(['--spec', specPath, '--out', out, '--backend', 'tinker', '--sim-questions', 'clustered'], { TINKER_API_KEY: 'fake' });
    expect(questions.code).toBe(2);
    expect(questions.stderr).toMatch(/--sim-questions applies to --backend sim only/);
    expect(existsSync(out)).toBe(false);
  });
});
