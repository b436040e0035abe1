// npm run bench finds GSM8K as every rl-adv command does (GSM8K_DIR, the cache, a download), and without it prints
// the how-to message with exit 2 instead of a stack trace (bench/gsm8k.mjs).
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gsm8kDir, repoRoot } from '../helpers/paths.js';
import { tempDir } from '../cli/run.js';

function bench(env: Record<string, string>): { code: number | null; stdout: string; stderr: string } {
  const { GSM8K_DIR: _dropped, RL_ADV_CACHE_DIR: _cache, RL_ADV_OFFLINE: _offline, ...rest } = process.env;
  const result = spawnSync(process.execPath, [resolve(repoRoot, 'bench', 'run.mjs'), '--gsm8k'], { cwd: repoRoot, encoding: 'utf8', env: { ...rest, ...env } });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run bench: GSM8K', () => {
  it('is read from the cache when GSM8K_DIR is not set', () => {
    const cache = tempDir();
    mkdirSync(join(cache, 'gsm8k'));
    for (const name of ['train.jsonl', 'test.jsonl', 'example_model_solutions.jsonl']) symlinkSync(join(gsm8kDir, name), join(cache, 'gsm8k', name));
    const run = bench({ RL_ADV_CACHE_DIR: cache, RL_ADV_OFFLINE: '1' });
    expect([run.code, run.stdout, run.stderr]).toEqual([0, `${join(cache, 'gsm8k')}\n`, '']);
  });

  it('without it (offline, empty cache): the how-to message and exit 2, no stack trace', () => {
    const run = bench({ RL_ADV_CACHE_DIR: tempDir(), RL_ADV_OFFLINE: '1' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^bench: the benchmark reads GSM8K\. .*rl-adv data gsm8k.*RL_ADV_OFFLINE is set/s);
    expect(run.stderr).not.toMatch(/\n\s+at |ENOENT/);
  });
});
