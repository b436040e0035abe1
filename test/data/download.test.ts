// The real download code against a loopback server (127.0.0.1) serving the GSM8K files of GSM8K_DIR: the cache
// is filled with the pinned hashes, and a corrupted file or a cut connection leaves nothing behind.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { copyGsm8k, downloadGsm8k } from '../../src/data/download.js';
import { ensureGsm8kDir } from '../../src/data/ensure.js';
import { GSM8K_FILES } from '../../src/data/gsm8k-source.js';
import { RlAdvantagesError } from '../../src/errors.js';
import { startGsm8kServer, type Gsm8kServer } from '../helpers/gsm8k-server.js';
import { gsm8kDir } from '../helpers/paths.js';

const ENV = ['GSM8K_DIR', 'RL_ADV_CACHE_DIR', 'RL_ADV_GSM8K_URL', 'RL_ADV_OFFLINE', 'XDG_CACHE_HOME'] as const;
const saved = Object.fromEntries(ENV.map((k) => [k, process.env[k]]));
let server: Gsm8kServer;
let root: string;
let cache: string;

const sha = (file: string): string => createHash('sha256').update(readFileSync(file)).digest('hex');

beforeAll(async () => {
  server = await startGsm8kServer(gsm8kDir);
});
afterAll(async () => {
  await server.close();
  for (const k of ENV) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
});
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'rl-adv-cache-'));
  cache = path.join(root, 'gsm8k');
  for (const k of ENV) delete process.env[k];
  process.env.RL_ADV_CACHE_DIR = root;
  process.env.RL_ADV_GSM8K_URL = server.base;
  server.faults = {};
  server.requests.length = 0;
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('downloadGsm8k from a loopback server', () => {
  it('fills the cache with the three files at their pinned sha256 and the LICENSE from <base>/../../LICENSE', async () => {
    const progress: number[] = [];
    const result = await downloadGsm8k({ onProgress: (p) => progress.push(p.received) });
    expect(result).toMatchObject({ dir: cache, source: server.base, fetched: true, license: true });
    for (const { name, sha256 } of GSM8K_FILES) expect(sha(path.join(cache, name))).toBe(sha256);
    expect(readFileSync(path.join(cache, 'LICENSE'))).toEqual(readFileSync(path.join(gsm8kDir, 'LICENSE')));
    expect(server.requests).toContain('/openai/grade-school-math/c0ffee/LICENSE');
    expect(progress.length).toBeGreaterThan(3);
    expect(readdirSync(root)).toEqual(['gsm8k']); // no staging folder left
    // A second call finds the verified files and fetches nothing.
    server.requests.length = 0;
    expect(await downloadGsm8k()).toMatchObject({ fetched: false });
    expect(server.requests).toEqual([]);
  });

  it('refuses a corrupted file: nothing in the cache, the message names the file and both hashes', async () => {
    server.faults = { corrupt: 'test.jsonl' };
    const expected = GSM8K_FILES.find((f) => f.name === 'test.jsonl')?.sha256 as string;
    const error = await downloadGsm8k().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RlAdvantagesError);
    expect((error as RlAdvantagesError).code).toBe('gsm8k_hash_mismatch');
    expect((error as Error).message).toMatch(new RegExp(`^test\\.jsonl from http://127\\.0\\.0\\.1:\\d+/.*/test\\.jsonl has sha256 [0-9a-f]{64}, expected ${expected}`));
    expect(readdirSync(root)).toEqual([]); // train.jsonl, already verified, was not kept either
  });

  it('reports a dropped connection by URL and leaves nothing', async () => {
    server.faults = { drop: 'train.jsonl' };
    const error = await downloadGsm8k().catch((e: unknown) => e);
    expect((error as RlAdvantagesError).code).toBe('gsm8k_download_failed');
    expect((error as Error).message).toMatch(/train\.jsonl/);
    expect(readdirSync(root)).toEqual([]);
  });

  it('treats a missing LICENSE as a warning', async () => {
    server.faults = { noLicense: true };
    const warnings: string[] = [];
    const result = await downloadGsm8k({ onWarning: (w) => warnings.push(w) });
    expect(result.license).toBe(false);
    expect(warnings).toEqual([expect.stringMatching(/licence could not be fetched .*HTTP 404/)]);
    expect(readdirSync(cache).sort()).toEqual(GSM8K_FILES.map((f) => f.name).sort());
  });

  it('leaves a file with other bytes that is already in the folder untouched', async () => {
    mkdirSync(cache);
    writeFileSync(path.join(cache, 'train.jsonl'), 'mine\n');
    await expect(downloadGsm8k()).rejects.toThrow(/train\.jsonl exists with sha256 [0-9a-f]{64}, not the expected/);
    expect(readFileSync(path.join(cache, 'train.jsonl'), 'utf8')).toBe('mine\n');
  });
});

