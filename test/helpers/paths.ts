// Paths tests share: the repository root and the GSM8K data beside it (../shared/data/gsm8k).
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const gsm8kDir = process.env.GSM8K_DIR ?? resolve(repoRoot, '..', 'shared', 'data', 'gsm8k');
export const sharedDir = resolve(repoRoot, '..', 'shared');

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
