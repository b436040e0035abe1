// Runs the built rl-adv (dist/cli.js) in a real subprocess, as a user would.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from '../helpers/paths.js';

export { specPath } from '../helpers/paths.js';

export const cliPath = resolve(repoRoot, 'dist', 'cli.js');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `node dist/cli.js ...args` with `input` on stdin (nothing when omitted), in `cwd`. */
export function rlAdv(args: readonly string[], options: { input?: string; cwd?: string } = {}): CliRun {
  if (!existsSync(cliPath)) throw new Error(`${cliPath} is missing: build first (npx tsup, or npm test)`);
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
