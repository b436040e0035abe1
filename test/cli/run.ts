// Runs rl-adv as a user would, but in this process: the program's own entry function (runCli, which src/cli.ts
// calls) with buffers for its streams, `cwd` as the working folder and NO_COLOR=1, so a test pays no node start-up
// and no bundle load per command. `rlAdvProcess` runs the built dist/cli.js in a real subprocess, for the few tests
// that need a process (signals, the executable's own start-up).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { runCli } from '../../src/cli/program.js';
import { repoRoot } from '../helpers/paths.js';

export { specPath } from '../helpers/paths.js';

export const cliPath = resolve(repoRoot, 'dist', 'cli.js');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A stream that keeps what is written to it. */
class Collect extends Writable {
  private readonly chunks: Buffer[] = [];

  override _write(chunk: Buffer | string, encoding: BufferEncoding, done: () => void): void {
    this.chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, encoding) : chunk);
    done();
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** One command at a time: the working folder and NO_COLOR are the process's. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `rl-adv ...args` in this process with `input` on stdin (nothing when omitted), in `cwd` (the repository by
 * default): the exit code runCli returns, 70 with the message on stderr for an error it throws (as src/cli.ts does).
 */
export function rlAdv(args: readonly string[], options: { input?: string; cwd?: string } = {}): Promise<CliRun> {
  const run = queue.then(async () => {
    const stdout = new Collect();
    const stderr = new Collect();
    const stdin = Readable.from(options.input === undefined || options.input === '' ? [] : [Buffer.from(options.input)]);
    const before = process.cwd();
    const color = process.env.NO_COLOR;
    process.env.NO_COLOR = '1';
    process.chdir(options.cwd ?? repoRoot);
    let code: number;
    try {
      code = await runCli(args, { stdout, stderr, stdin });
    } catch (error) {
      stderr.write(`rl-adv: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      code = 70;
    } finally {
      process.chdir(before);
      if (color === undefined) delete process.env.NO_COLOR;
      else process.env.NO_COLOR = color;
    }
    return { code, stdout: stdout.text(), stderr: stderr.text() };
  });
  queue = run.catch(() => undefined);
  return run;
}

/** Runs `node dist/cli.js ...args` in a real subprocess with `input` on stdin (nothing when omitted), in `cwd`. */
export function rlAdvProcess(args: readonly string[], options: { input?: string; cwd?: string } = {}): CliRun {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npm run build, or npm test)`);
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    input: options.input ?? '',
    cwd: options.cwd ?? repoRoot,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A fresh temporary folder. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'rl-adv-cli-'));
}

/** Writes `rows` as JSON lines into `dir/name` and returns the path. */
export function writeJsonl(dir: string, name: string, rows: readonly unknown[]): string {
  const path = join(dir, name);
  writeFileSync(path, rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
  return path;
}

/** Parses JSON-lines output. */
export function parseLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as unknown);
}
