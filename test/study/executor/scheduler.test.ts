// The study's one scheduler of described jobs (src/study/jobs.ts JobScheduler) with a fake executor: lost attempts
// retried up to --job-retries, a driver's failure never retried and stopping the rest, Ctrl-C cancelling what runs,
// and one ledger line per attempt in RUN/jobs.jsonl.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../../src/errors.js';
import { readLedger } from '../../../src/study/executor/ledger.js';
import { JobLostError, type Executor, type JobAttempt, type JobDescription } from '../../../src/study/executor/types.js';
import { JobScheduler } from '../../../src/study/jobs.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-sched-'));

function job(id: string, kind: JobDescription['kind'] = 'train'): JobDescription {
  return {
    id,
    kind,
    arm: 'grpo_g8',
    seed: 2,
    resources: { gpus: 1, cpus: 1 },
    reads: [],
    writes: [],
    command: { argv: ['true'], env: {}, cwd: '/' },
    logFile: `/nowhere/${id}.log`,
  };
}

/** An executor whose attempts follow a script per job id: 'done', 'lost', 'failed' or 'hang' (until aborted). */
class FakeExecutor implements Executor {
  readonly name = 'ray' as const;
  readonly calls: { id: string; attempt: number }[] = [];
  running = 0;
  most = 0;

  constructor(private readonly script: Record<string, readonly ('done' | 'lost' | 'failed' | 'hang')[]>) {}

  prepare(): Promise<void> {
    return Promise.resolve();
  }

  async run(j: JobDescription, attempt: number, signal: AbortSignal): Promise<JobAttempt> {
    this.calls.push({ id: j.id, attempt });
    this.running++;
    this.most = Math.max(this.most, this.running);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const what = this.script[j.id]?.[attempt - 1] ?? 'done';
      const placement = { node: `node-${attempt}`, gpuIds: [String(attempt - 1)] };
      if (what === 'lost') throw new JobLostError(`node-${attempt} died`, placement);
      if (what === 'failed') throw new RlAdvantagesError(`driver of ${j.id} failed with exit code 1:\n  ValueError: bad arm`, { code: 'driver_failed' });
      if (what === 'hang') {
        await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new RlAdvantagesError(`job ${j.id} was cancelled`, { code: 'job_cancelled' }))));
      }
      return { stdout: `${j.id} ok\n`, placement };
    } finally {
      this.running--;
    }
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

