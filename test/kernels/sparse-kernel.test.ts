// The fast kernel path (inverted-index products, units, table exp) against a plain reference
// written here from docs/method.md section 2: a dense S from the CSR rows, then per rollout
// m_i = max_{j != i} S_ij, w_ij = exp((S_ij - m_i) / T), b_i = sum_{j != i} w_ij r_j / sum_{j != i} w_ij.
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { sparseKernelBaselines, unitsByKey } from '../../src/kernels/kernel.js';
import { compactAndTranspose, transposeCsr } from '../../src/kernels/sparse.js';
import { TfidfVectorizer, type CsrMatrix } from '../../src/text/tfidf.js';
import { tfidfKernelLoo } from '../../src/estimators/tfidf-kernel.js';
import { maxAbsDiff } from '../helpers/paths.js';

function denseRows(x: CsrMatrix): number[][] {
  const rows: number[][] = [];
  for (let r = 0; r < x.rows; r++) {
    const row = new Array<number>(x.cols).fill(0);
    for (let k = x.indptr[r] as number; k < (x.indptr[r + 1] as number); k++) row[x.indices[k] as number] = x.data[k] as number;
    rows.push(row);
  }
  return rows;
}

/** The reference: one TF-IDF row per rollout (no units), dense S, straightforward loops. */
function referenceBaselines(vectorizer: TfidfVectorizer, prompts: string[], rewards: number[], t: number): number[] {
  const v = denseRows(vectorizer.transform(prompts));
  const n = prompts.length;
  const s = v.map((a) => v.map((b) => a.reduce((sum, value, k) => sum + value * (b[k] as number), 0)));
  return rewards.map((_, i) => {
    let m = -Infinity;
    for (let j = 0; j < n; j++) if (j !== i) m = Math.max(m, s[i]![j]!);
    let numerator = 0;
    let denominator = 0;
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      const w = Math.exp((s[i]![j]! - m) / t);
      numerator += w * rewards[j]!;
      denominator += w;
    }
    return numerator / denominator;
  });
}

const CORPUS = [
  'Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May.',
  'Weng earns $12 an hour for babysitting. Yesterday, she just did 50 minutes of babysitting.',
  'Betty is saving money for a new wallet which costs $100.',
  'James writes a 3-page letter to 2 different friends twice a week. How many pages does he write a year?',
  'the the the cat sat on the mat',
  'a train leaves the station at noon; how far does the train go in 3 hours?',
];
const vectorizer = TfidfVectorizer.fit(CORPUS);
const PROMPTS = [
  ...CORPUS,
  '',
  '?! ..',
  'zebra quokka axolotl', // no known term: a zero row
  'How many clips did Natalia sell altogether in April and May?',
  'the cat',
  'THE CAT',
  'the train the train',
];

const batch = fc
  .array(fc.record({ prompt: fc.constantFrom(...PROMPTS), reward: fc.double({ min: -1, max: 1, noNaN: true }) }), {
    minLength: 2,
    maxLength: 40,
  })
  .map((rows) => ({ prompts: rows.map((r) => r.prompt), rewards: rows.map((r) => r.reward) }));
const temperature = fc.constantFrom(0.001, 0.01, 0.1, 0.5, 2, 1e6);

describe('sparseKernelBaselines (the fast path) against the dense reference', () => {
  test.prop([batch, temperature])('agrees within 1e-12 with duplicates, empty and unknown-word prompts', (b, t) => {
    const fast = tfidfKernelLoo(b, { vectorizer, temperature: t }).baselines;
    const reference = referenceBaselines(vectorizer, b.prompts, b.rewards, t);
    expect(fast.every(Number.isFinite)).toBe(true);
    expect(maxAbsDiff(fast, reference)).toBeLessThanOrEqual(1e-12);
  });

  it('agrees at T = 0.001 on a GRPO-style batch (8 copies of each of 4 prompts)', () => {
    const prompts = PROMPTS.slice(0, 4).flatMap((p) => Array<string>(8).fill(p));
    const rewards = prompts.map((_, i) => ((i * 37) % 11) / 10 - 0.1);
    const fast = tfidfKernelLoo({ prompts, rewards }, { vectorizer, temperature: 0.001 }).baselines;
    expect(maxAbsDiff(fast, referenceBaselines(vectorizer, prompts, rewards, 0.001))).toBeLessThanOrEqual(1e-12);
  });

  it('vectorises each distinct prompt once: a GRPO batch transforms U rows, not B', () => {
    const prompts = PROMPTS.slice(0, 4).flatMap((p) => Array<string>(8).fill(p));
    const rewards = prompts.map((_, i) => i % 2);
    const units = unitsByKey(prompts);
    expect(units.count).toBe(4);
    expect(Array.from(units.start)).toEqual([0, 8, 16, 24, 32]);
    expect(Array.from(units.order)).toEqual(prompts.map((_, i) => i));
    // Count the rows the vectorizer is asked for through a spy on transform.
    const seen: number[] = [];
    const spy = new Proxy(vectorizer, {
      get(target, key) {
        if (key === 'transform') {
          return (docs: string[]) => {
            seen.push(docs.length);
            return target.transform(docs);
          };
        }
        return Reflect.get(target, key, target);
      },
    });
    const viaUnits = tfidfKernelLoo({ prompts, rewards }, { vectorizer: spy, temperature: 0.1 });
    expect(seen).toEqual([4]);
    const direct = sparseKernelBaselines(Float64Array.from(rewards), units, vectorizer.transform(PROMPTS.slice(0, 4)), 0.1);
    expect(Array.from(viaUnits.baselines)).toEqual(Array.from(direct));
  });
});

describe('compactAndTranspose', () => {
  test.prop([fc.array(fc.constantFrom(...PROMPTS), { minLength: 1, maxLength: 20 })])(
    'renumbers the columns in use one-to-one, keeps every row in order, and transposes exactly',
    (prompts) => {
      const x = vectorizer.transform(prompts);
      const { x: compact, xt } = compactAndTranspose(x);
      expect(compact.cols).toBe(new Set(x.indices).size);
      expect(Array.from(compact.indptr)).toEqual(Array.from(x.indptr));
      expect(Array.from(compact.data)).toEqual(Array.from(x.data));
      const renamed = new Map<number, number>();
      x.indices.forEach((c, k) => {
        const j = compact.indices[k] as number;
        expect(renamed.get(c) ?? j).toBe(j);
        renamed.set(c, j);
      });
      expect(new Set(renamed.values()).size).toBe(renamed.size);
      const dense = denseRows(compact);
      const t = denseRows(xt);
      dense.forEach((row, r) => row.forEach((value, c) => expect(t[c]![r]).toBe(value)));
      expect(denseRows(transposeCsr(compact))).toEqual(t);
    },
  );
});
