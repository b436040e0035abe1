// Running a real backend's Python driver as a subprocess: stdout is returned, stdout and stderr are kept in
// RUN/logs/<name>.log, and a driver that fails is reported with its exit code and the tail of its log. Shared by the
// Tinker backend (examples/tinker-cookbook scripts) and the TRL backend (python -m rl_advantages.study).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync } from 'node:fs';
import path from 'node:path';
import { RlAdvantagesError } from '../../errors.js';
import { pathUnder } from '../../internal/path-parts.js';

/** One driver run. */
export interface DriverRun {
  /** The Python interpreter. */
  readonly python: string;
  /** Its arguments (the script or `-m module`, then the driver's own). */
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The run folder: the log goes to RUN/logs/<logName>.log. */
  readonly runDir: string;
  readonly logName: string;
  /** How the driver is named in messages (e.g. `run_arm.py`). */
  readonly label: string;
  /** The error for a driver that cannot start (the backend's `*_unavailable`). */
  readonly unavailable: (message: string) => RlAdvantagesError;
}

/** Lines of the log's tail quoted in a failure message. */
const TAIL_LINES = 5;

/** An earlier attempt's log (a driver killed, then run again by --resume) moves to RUN/logs/<name>.<n>.log, n the
 * first free number, so that the new attempt never overwrites it. */
function keepEarlierLog(logs: string, name: string): void {
  const current = path.join(logs, `${name}.log`);
  if (!existsSync(current) || statSync(current).size === 0) return;
  let n = 1;
  while (existsSync(path.join(logs, `${name}.${n}.log`))) n++;
  renameSync(current, path.join(logs, `${name}.${n}.log`));
}

/**
 * Runs one driver to its end.
 *
 * @returns its stdout.
 * @throws {RlAdvantagesError} `driver_failed` with the exit code (or the signal that killed it), the log file and the
 *   log's last lines when it exits non-zero; the backend's unavailable error when it cannot start.
 * @example
 * ```ts
 * const out = await runDriver({ python: 'python3', args: ['-m', 'rl_advantages.study', 'probe', ...], env: process.env, runDir, logName: 'probe', label: 'probe', unavailable });
 * ```
 */
export function runDriver(run: DriverRun): Promise<string> {
  const logs = path.join(run.runDir, 'logs');
  mkdirSync(logs, { recursive: true });
  const logFile = pathUnder(run.runDir, 'logs', `${run.logName}.log`);
  keepEarlierLog(logs, run.logName);
  return new Promise((resolve, reject) => {
    const fd = openSync(logFile, 'w');
    const child = spawn(run.python, [...run.args], { env: { ...run.env }, stdio: ['ignore', 'pipe', fd] });
    let stdout = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      closeSync(fd);
      reject(run.unavailable(`${run.label} could not start: ${error.message}`));
    });
    child.on('close', (code, signal) => {
      closeSync(fd);
      if (code === 0) {
        resolve(stdout);
        return;
      }
      const tail = readFileSync(logFile, 'utf8').trim().split('\n').slice(-TAIL_LINES).join('\n  ');
      const how = code === null ? `was killed by ${String(signal)}` : `failed with exit code ${String(code)}`;
      reject(new RlAdvantagesError(`${run.label} ${how} (log ${logFile}):\n  ${tail}`, { code: 'driver_failed' }));
    });
  });
}