describe('copyGsm8k (--from)', () => {
  it('verifies and copies a local copy', async () => {
    const result = await copyGsm8k(gsm8kDir);
    expect(result).toMatchObject({ dir: cache, fetched: true, license: true });
    for (const { name, sha256 } of GSM8K_FILES) expect(sha(path.join(cache, name))).toBe(sha256);
  });

  it('refuses a local copy with a wrong file, writing nothing', async () => {
    const from = path.join(root, 'mine');
    mkdirSync(from);
    for (const { name } of GSM8K_FILES) writeFileSync(path.join(from, name), readFileSync(path.join(gsm8kDir, name)));
    writeFileSync(path.join(from, 'example_model_solutions.jsonl'), '{}\n');
    await expect(copyGsm8k(from)).rejects.toThrow(/^example_model_solutions\.jsonl from .* has sha256 [0-9a-f]{64}, expected 4bc62db8/);
    expect(readdirSync(root)).toEqual(['mine']);
  });
});

describe('ensureGsm8kDir (first use)', () => {
  it('downloads into the cache once, saying what and from where', async () => {
    const notices: string[] = [];
    expect(await ensureGsm8kDir(undefined, { onNotice: (m) => notices.push(m) })).toBe(cache);
    expect(notices).toEqual([expect.stringContaining(`from ${server.base} into ${cache}`)]);
    expect(await ensureGsm8kDir(undefined, { onNotice: (m) => notices.push(m) })).toBe(cache);
    expect(notices).toHaveLength(1);
  });

  it('offline, or when the download fails, stops with one message that says how to provide the data', async () => {
    process.env.RL_ADV_OFFLINE = '1';
    const offline = (await ensureGsm8kDir().catch((e: unknown) => e)) as RlAdvantagesError;
    expect(offline.code).toBe('missing_gsm8k_dir');
    expect(offline.message).toMatch(/rl-adv data gsm8k --from DIR.*--data-dir DIR.*GSM8K_DIR=DIR.*RL_ADV_OFFLINE is set/);
    expect(server.requests).toEqual([]);
    delete process.env.RL_ADV_OFFLINE;
    server.faults = { corrupt: 'train.jsonl' };
    const failed = (await ensureGsm8kDir().catch((e: unknown) => e)) as RlAdvantagesError;
    expect(failed.message).toMatch(/^GSM8K not found, and downloading it failed: train\.jsonl from .* has sha256 .*rl-adv data gsm8k --from DIR/);
    expect(existsSync(cache)).toBe(false);
  });

  it('never downloads for a --data-dir or GSM8K_DIR that is not a folder', async () => {
    await expect(ensureGsm8kDir(path.join(root, 'nope'))).rejects.toThrow(/--data-dir is ".*nope", which is not a folder/);
    process.env.GSM8K_DIR = path.join(root, 'nope');
    await expect(ensureGsm8kDir()).rejects.toThrow(/GSM8K_DIR is ".*nope", which is not a folder/);
    expect(server.requests).toEqual([]);
  });
});

describe('rl-adv data gsm8k', () => {
  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    const chunks = { out: [] as Buffer[], err: [] as Buffer[] };
    stdout.on('data', (c: Buffer) => chunks.out.push(c));
    stderr.on('data', (c: Buffer) => chunks.err.push(c));
    const code = await runCli(args, { stdout, stderr, stdin: Readable.from([]) });
    return { code, stdout: Buffer.concat(chunks.out).toString(), stderr: Buffer.concat(chunks.err).toString() };
  }

  it('downloads into --dir, then finds it verified; a corrupted file is exit 2 with the file and hash', async () => {
    const dir = path.join(root, 'here');
    const first = await cli(['data', 'gsm8k', '--dir', dir]);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`GSM8K downloaded and verified in ${dir}: train.jsonl, test.jsonl, example_model_solutions.jsonl, LICENSE\n`);
    expect(first.stderr).toMatch(/rl-adv: train\.jsonl: 4166206 bytes, sha256 17f347dc\w+ \(verified\)/);
    expect((await cli(['data', 'gsm8k', '--dir', dir])).stdout).toMatch(/^GSM8K already present and verified/);
    server.faults = { corrupt: 'example_model_solutions.jsonl' };
    const bad = await cli(['data', 'gsm8k']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/rl-adv: example_model_solutions\.jsonl from \S+ has sha256 [0-9a-f]{64}, expected 4bc62db8\w+ .*nothing was written/);
    expect(existsSync(cache)).toBe(false);
  });

  it('--from copies a local folder', async () => {
    const r = await cli(['data', 'gsm8k', '--from', gsm8kDir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`GSM8K copied and verified in ${cache}: train.jsonl, test.jsonl, example_model_solutions.jsonl, LICENSE\n`);
  });
});
