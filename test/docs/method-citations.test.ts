// Every "docs/method.md section N" (or "sections N, M and K", "section N.M") cited in the sources, tests, docs and the
// Tinker drivers names a heading docs/method.md has.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

const method = readFileSync(path.join(repoRoot, 'docs', 'method.md'), 'utf8');
const headings = new Set([...method.matchAll(/^#{2,3} (\d+(?:\.\d+)?)\.? /gm)].map((m) => m[1] as string));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'api' || name === '__pycache__' || name.startsWith('.')) return [];
    if (statSync(full).isDirectory()) return files(full);
    return /\.(ts|md|py|mjs)$/.test(name) ? [full] : [];
  });
}

it('every section of docs/method.md that is cited exists', () => {
  expect(headings.has('4.1') && headings.has('8')).toBe(true);
  const missing: string[] = [];
  for (const file of ['src', 'test', 'docs', 'examples', 'bench', 'README.md'].flatMap((p) => {
    const full = path.join(repoRoot, p);
    return statSync(full).isDirectory() ? files(full) : [full];
  })) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/method\.md,? sections? ((?:\d+(?:\.\d+)?(?:,? (?:and |or )?|-)?)+)/g)) {
      for (const n of (m[1] as string).match(/\d+(?:\.\d+)?/g) ?? []) {
        if (!headings.has(n)) missing.push(`${path.relative(repoRoot, file)}: section ${n}`);
      }
    }
  }
  expect(missing).toEqual([]);
});
