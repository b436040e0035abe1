// The benchmark's inputs, generated once per run and written to a JSON file that both the Node
// cases (bench/node-case.mjs) and the Python reference (bench/reference.py) read: the same prompts
// and rewards on both sides, by construction.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

export function readQuestions(dir, split) {
  return readFileSync(resolve(dir, `${split}.jsonl`), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line).question);
}

/**
 * B prompts: the GSM8K train + test questions in order, then again with a deterministic suffix
 * (the first 8 words of another question) so that every prompt and nearly every TF-IDF vector
 * stays distinct: a B x B kernel with no repeats, the expensive case.
 */
export function promptsFor(questions, size) {
  const n = questions.length;
  return Array.from({ length: size }, (_, i) => {
    const q = i % n;
    const copy = Math.floor(i / n);
    if (copy === 0) return questions[q];
    const other = questions[(q * 7 + copy * 1013) % n];
    return `${questions[q]} ${other.split(' ').slice(0, 8).join(' ')}`;
  });
}

/** Rewards in {-0.1, 0, 0.9, 1} (the cookbook's math rewards) from a fixed linear congruential sequence. */
export function rewardsFor(size, seed = 1) {
  const values = [-0.1, 0, 0.9, 1];
  let state = seed >>> 0;
  return Array.from({ length: size }, () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return values[state >>> 30];
  });
}
