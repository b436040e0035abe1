// Where rl-advantages keeps downloaded data: one cache folder, chosen by environment variables as
// command-line tools commonly do (XDG base directories), so nothing is written into the package itself.
import os from 'node:os';
import path from 'node:path';

/**
 * The cache folder: `$RL_ADV_CACHE_DIR` when set and non-empty, else `$XDG_CACHE_HOME/rl-advantages`,
 * else `~/.cache/rl-advantages`. The folder is not created here.
 *
 * @returns An absolute path.
 * @example
 * ```ts
 * import { rlAdvCacheDir } from 'rl-advantages/data';
 * console.log(rlAdvCacheDir()); // e.g. /home/me/.cache/rl-advantages
 * ```
 */
export function rlAdvCacheDir(): string {
  const explicit = process.env.RL_ADV_CACHE_DIR;
  if (explicit) return path.resolve(explicit);
  const xdg = process.env.XDG_CACHE_HOME;
  // XDG says a relative XDG_CACHE_HOME is invalid and must be ignored.
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'rl-advantages');
  return path.join(os.homedir(), '.cache', 'rl-advantages');
}

/**
 * The GSM8K folder inside the cache: `<rlAdvCacheDir()>/gsm8k` (where `rl-adv data gsm8k` writes by default).
 *
 * @example
 * ```ts
 * import { gsm8kCacheDir } from 'rl-advantages/data';
 * console.log(gsm8kCacheDir()); // e.g. /home/me/.cache/rl-advantages/gsm8k
 * ```
 */
export function gsm8kCacheDir(): string {
  return path.join(rlAdvCacheDir(), 'gsm8k');
}
