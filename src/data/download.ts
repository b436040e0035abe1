// Fetching GSM8K into a folder (by default the cache), verified by sha256. Every file is first written into a
// staging folder beside the target and only moved into place once all of them match their hashes, so a cut
// download or a wrong file leaves nothing behind.
import { createHash } from 'node:crypto';
import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, mkdtempSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { IO_ERRNOS, ioError, writeAllSync } from '../internal/durable-write.js';
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import { gsm8kCacheDir } from './cache.js';
import { GSM8K_FILES, gsm8kBaseUrl, gsm8kFileUrl } from './gsm8k-source.js';
import { sha256File } from '../internal/sha256.js';

/** Progress of one file's download: bytes received so far and the announced size (when the server gives it). */
export interface Gsm8kProgress {
  readonly file: string;
  readonly received: number;
  readonly total: number | undefined;
}

/** Options of {@link downloadGsm8k} and {@link copyGsm8k}. */
export interface FetchGsm8kOptions {
  /** The target folder (default {@link gsm8kCacheDir}); created when absent. */
  readonly dir?: string;
  /** {@link downloadGsm8k} only: the base URL (default {@link gsm8kBaseUrl}, i.e. `$RL_ADV_GSM8K_URL` or GitHub). */
  readonly baseUrl?: string;
  /** Called as bytes arrive. */
  readonly onProgress?: (progress: Gsm8kProgress) => void;
  /** Called once per verified file. */
  readonly onFile?: (file: { readonly name: string; readonly bytes: number; readonly sha256: string }) => void;
  /** Called for a problem that is not an error (a missing LICENSE). */
  readonly onWarning?: (message: string) => void;
  /** {@link downloadGsm8k} only: abort a file when no byte arrives for this long (default 60000 ms). */
  readonly idleTimeoutMs?: number;
}

/** What {@link downloadGsm8k} or {@link copyGsm8k} did. */
export interface FetchGsm8kResult {
  /** The folder now holding the verified files (absolute). */
  readonly dir: string;
  /** Where the files came from: the base URL, or the `--from` folder. */
  readonly source: string;
  /** False when every file was already present with the right hash (nothing was fetched). */
  readonly fetched: boolean;
  /** Whether a LICENSE file is in `dir`. */
  readonly license: boolean;
  readonly files: readonly { readonly name: string; readonly bytes: number; readonly sha256: string }[];
}

/**
 * Files of `dir` already holding the expected bytes; throws if one is present with other bytes, since
 * replacing a file someone else put there could destroy their data.
 */
function alreadyVerified(dir: string): boolean {
  let all = true;
  for (const { name, sha256 } of GSM8K_FILES) {
    const file = path.join(dir, name);
    if (!existsSync(file)) {
      all = false;
      continue;
    }
    const actual = sha256File(file);
    if (actual !== sha256) {
      throw new RlAdvantagesError(
        `${file} exists with sha256 ${actual}, not the expected ${sha256}: remove it (or choose another folder) and run again; it was left untouched`,
        { code: 'gsm8k_hash_mismatch', field: name },
      );
    }
  }
  return all;
}

