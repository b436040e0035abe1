import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../../src/errors.js';
import { runDriver, type DriverRun } from '../../../src/study/backends/driver-process.js';

/** A "driver" run by node itself (`-e CODE`), in a fresh run folder. */
function driver(code: string): DriverRun {
  return {
    python: process.execPath,
    args: ['-e', code],
    env: process.env,
    runDir: mkdtempSync(path.join(tmpdir(), 'rl-adv-driver-')),
    logName: 'train',
    label: 'train driver',
    unavailable: (message) => new RlAdvantagesError(message, { code: 'unavailable' }),
  };
}

describe('runDriver', () => {
  it('returns the stdout of a driver that exits 0 and keeps its stderr in RUN/logs', async () => {
    const run = driver('console.log("{\\"ok\\": 1}"); console.error("progress")');
    await expect(runDriver(run)).resolves.toBe('{"ok": 1}\n');
    expect(readFileSync(path.join(run.runDir, 'logs', 'train.log'), 'utf8')).toBe('progress\n');
  });

  it('names the exit code of a failed driver and quotes its log', async () => {
    await expect(runDriver(driver('console.error("bad input"); process.exit(2)'))).rejects.toThrow(/^train driver failed with exit code 2 \(log .*train\.log\):\n {2}bad input$/);
  });

  it('names the signal that killed a driver (a killed arm, resumed from its checkpoint by --resume)', async () => {
    const error = await runDriver(driver('console.error("step 2 saved"); process.kill(process.pid, "SIGKILL")')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RlAdvantagesError);
    expect((error as RlAdvantagesError).code).toBe('driver_failed');
    expect((error as Error).message).toMatch(/^train driver was killed by SIGKILL \(log .*train\.log\):\n {2}step 2 saved$/);
  });

  it('keeps an earlier attempt\'s log (a killed driver run again by --resume) as <name>.1.log, then .2.log', async () => {
    const run = driver('console.error("attempt")');
    const logs = path.join(run.runDir, 'logs');
    await runDriver({ ...run, args: ['-e', 'console.error("first attempt"); process.kill(process.pid, "SIGKILL")'] }).catch(() => undefined);
    await runDriver({ ...run, args: ['-e', 'console.error("second attempt")'] });
    await runDriver({ ...run, args: ['-e', 'console.error("third attempt")'] });
    expect(readFileSync(path.join(logs, 'train.1.log'), 'utf8')).toBe('first attempt\n');
    expect(readFileSync(path.join(logs, 'train.2.log'), 'utf8')).toBe('second attempt\n');
    expect(readFileSync(path.join(logs, 'train.log'), 'utf8')).toBe('third attempt\n');
  });
});
