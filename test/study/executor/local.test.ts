// The local executor: a job's command as a child process, its stdout returned and its stderr (and a stdout copy)
// kept in the job's log, an earlier attempt's log kept, a failure named with the log's tail, and --gpus: one job per
// listed GPU at a time, each seeing only its own (CUDA_VISIBLE_DEVICES), recorded by a fake driver.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../../src/errors.js';
import { LocalExecutor } from '../../../src/study/executor/local.js';
import { readLedger } from '../../../src/study/executor/ledger.js';
import type { JobDescription } from '../../../src/study/executor/types.js';
import { JobScheduler } from '../../../src/study/jobs.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-local-'));
const signal = (): AbortSignal => new AbortController().signal;

/** A job whose "driver" is node itself running `code`. */
function nodeJob(dir: string, id: string, code: string, env: Record<string, string> = {}): JobDescription {
  return {
    id,
    kind: 'train',
    resources: { gpus: 1, cpus: 1 },
    reads: [],
    writes: [],
    command: { argv: [process.execPath, '-e', code], env, cwd: dir },
    logFile: path.join(dir, 'logs', `${id.split('/').join('_')}.log`),
  };
}

describe('LocalExecutor', () => {
  it("returns the stdout of a job that exits 0, keeps its stderr then a stdout copy in its log, and names this machine", async () => {
    const dir = temp();
    const attempt = await new LocalExecutor().run(nodeJob(dir, 'train/full/a', 'console.log("{\\"ok\\": 1}"); console.error("progress")'), 1, signal());
    expect(attempt.stdout).toBe('{"ok": 1}\n');
    expect(attempt.placement.gpuIds).toEqual([]);
    expect(attempt.placement.node.length).toBeGreaterThan(0);
    expect(readFileSync(path.join(dir, 'logs', 'train_full_a.log'), 'utf8')).toBe('progress\n{"ok": 1}\n');
  });

  it('names the exit code or the signal of a failed job (driver_failed) and quotes the tail of its stderr', async () => {
    const dir = temp();
    const run = (code: string): Promise<unknown> => new LocalExecutor().run(nodeJob(dir, 'eval', code), 1, signal()).catch((e: unknown) => e);
    const failed = await run('console.log("stdout line"); console.error("bad input"); process.exit(2)');
    expect(failed).toBeInstanceOf(RlAdvantagesError);
    expect((failed as RlAdvantagesError).code).toBe('driver_failed');
    expect((failed as Error).message).toMatch(/^-e failed with exit code 2 \(log .*eval\.log\):\n {2}bad input$/);
    const killed = await run('console.error("step 2 saved"); process.kill(process.pid, "SIGKILL")');
    expect((killed as Error).message).toMatch(/^-e was killed by SIGKILL \(log .*eval\.log\):\n {2}step 2 saved$/);
  });

  it("keeps an earlier attempt's log as <name>.1.log, then .2.log", async () => {
    const dir = temp();
    const ex = new LocalExecutor();
    for (const word of ['first', 'second', 'third']) await ex.run(nodeJob(dir, 'train', `console.error("${word} attempt")`), 1, signal());
    expect(readdirSync(path.join(dir, 'logs')).sort()).toEqual(['train.1.log', 'train.2.log', 'train.log']);
    expect(readFileSync(path.join(dir, 'logs', 'train.1.log'), 'utf8')).toBe('first attempt\n');
    expect(readFileSync(path.join(dir, 'logs', 'train.log'), 'utf8')).toBe('third attempt\n');
  });

  it('adds the job\'s environment and cancels the process on abort (job_cancelled)', async () => {
    const dir = temp();
    const abort = new AbortController();
    const pending = new LocalExecutor().run(nodeJob(dir, 'hang', 'console.error(process.env.RL_ADV_X); setInterval(() => {}, 1000)', { RL_ADV_X: 'given' }), 1, abort.signal);
    // Aborted once the process has started (its line is in the log).
    const log = path.join(dir, 'logs', 'hang.log');
    while (!(existsSync(log) && readFileSync(log, 'utf8') === 'given\n')) await new Promise((resolve) => setTimeout(resolve, 20));
    abort.abort();
    const error = await pending.catch((e: unknown) => e);
    expect((error as RlAdvantagesError).code).toBe('job_cancelled');
    expect(readFileSync(path.join(dir, 'logs', 'hang.log'), 'utf8')).toBe('given\n');
  });

  it('--gpus: concurrent jobs see distinct GPUs (CUDA_VISIBLE_DEVICES), one job per listed GPU at a time', async () => {
    const dir = temp();
    // The fake driver records its GPU and when it ran, then holds its GPU for a while.
    const code = (i: number): string =>
      `const fs = require("fs"); const t0 = Date.now(); const end = t0 + 400; while (Date.now() < end) {} ` +
      `fs.writeFileSync(${JSON.stringify(path.join(dir, `rec${i}.json`))}, JSON.stringify({ gpu: process.env.CUDA_VISIBLE_DEVICES, t0, t1: Date.now() }))`;
    const executor = new LocalExecutor({ gpus: ['0', '1'], env: { ...process.env, CUDA_VISIBLE_DEVICES: '0,1,2,3' } });
    const scheduler = new JobScheduler({ executor, runDir: dir, limit: 4, retries: 0 });
    const attempts = await scheduler.runAll([0, 1, 2, 3].map((i) => nodeJob(dir, `train/full/a${i}`, code(i))));
    const recs = [0, 1, 2, 3].map((i) => JSON.parse(readFileSync(path.join(dir, `rec${i}.json`), 'utf8')) as { gpu: string; t0: number; t1: number });
    expect(recs.map((r) => r.gpu).sort()).toEqual(['0', '0', '1', '1']);
    // Any two jobs that overlapped in time had different GPUs; what each saw is what the ledger and placement say.
    for (const a of recs) for (const b of recs) if (a !== b && a.t0 < b.t1 && b.t0 < a.t1) expect(a.gpu).not.toBe(b.gpu);
    expect(attempts.map((a) => a.placement.gpuIds.join(','))).toEqual(recs.map((r) => r.gpu));
    expect(readLedger(dir).map((l) => l.gpu_ids.join(',')).sort()).toEqual(['0', '0', '1', '1']);
  });

  it('refuses an empty or repeated --gpus id, and a job needing more GPUs than listed (--job-gpus)', async () => {
    expect(() => new LocalExecutor({ gpus: ['0', '0'] })).toThrow(/^--gpus must list distinct GPU ids/);
    const dir = temp();
    const big = { ...nodeJob(dir, 'train', ''), resources: { gpus: 4, cpus: 1 } };
    await expect(new LocalExecutor({ gpus: ['0', '1'] }).prepare(dir, [big])).rejects.toThrow(/^--job-gpus: job train needs 4 GPUs but --gpus lists 2 \(0,1\)$/);
  });
});