/** Runs `fill(staging)` in a fresh staging folder beside `dir`, then moves its files into `dir`; on any error removes the staging folder. */
async function staged(dir: string, fill: (staging: string) => Promise<void>): Promise<void> {
  const parent = path.dirname(dir);
  mkdirSync(parent, { recursive: true });
  const staging = mkdtempSync(path.join(parent, `.${path.basename(dir)}.partial-`));
  try {
    await fill(staging);
    if (!existsSync(dir)) {
      renameSync(staging, dir); // the whole folder appears at once
      return;
    }
    for (const name of [...GSM8K_FILES.map((f) => f.name), 'LICENSE']) {
      if (existsSync(path.join(staging, name))) renameSync(path.join(staging, name), path.join(dir, name));
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

function checkHash(file: string, actual: string, expected: string, source: string, dir: string): void {
  if (actual !== expected) {
    throw new RlAdvantagesError(
      `${path.basename(file)} from ${source} has sha256 ${actual}, expected ${expected} (GSM8K at the pinned commit): nothing was written to ${dir}`,
      { code: 'gsm8k_hash_mismatch', field: path.basename(file) },
    );
  }
}

/** Streams `url` into `file`, hashing as it goes; returns the hash and byte count. */
async function downloadFile(url: string, file: string, name: string, options: FetchGsm8kOptions): Promise<{ sha256: string; bytes: number }> {
  const controller = new AbortController();
  const idle = options.idleTimeoutMs ?? 60_000;
  let timer = setTimeout(() => controller.abort(), idle);
  const fd = openSync(file, 'w');
  try {
    const response = await fetch(url, { signal: controller.signal });
    if (!response.ok || response.body === null) {
      throw new RlAdvantagesError(`${url}: HTTP ${response.status} ${response.statusText}`, { code: 'gsm8k_download_failed', field: name });
    }
    const length = Number(response.headers.get('content-length'));
    const total = Number.isFinite(length) && length > 0 ? length : undefined;
    const hash = createHash('sha256');
    let received = 0;
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(), idle);
      // A short write (a disk filling up) is continued; no progress is ENOSPC.
      writeAllSync(fd, value);
      hash.update(value);
      received += value.byteLength;
      options.onProgress?.({ file: name, received, total });
    }
    if (total !== undefined && received !== total) {
      throw new RlAdvantagesError(`${url}: the connection ended after ${received} of ${total} bytes`, { code: 'gsm8k_download_failed', field: name });
    }
    fsyncSync(fd);
    return { sha256: hash.digest('hex'), bytes: received };
  } catch (error) {
    if (error instanceof RlAdvantagesError) throw error;
    // A full or failing disk is not the download's fault: exit 74 naming the file, not "downloading failed".
    if (IO_ERRNOS.has((error as NodeJS.ErrnoException).code ?? '')) throw ioError(file, error);
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    const why = controller.signal.aborted ? `no data for ${idle / 1000} s` : `${(error as Error).message}${cause ? ` (${cause})` : ''}`;
    throw new RlAdvantagesError(`downloading ${url} failed: ${why}`, { code: 'gsm8k_download_failed', field: name });
  } finally {
    clearTimeout(timer);
    closeSync(fd);
  }
}

/**
 * Downloads GSM8K's `train.jsonl`, `test.jsonl` and `example_model_solutions.jsonl` from `<baseUrl>/<name>`
 * and the MIT LICENSE from `<baseUrl>/../../LICENSE` into `dir`, verifying each file's sha256
 * ({@link GSM8K_FILES}). Nothing is moved into `dir` unless every file matches; a missing LICENSE is a
 * warning. When `dir` already holds the three files with the right hashes, nothing is fetched.
 *
 * @returns What was done and where.
 * @throws {RlAdvantagesError} `gsm8k_hash_mismatch` naming the file and both hashes (nothing is written);
 *   `gsm8k_download_failed` naming the URL for an HTTP error, a dropped connection or a stall.
 * @example
 * ```ts
 * import { downloadGsm8k } from 'rl-advantages/data';
 * const { dir } = await downloadGsm8k(); // into ~/.cache/rl-advantages/gsm8k
 * ```
 */
export async function downloadGsm8k(options: FetchGsm8kOptions = {}): Promise<FetchGsm8kResult> {
  const dir = path.resolve(options.dir ?? gsm8kCacheDir());
  const base = (options.baseUrl ?? gsm8kBaseUrl()).replace(/\/+$/, '');
  const files: { name: string; bytes: number; sha256: string }[] = [];
  if (existsSync(dir) && alreadyVerified(dir)) {
    return { dir, source: base, fetched: false, license: existsSync(path.join(dir, 'LICENSE')), files: verifiedList(dir) };
  }
  let license = false;
  await staged(dir, async (staging) => {
    for (const { name, sha256 } of GSM8K_FILES) {
      const url = gsm8kFileUrl(base, name);
      const file = path.join(staging, name);
      const got = await downloadFile(url, file, name, options);
      checkHash(file, got.sha256, sha256, url, dir);
      files.push({ name, ...got });
      options.onFile?.({ name, ...got });
    }
    const licenseUrl = gsm8kFileUrl(base, 'LICENSE');
    try {
      await downloadFile(licenseUrl, path.join(staging, 'LICENSE'), 'LICENSE', options);
      license = true;
    } catch (error) {
      rmSync(path.join(staging, 'LICENSE'), { force: true });
      options.onWarning?.(`the GSM8K licence could not be fetched (${(error as Error).message}); the data is MIT-licensed, see https://github.com/openai/grade-school-math`);
    }
  });
  return { dir, source: base, fetched: true, license, files };
}

function verifiedList(dir: string): { name: string; bytes: number; sha256: string }[] {
  return GSM8K_FILES.map(({ name, sha256 }) => ({ name, sha256, bytes: statSync(path.join(dir, name)).size }));
}

/**
 * Verifies a local copy of GSM8K (the three files of {@link GSM8K_FILES} in folder `from`) and copies it into
 * `dir`, with its LICENSE when present (else a warning). Atomic like {@link downloadGsm8k}.
 *
 * @throws {RlAdvantagesError} `gsm8k_file_not_found` naming a missing file; `gsm8k_hash_mismatch` naming the
 *   file and both hashes (nothing is written).
 * @example
 * ```ts
 * import { copyGsm8k } from 'rl-advantages/data';
 * await copyGsm8k('/data/grade-school-math/grade_school_math/data');
 * ```
 */
export async function copyGsm8k(from: string, options: FetchGsm8kOptions = {}): Promise<FetchGsm8kResult> {
  const source = path.resolve(from);
  const dir = path.resolve(options.dir ?? gsm8kCacheDir());
  for (const { name } of GSM8K_FILES) {
    if (!existsSync(path.join(source, name))) {
      throw new RlAdvantagesError(`--from ${from}: ${name} is missing (need ${GSM8K_FILES.map((f) => f.name).join(', ')})`, {
        code: 'gsm8k_file_not_found',
        field: name,
      });
    }
  }
  if (path.resolve(source) === dir) {
    alreadyVerified(dir);
    return { dir, source, fetched: false, license: existsSync(path.join(dir, 'LICENSE')), files: verifiedList(dir) };
  }
  if (existsSync(dir) && alreadyVerified(dir)) {
    return { dir, source, fetched: false, license: existsSync(path.join(dir, 'LICENSE')), files: verifiedList(dir) };
  }
  const files: { name: string; bytes: number; sha256: string }[] = [];
  let license = false;
  await staged(dir, async (staging) => {
    for (const { name, sha256 } of GSM8K_FILES) {
      const file = path.join(staging, name);
      copyFileSync(path.join(source, name), file);
      const actual = sha256File(file);
      checkHash(file, actual, sha256, path.join(source, name), dir);
      const entry = { name, bytes: statSync(file).size, sha256: actual };
      files.push(entry);
      options.onFile?.(entry);
    }
    if (existsSync(path.join(source, 'LICENSE'))) {
      copyFileSync(path.join(source, 'LICENSE'), path.join(staging, 'LICENSE'));
      license = true;
    } else {
      options.onWarning?.(`--from ${from} has no LICENSE; the data is MIT-licensed, see https://github.com/openai/grade-school-math`);
    }
  });
  return { dir, source, fetched: true, license, files };
}
