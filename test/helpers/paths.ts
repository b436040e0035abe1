// Paths tests share: the repository root, the shipped study spec and the GSM8K folder, which the globalSetup
// (test/global-setup.ts) found once through the library's own resolution (--data-dir, GSM8K_DIR, the cache).
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveGsm8kDir } from '../../src/data/gsm8k.js';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The GSM8K folder (test/global-setup.ts exports it as GSM8K_DIR for every worker). */
export const gsm8kDir = resolveGsm8kDir();
/** The study spec that ships with the package. */
export const specPath = resolve(repoRoot, 'specs', 'gs1-vs-grpo.json');

export function readJsonl<T = Record<string, unknown>>(path: string): T[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as T);
}

export function trainQuestions(): string[] {
  return readJsonl<{ question: string }>(resolve(gsm8kDir, 'train.jsonl')).map((row) => row.question);
}

export function readFixture<T>(name: string): T {
  return JSON.parse(readFileSync(resolve(repoRoot, 'test', 'fixtures', name), 'utf8')) as T;
}

/** max |a_i - b_i|, after checking the lengths agree. */
export function maxAbsDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} != ${b.length}`);
  let max = 0;
  for (let i = 0; i < a.length; i++) max = Math.max(max, Math.abs((a[i] as number) - (b[i] as number)));
  return max;
}