describe('JobScheduler', () => {
  it('retries a lost attempt (the job continues on another node) and writes one ledger line per attempt', async () => {
    const dir = temp();
    const executor = new FakeExecutor({ 'train/full/grpo_g8/seed-2': ['lost', 'lost', 'done'] });
    const scheduler = new JobScheduler({ executor, runDir: dir, limit: 2, retries: 2 });
    const attempt = await scheduler.run(job('train/full/grpo_g8/seed-2'));
    expect(attempt).toEqual({ stdout: 'train/full/grpo_g8/seed-2 ok\n', placement: { node: 'node-3', gpuIds: ['2'] } });
    const ledger = readLedger(dir);
    expect(ledger.map((l) => [l.attempt, l.outcome, l.node, l.gpu_ids])).toEqual([
      [1, 'lost', 'node-1', ['0']],
      [2, 'lost', 'node-2', ['1']],
      [3, 'done', 'node-3', ['2']],
    ]);
    expect(ledger[0]).toMatchObject({ job: 'train/full/grpo_g8/seed-2', kind: 'train', arm: 'grpo_g8', seed: 2, executor: 'ray' });
    expect(Object.keys(ledger[0] ?? {})).toEqual(['job', 'kind', 'arm', 'seed', 'node', 'gpu_ids', 'attempt', 'start', 'end', 'outcome', 'executor']);
    for (const l of ledger) expect(Date.parse(l.end)).toBeGreaterThanOrEqual(Date.parse(l.start));
    // Whole lines, each a JSON object.
    expect(readFileSync(path.join(dir, 'jobs.jsonl'), 'utf8').endsWith('}\n')).toBe(true);
  });

  it('gives up after --job-retries lost attempts with the loss', async () => {
    const dir = temp();
    const executor = new FakeExecutor({ eval: ['lost', 'lost'] });
    const scheduler = new JobScheduler({ executor, runDir: dir, limit: 1, retries: 1 });
    await expect(scheduler.run(job('eval', 'eval'))).rejects.toThrow(/node-2 died/);
    expect(executor.calls).toEqual([
      { id: 'eval', attempt: 1 },
      { id: 'eval', attempt: 2 },
    ]);
    expect(readLedger(dir).map((l) => l.outcome)).toEqual(['lost', 'lost']);
  });

  it("never retries a driver's failure, stops the study with its message and cancels the running jobs", async () => {
    const dir = temp();
    const executor = new FakeExecutor({ a: ['hang'], b: ['failed', 'done'], c: ['done'] });
    const scheduler = new JobScheduler({ executor, runDir: dir, limit: 2, retries: 2 });
    const error = await scheduler.runAll([job('a'), job('b'), job('c')]).catch((e: unknown) => e);
    expect((error as RlAdvantagesError).code).toBe('driver_failed');
    expect((error as Error).message).toMatch(/^driver of b failed with exit code 1:\n {2}ValueError: bad arm$/);
    // b ran once; c never started (the limit held it back until the failure); a was cancelled.
    expect(executor.calls.filter((c) => c.id === 'b')).toHaveLength(1);
    expect(executor.calls.some((c) => c.id === 'c')).toBe(false);
    const outcomes = Object.fromEntries(readLedger(dir).map((l) => [l.job, l.outcome]));
    expect(outcomes).toEqual({ a: 'cancelled', b: 'failed' });
  });

  it('cancels every running attempt on Ctrl-C (the signal) and starts no new one', async () => {
    const dir = temp();
    const interrupt = new AbortController();
    const executor = new FakeExecutor({ a: ['hang'], b: ['hang'], c: ['done'] });
    const scheduler = new JobScheduler({ executor, runDir: dir, limit: 2, retries: 2, signal: interrupt.signal });
    const all = scheduler.runAll([job('a'), job('b'), job('c')]).catch((e: unknown) => e);
    await new Promise((resolve) => setTimeout(resolve, 50));
    interrupt.abort();
    const error = await all;
    expect((error as RlAdvantagesError).code).toBe('job_cancelled');
    expect(executor.calls.map((c) => c.id)).toEqual(['a', 'b']);
    expect(readLedger(dir).map((l) => [l.job, l.outcome])).toEqual([
      ['a', 'cancelled'],
      ['b', 'cancelled'],
    ]);
  });

  it('runs at most `limit` attempts at once and returns the attempts in the jobs\' order', async () => {
    const executor = new FakeExecutor({});
    const scheduler = new JobScheduler({ executor, runDir: temp(), limit: 3, retries: 0 });
    const ids = Array.from({ length: 8 }, (_, i) => `j${i}`);
    const attempts = await scheduler.runAll(ids.map((id) => job(id)));
    expect(attempts.map((a) => a.stdout)).toEqual(ids.map((id) => `${id} ok\n`));
    expect(executor.most).toBe(3);
  });

  it("records an attempt's start as the time its process started on the node, not the time it waited in a queue", async () => {
    // A Ray task waits in the cluster's queue until a node has its resources; three such waits once made three evals
    // that ran one after another on one GPU look concurrent in the ledger.
    const started = new Date(Date.now() + 60_000);
    const executor: Executor = {
      name: 'ray',
      prepare: () => Promise.resolve(),
      run: () => Promise.resolve({ stdout: '', placement: { node: 'n1', gpuIds: ['0'], started } }),
      close: () => Promise.resolve(),
    };
    const runDir = temp();
    await new JobScheduler({ executor, runDir, limit: 2, retries: 0 }).run(job('queued'));
    const [line] = readLedger(runDir);
    expect(line).toMatchObject({ job: 'queued', node: 'n1', gpu_ids: ['0'], start: started.toISOString(), outcome: 'done' });
  });

  it('refuses a bad --job-retries or limit, naming the flag', () => {
    const executor = new FakeExecutor({});
    expect(() => new JobScheduler({ executor, runDir: temp(), limit: 1, retries: -1 })).toThrow(/^--job-retries must be an integer >= 0, got -1$/);
    expect(() => new JobScheduler({ executor, runDir: temp(), limit: 0, retries: 0 })).toThrow(/^--jobs must be an integer >= 1, got 0$/);
  });
});
