// The installed package's own folder (where package.json, specs/ and examples/ are), found from this module's
// location so it works from src/ (tests), dist/ (the build) and node_modules/rl-advantages (an install).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

/** The folder holding rl-advantages' package.json, searched upwards from this module. */
export function packageRoot(): string {
  if (cached !== undefined) return cached;
  const start = path.dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'rl-advantages') return (cached = dir);
      } catch {
        // an unreadable package.json of some other folder: keep looking upwards
      }
    }
    if (path.dirname(dir) === dir) throw new Error(`rl-advantages: no package.json named rl-advantages above ${start}`);
  }
}
