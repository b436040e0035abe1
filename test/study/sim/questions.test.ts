import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../../src/errors.js';
import { gsm8kReferenceAnswer } from '../../../src/grading/gsm8k.js';
import { loadGsm8k } from '../../../src/data/gsm8k.js';
import {
  CLUSTERED_COMMON_WORDS,
  CLUSTERED_DEFAULT_FAMILIES,
  CLUSTERED_FAMILIES,
  clusteredQuestions,
  questionsJsonl,
  type ClusteredQuestion,
} from '../../../src/study/sim/questions.js';
import { TfidfVectorizer } from '../../../src/text/tfidf.js';

const set = clusteredQuestions();
const all: readonly ClusteredQuestion[] = [...set.train, ...set.test];

/** The value of a `<<a*b=c>>` note's expression: integers joined by + or * (the only operators the templates use). */
function evaluate(expression: string): number {
  return expression
    .split('+')
    .map((term) => term.split('*').reduce((product, factor) => product * Number(factor), 1))
    .reduce((sum, term) => sum + term, 0);
}

describe('clusteredQuestions: the built-in set', () => {
  it("has GSM8K's split sizes and only the first CLUSTERED_DEFAULT_FAMILIES families", () => {
    expect(set.train).toHaveLength(7473);
    expect(set.test).toHaveLength(1319);
    expect(CLUSTERED_DEFAULT_FAMILIES).toBe(8);
    const used = new Set(all.map((q) => q.family));
    expect([...used].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('is the same on every call (seedrandom) and another seed gives another set', () => {
    expect(clusteredQuestions()).toEqual(set);
    const other = clusteredQuestions({ seed: 'another', train: 50, test: 10 });
    expect(other.train.map((q) => q.question)).not.toEqual(set.train.slice(0, 50).map((q) => q.question));
  });

  it('holds no question twice, within or across the splits', () => {
    expect(new Set(all.map((q) => q.question)).size).toBe(all.length);
  });

  it('answers are worked solutions whose every <<expr=value>> note is right and whose #### line is the last value', () => {
    for (const q of all) {
      const notes = [...q.answer.matchAll(/<<([0-9+*]+)=(\d+)>>/g)];
      expect(notes.length).toBeGreaterThan(0);
      for (const note of notes) expect(evaluate(note[1] as string), q.answer).toBe(Number(note[2]));
      const last = q.answer.split('\n').at(-1) as string;
      expect(last).toMatch(/^#### \d+$/);
      expect(gsm8kReferenceAnswer(q.answer)).toBe(notes.at(-1)?.[2]);
    }
  });

  it("every answer is the family's arithmetic on the question's numbers", () => {
    for (const q of all.slice(0, 500)) {
      const numbers = (q.question.match(/\b\d\b/g) ?? []).map(Number);
      expect(numbers).toHaveLength(3);
      const family = CLUSTERED_FAMILIES[q.family];
      // The template's placeholders in order of appearance tell which number is a, b and c.
      const order = [...(family?.template.matchAll(/\{([abc])\}/g) ?? [])].map((m) => m[1] as 'a' | 'b' | 'c');
      const value: Record<string, number> = {};
      order.forEach((slot, k) => (value[slot] = numbers[k] as number));
      const expected = family?.solve(value.a as number, value.b as number, value.c as number).value;
      expect(gsm8kReferenceAnswer(q.answer)).toBe(String(expected));
    }
  });

  it('round-trips through questionsJsonl and loadGsm8k as a GSM8K folder', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-clustered-'));
    writeFileSync(path.join(dir, 'train.jsonl'), questionsJsonl(set.train));
    writeFileSync(path.join(dir, 'test.jsonl'), questionsJsonl(set.test));
    const test = loadGsm8k(dir, 'test');
    expect(test.map((item) => item.question)).toEqual(set.test.map((q) => q.question));
    expect(test.map((item) => item.answer)).toEqual(set.test.map((q) => q.answer));
    expect(loadGsm8k(dir, 'train')).toHaveLength(7473);
    // Only question and answer are written, as in GSM8K's files.
    expect(Object.keys(JSON.parse(questionsJsonl(set.test.slice(0, 1))) as object)).toEqual(['question', 'answer']);
  });
});

describe('the families', () => {
  const tokens = (text: string): string[] => text.toLowerCase().match(/\b\w\w+\b/g) ?? [];
  const topicWords = (template: string): Set<string> =>
    new Set(tokens(template.replace(/\{\w+\}/g, ' ')).filter((w) => !CLUSTERED_COMMON_WORDS.has(w)));

  it('have pairwise disjoint topic vocabularies (every word but the common function words is one family\'s own)', () => {
    const vocabularies = CLUSTERED_FAMILIES.map((f) => topicWords(f.template));
    for (let i = 0; i < vocabularies.length; i++) {
      expect((vocabularies[i] as Set<string>).size, CLUSTERED_FAMILIES[i]?.topic).toBeGreaterThanOrEqual(8);
      for (let j = i + 1; j < vocabularies.length; j++) {
        const shared = [...(vocabularies[i] as Set<string>)].filter((w) => (vocabularies[j] as Set<string>).has(w));
        expect(shared, `${CLUSTERED_FAMILIES[i]?.topic} / ${CLUSTERED_FAMILIES[j]?.topic}`).toEqual([]);
      }
    }
  });

  it('make TF-IDF cosines near 1 within a family and small across families (so the T = 0.1 kernel sees the families)', () => {
    const vectorizer = TfidfVectorizer.fit(set.train.map((q) => q.question));
    const sample = set.train.slice(0, 400);
    const x = vectorizer.transform(sample.map((q) => q.question));
    const row = (r: number): Map<number, number> => {
      const m = new Map<number, number>();
      for (let k = x.indptr[r] as number; k < (x.indptr[r + 1] as number); k++) m.set(x.indices[k] as number, x.data[k] as number);
      return m;
    };
    const rows = sample.map((_, r) => row(r));
    let within = 0;
    let withinN = 0;
    let across = 0;
    let acrossN = 0;
    for (let i = 0; i < rows.length; i++) {
      for (let j = i + 1; j < rows.length; j++) {
        let c = 0;
        for (const [t, v] of rows[i] as Map<number, number>) c += v * ((rows[j] as Map<number, number>).get(t) ?? 0);
        if (sample[i]?.family === sample[j]?.family) {
          within += c;
          withinN++;
        } else {
          across += c;
          acrossN++;
        }
      }
    }
    // docs/sim.md: about 0.98 within and 0.06 across.
    expect(within / withinN).toBeGreaterThan(0.9);
    expect(across / acrossN).toBeLessThan(0.1);
  });
});

describe('clusteredQuestions options', () => {
  fcTest.prop([fc.string({ maxLength: 12 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 16 })])(
    'any seed and sizes give unique rows of the chosen families with a parseable answer',
    (seed, train, test, families) => {
      const s = clusteredQuestions({ seed, train, test, families });
      const rows = [...s.train, ...s.test];
      expect(s.train).toHaveLength(train);
      expect(s.test).toHaveLength(test);
      expect(new Set(rows.map((q) => q.question)).size).toBe(rows.length);
      for (const q of rows) {
        expect(q.family).toBeGreaterThanOrEqual(0);
        expect(q.family).toBeLessThan(families);
        expect(Number(gsm8kReferenceAnswer(q.answer))).toBeGreaterThan(0);
      }
    },
  );

  it('refuses sizes that are not positive integers, too many families, or more questions than the families hold', () => {
    const refuse = (options: Parameters<typeof clusteredQuestions>[0], field: string, message: RegExp): void => {
      let error: unknown;
      try {
        clusteredQuestions(options);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RlAdvantagesError);
      expect((error as RlAdvantagesError).field).toBe(field);
      expect((error as Error).message).toMatch(message);
    };
    refuse({ train: 0 }, 'train', /train must be an integer >= 1, got 0/);
    refuse({ test: 2.5 }, 'test', /test must be an integer >= 1/);
    refuse({ families: 0 }, 'families', /families must be an integer >= 1/);
    refuse({ families: CLUSTERED_FAMILIES.length + 1 }, 'families', /families must be at most 16, got 17/);
    // One family holds 6 names x 8^3 numbers = 3072 distinct questions; at most half of them are drawn.
    refuse({ families: 1 }, 'train', /train \+ test must be at most 1536 with 1 families/);
  });
});
