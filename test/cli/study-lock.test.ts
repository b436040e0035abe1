// Two processes on one run folder, through the built CLI: a live run's folder is refused to a second `study` (with
// or without --resume) and to `report`, naming the holder's pid; a killed run's stale lock is taken over by
// --resume; a kill under --jobs 2 resumes to the uninterrupted run's bytes; rl-adv's own temporaries are removed
// on resume and the user's `*.tmp-<digits>` files are kept.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, specPath } from '../helpers/paths.js';

const cli = path.join(repoRoot, 'dist', 'cli.js');
const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-lock-'));

function rlAdv(args: readonly string[], env: NodeJS.ProcessEnv = {}): { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const quick = (out: string, spec = specPath, jobs = '2'): string[] => [
  'study', '--spec', spec, '--out', out, '--sim-questions', 'clustered', '--sim-coupling', '0.9', '--steps', '12', '--eval-limit', '60',
  '--calibration-batches', '300', '--calibration-interval', 'none', '--jobs', jobs,
];

/** Every file of a run but summary.json and the reports (their wall times differ), relative and sorted. */
function artifacts(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((f) => /\.(json|jsonl)$/.test(f) && !['summary.json'].includes(f))
    .sort();
}

/** The run's files are byte for byte those of `whole`, and summary.json's numbers are the same. */
function expectSameRun(dir: string, whole: string): void {
  expect(artifacts(dir)).toEqual(artifacts(whole));
  for (const f of artifacts(whole)) expect(readFileSync(path.join(dir, f)).equals(readFileSync(path.join(whole, f))), f).toBe(true);
  const numbers = (d: string): unknown => {
    const s = JSON.parse(readFileSync(path.join(d, 'summary.json'), 'utf8')) as Record<string, unknown>;
    return [s.calibration, s.gate, s.arms, s.eval, s.decision, s.replicates, s.learning];
  };
  expect(numbers(dir)).toEqual(numbers(whole));
}

/** Blocks until process `pid` is stopped (state T in /proc/PID/stat), or has exited. */
function waitStopped(child: ChildProcess): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the run exited (${child.exitCode}) before its stop point`);
    const stat = readFileSync(`/proc/${child.pid as number}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('T')) return;
    Atomics.wait(pause, 0, 0, 20);
  }
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
    else child.on('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** A run of `args` stopped (SIGSTOP) in gs1_tfidf_g1's step 5, after its log line and before its checkpoint. */
function stoppedRun(args: readonly string[]): ChildProcess {
  const child = spawn(process.execPath, [cli, ...args], { env: { ...process.env, RL_ADV_SIM_STOP_AT: 'gs1_tfidf_g1:5' }, stdio: 'ignore' });
  waitStopped(child);
  return child;
}

const leftovers = (dir: string): string[] => (readdirSync(dir, { recursive: true }) as string[]).filter((f) => /\.rl-adv-tmp-|\.rl-adv\.lock/.test(f));

describe('one writer per run folder', () => {
  const whole = path.join(temp(), 'whole');
  it('the uninterrupted run the others are compared with', () => {
    expect(rlAdv(quick(whole)).code).toBe(0);
    expect(leftovers(whole)).toEqual([]);
  });

  it('while a run is live, a second study (with or without --resume) and report are refused at once (exit 2, naming its pid); the first ends as if alone', async () => {
    const dir = path.join(temp(), 'run');
    const first = stoppedRun(quick(dir));
    const pid = first.pid as number;
    try {
      for (const args of [[...quick(dir), '--resume'], quick(dir), ['report', dir]]) {
        const second = rlAdv(args);
        expect(second.code, args.join(' ')).toBe(2);
        expect(second.stderr).toMatch(new RegExp(`^rl-adv: (--out )?${dir.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by rl-adv study \\(pid ${pid} on .*\\): two processes never write one run\\. Wait for it to end, or stop it \\(kill ${pid}\\) and continue with --resume\\.`));
        expect(second.stderr.trim().split('\n')).toHaveLength(1);
        expect(second.stdout).toBe('');
      }
    } finally {
      first.kill('SIGCONT');
    }
    expect(await exited(first)).toEqual({ code: 0, signal: null });
    expectSameRun(dir, whole);
    expect(leftovers(dir)).toEqual([]);
  });

  it("a killed run's stale lock is taken over by --resume, which ends with the uninterrupted run's bytes; the user's *.tmp-<digits> files are kept", async () => {
    const dir = path.join(temp(), 'run');
    const first = stoppedRun(quick(dir));
    first.kill('SIGKILL');
    expect((await exited(first)).signal).toBe('SIGKILL');
    expect(existsSync(path.join(dir, '.rl-adv.lock'))).toBe(true);
    // The user's files with names like the old temporaries' (`<name>.tmp-<digits>`), and a temporary of rl-adv's own
    // left by a dead process.
    writeFileSync(path.join(dir, 'notes.tmp-123'), 'mine');
    mkdirSync(path.join(dir, 'mine'), { recursive: true });
    writeFileSync(path.join(dir, 'mine', 'state.json.tmp-456'), 'mine too');
    writeFileSync(path.join(dir, 'arms', '.rl-adv-tmp-999999999-0123abcd'), 'torn');
    const resumed = rlAdv([...quick(dir), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(readFileSync(path.join(dir, 'notes.tmp-123'), 'utf8')).toBe('mine');
    expect(readFileSync(path.join(dir, 'mine', 'state.json.tmp-456'), 'utf8')).toBe('mine too');
    expect(leftovers(dir)).toEqual([]);
    expectSameRun(dir, whole);
  });

  it('two studies started at once on one empty folder: one runs, the other is refused or finds the run done; the folder is one run', async () => {
    const dir = path.join(temp(), 'run');
    const start = (): ChildProcess => spawn(process.execPath, [cli, ...quick(dir), '--resume'], { stdio: ['ignore', 'ignore', 'pipe'] });
    const runs = [start(), start()];
    const stderr = runs.map((r) => {
      let text = '';
      r.stderr?.on('data', (d: Buffer) => (text += d.toString()));
      return () => text;
    });
    const ends = await Promise.all(runs.map(exited));
    // Either both ran one after the other (the second resumed a finished run) or one was refused with exit 2.
    for (const [k, end] of ends.entries()) {
      expect([0, 2], stderr[k]?.()).toContain(end.code);
      if (end.code === 2) expect(stderr[k]?.()).toMatch(/is in use by rl-adv study \(pid \d+/);
    }
    expect(ends.filter((e) => e.code === 0).length).toBeGreaterThanOrEqual(1);
    expectSameRun(dir, whole);
  });
});

describe('a replicated run killed under --jobs 2', () => {
  const spec = path.join(temp(), 'spec.json');
  const raw = JSON.parse(readFileSync(specPath, 'utf8')) as { decision_rule: Record<string, unknown> };
  raw.decision_rule.seeds = [0, 3];
  writeFileSync(spec, JSON.stringify(raw, null, 2));

  it('resumes with --jobs 2 to the bytes of an uninterrupted run, and says where each seed is', () => {
    const whole = path.join(temp(), 'whole');
    expect(rlAdv(quick(whole, spec)).code).toBe(0);
    const cut = path.join(temp(), 'cut');
    // --jobs 2 starts seed 0's two arms first: the kill lands in seed 0's gs1 arm, step 4, with grpo_g8 seed 0 done.
    const killed = rlAdv(quick(cut, spec), { RL_ADV_SIM_KILL_AT: 'gs1_tfidf_g1:4' });
    expect(killed.signal).toBe('SIGKILL');
    const resumed = rlAdv([...quick(cut, spec), '--resume']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      'rl-adv study: resuming: preflight, calibration, pilot, gate done; continuing with arms (grpo_g8 seed 0 done, seed 3 at step 0 of 12; gs1_tfidf_g1 seed 0 at step 5 of 12, seed 3 at step 0 of 12)',
    );
    expectSameRun(cut, whole);
    expect(leftovers(cut)).toEqual([]);
  });
});
