// The CLI's one warning about the kernel's worker threads (src/cli/threads-warning.ts): printed once
// on stderr when workers were wanted and did not start, never otherwise; the output is unchanged.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { configureKernelThreads } from '../../src/kernels/kernel-threads.js';
import { repoRoot } from '../helpers/paths.js';
import { cliPath, tempDir, writeJsonl } from './run.js';

/** 2100 distinct prompts (enough for the kernel's 8 row blocks) and a corpus to fit on. */
function files(): { input: string; corpus: string } {
  const dir = tempDir();
  const words = Array.from({ length: 200 }, (_, k) => `w${k.toString(36)}x`);
  const rows = Array.from({ length: 2100 }, (_, i) => ({
    prompt: `${words[(i * 7) % 200]} ${words[(i * 13) % 200]} ${words[i % 17]} id${i}`,
    reward: i % 3 === 0 ? 1 : 0,
  }));
  const corpus = join(dir, 'corpus.txt');
  writeFileSync(corpus, rows.slice(0, 500).map((r) => r.prompt).join('\n') + '\n');
  return { input: writeJsonl(dir, 'rollouts.jsonl', rows), corpus };
}

const WARNING = /^rl-adv: warning: the TF-IDF kernel runs on 1 of 2 threads \((.*)\); results are the same, only slower\. Set RL_ADV_THREADS=1 to run on one thread without this warning\.$/gm;

function cli(nodeFlags: string[], args: string[], threads: string): { code: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [...nodeFlags, cliPath, ...args], {
    encoding: 'utf8',
    cwd: repoRoot,
    env: { ...process.env, RL_ADV_THREADS: threads },
    maxBuffer: 64 * 1024 * 1024,
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

afterAll(() => configureKernelThreads({}));

describe('rl-adv warns once when kernel workers could not start', () => {
  const { input, corpus } = files();
  const args = ['advantages', '--estimator', 'tfidf_kernel_loo_T0.1', '--corpus', corpus, '--input', input];

  it('in-process from source (no built worker script next to the module): one warning naming why', async () => {
    configureKernelThreads({ threads: 2 });
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let out = '';
    let err = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await runCli(args, { stdout, stderr, stdin: Readable.from([]) });
    expect(code).toBe(0);
    expect(out.trim().split('\n')).toHaveLength(2100);
    const warnings = [...err.matchAll(WARNING)];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.[1]).toMatch(/kernel-worker\.js is not next to the library/);
  });

  it.skipIf(availableParallelism() < 2)('dist/cli.js where workers are not allowed: one warning, the same output', () => {
    const normal = cli([], args, '2');
    expect(normal.code).toBe(0);
    // Only the diagnostics line, no warning.
    expect(normal.stderr).toMatch(/^rl-adv: 2100 groups \(2100 of one, [^\n]*\n$/);
    const denied = cli(['--experimental-permission', '--allow-fs-read=*'], args, '2');
    expect(denied.code).toBe(0);
    const warnings = [...denied.stderr.matchAll(WARNING)];
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.[1]).toMatch(/^kernel workers could not start: /);
    expect(denied.stdout).toBe(normal.stdout);
  });

  it('RL_ADV_THREADS=1 has nothing to warn about; a bad value exits 2 naming the variable', () => {
    const one = cli([], args, '1');
    expect(one.code).toBe(0);
    expect(one.stderr).toMatch(/^rl-adv: 2100 groups \(2100 of one, [^\n]*\n$/);
    const bad = cli([], ['advantages', '--estimator', 'loo_batch_mean', '--input', input], 'all');
    expect(bad.code).toBe(2);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toBe(
      'rl-adv: environment variable RL_ADV_THREADS must be a positive integer (1 = no worker threads, N = at most N threads), got "all"\n',
    );
  });
});
