// GSM8K on first use: what a command that needs the data calls. It finds the data (resolveGsm8kDir's order) or,
// as dataset libraries do, downloads it once into the cache, unless RL_ADV_OFFLINE=1.
import { RlAdvantagesError } from '../errors.js';
import { gsm8kCacheDir } from './cache.js';
import { downloadGsm8k, type FetchGsm8kOptions } from './download.js';
import { gsm8kHowToProvide, resolveGsm8kDir } from './gsm8k.js';
import { gsm8kBaseUrl } from './gsm8k-source.js';

/** Options of {@link ensureGsm8kDir}: the download's callbacks, plus where to say what is being downloaded. */
export interface EnsureGsm8kOptions extends Pick<FetchGsm8kOptions, 'onProgress' | 'onFile' | 'onWarning'> {
  /** Called once, before a download, with what is downloaded, from where and into where. */
  readonly onNotice?: (message: string) => void;
}

/** True when `RL_ADV_OFFLINE` forbids downloads (any value but empty, `0` or `false`). */
export function isOffline(): boolean {
  const value = (process.env.RL_ADV_OFFLINE ?? '').trim().toLowerCase();
  return value !== '' && value !== '0' && value !== 'false';
}

/**
 * The GSM8K folder, downloading it on first use: {@link resolveGsm8kDir}`(flag)` when it finds one (`flag`,
 * `GSM8K_DIR`, or the cache); otherwise, unless `RL_ADV_OFFLINE=1`, {@link downloadGsm8k} into the cache
 * (after `onNotice` says what, from where and into where) and the cache folder.
 *
 * @param flag - A folder given on the command line (`--data-dir`); a missing folder there is an error, never
 *   a download.
 * @throws {RlAdvantagesError} `missing_gsm8k_dir` with one message saying how to provide the data when it is
 *   not found and offline, or when the download fails (the message names the file, URL or hash at fault);
 *   `gsm8k_dir_not_found` for a `flag` or `GSM8K_DIR` that is not a folder.
 * @example
 * ```ts
 * import { ensureGsm8kDir, loadGsm8k } from 'rl-advantages/data';
 * const dir = await ensureGsm8kDir(undefined, { onNotice: (m) => console.error(m) });
 * const test = loadGsm8k(dir, 'test');
 * ```
 */
export async function ensureGsm8kDir(flag?: string, options: EnsureGsm8kOptions = {}): Promise<string> {
  try {
    return resolveGsm8kDir(flag);
  } catch (error) {
    if (!(error instanceof RlAdvantagesError) || error.code !== 'missing_gsm8k_dir') throw error;
    if (isOffline()) {
      throw new RlAdvantagesError(`${error.message} (RL_ADV_OFFLINE is set, so it was not downloaded.)`, { code: 'missing_gsm8k_dir', field: 'dataDir' });
    }
  }
  const dir = gsm8kCacheDir();
  const base = gsm8kBaseUrl();
  options.onNotice?.(
    `GSM8K not found: downloading train.jsonl, test.jsonl and example_model_solutions.jsonl (openai/grade-school-math, MIT licence) ` +
      `from ${base} into ${dir}, once (set RL_ADV_OFFLINE=1 to never download)`,
  );
  try {
    await downloadGsm8k({ dir, baseUrl: base, ...options });
  } catch (error) {
    if (!(error instanceof RlAdvantagesError)) throw error;
    throw new RlAdvantagesError(`GSM8K not found, and downloading it failed: ${error.message}. ${gsm8kHowToProvide()}`, {
      code: 'missing_gsm8k_dir',
      field: 'dataDir',
    });
  }
  return dir;
}
