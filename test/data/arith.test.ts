// The arith world of specs/arith-gs1-vs-grpo.json: seeded, well-formed, its answers right, bad sections refused.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { arithItems, parseArithWorld } from '../../src/data/arith.js';
import { RlAdvantagesError } from '../../src/errors.js';
import { gsm8kReferenceAnswer } from '../../src/grading/gsm8k.js';
import { loadStudyQuestions } from '../../src/study/load-questions.js';
import { loadStudySpec } from '../../src/study/spec.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { repoRoot } from '../helpers/paths.js';

const section = { name: 'arith', seed: 0, train: 300, test: 50, sft: 20, operations: ['plus', 'minus', 'times'], digits: [[1, 1], [2, 1], [2, 2]] };

describe('arith world', () => {
  it('generates the same items for the same seed, other items for another seed, independent splits', () => {
    const world = parseArithWorld(section);
    expect(arithItems(world, 'train')).toEqual(arithItems(world, 'train'));
    expect(arithItems(parseArithWorld({ ...section, seed: 1 }), 'train').map((i) => i.question)).not.toEqual(arithItems(world, 'train').map((i) => i.question));
    expect(arithItems(world, 'test').map((i) => i.question)).not.toEqual(arithItems(world, 'train').slice(0, 50).map((i) => i.question));
  });

  it('writes the operation and digit counts in the prompt, and the exact answer in GSM8K form', () => {
    const items = arithItems(parseArithWorld(section), 'train');
    const families = new Set<string>();
    for (const item of items) {
      const m = /^(plus|minus|times) ([12])x([12]): (\d(?: \d)*) ([+*-]) (\d(?: \d)*) =$/.exec(item.question);
      expect(m, item.question).not.toBeNull();
      const [, word, d1, d2, sa, symbol, sb] = m as RegExpExecArray;
      const a = String(sa).replaceAll(' ', '');
      const b = String(sb).replaceAll(' ', '');
      expect(String(a).length).toBe(Number(d1));
      expect(String(b).length).toBe(Number(d2));
      expect({ plus: '+', minus: '-', times: '*' }[word as 'plus']).toBe(symbol);
      const value = word === 'plus' ? Number(a) + Number(b) : word === 'minus' ? Number(a) - Number(b) : Number(a) * Number(b);
      expect(item.referenceAnswer).toBe(String(value));
      expect(gsm8kReferenceAnswer(item.answer)).toBe(String(value));
      families.add(`${String(word)} ${String(d1)}x${String(d2)}`);
    }
    expect(families.size).toBe(9); // this test's section has 3 x 3 families
    // TF-IDF sees the operation and the digit counts only (single digits are not tokens).
    for (const item of items.slice(0, 20)) expect(item.question.match(/\b\w\w+\b/g)).toEqual([item.question.split(' ')[0], item.question.split(' ')[1]?.slice(0, 3)]);
    expect(items[0]?.id).toBe('arith_train_0');
  });

  it('refuses a bad section, naming the field', () => {
    const bad = (patch: Record<string, unknown>): RlAdvantagesError => {
      try {
        parseArithWorld({ ...section, ...patch });
      } catch (error) {
        return error as RlAdvantagesError;
      }
      throw new Error('accepted');
    };
    expect(bad({ operations: ['divide'] })).toMatchObject({ code: 'invalid_spec', field: 'dataset.operations[0]' });
    expect(bad({ digits: [[1, 4]] })).toMatchObject({ field: 'dataset.digits[0]' });
    expect(bad({ train: 0 }).message).toMatch(/^dataset\.train must be an integer in \[1, 1000000\], got 0/);
  });

  it('is the study questions of the shipped arith spec (no GSM8K folder), and refuses --data-dir with it', () => {
    const spec = loadStudySpec(readFileSync(path.join(repoRoot, 'specs', 'arith-gs1-vs-grpo.json'), 'utf8'));
    const backend = createSimBackend();
    const data = loadStudyQuestions({ specPath: '', dir: '', backend }, spec);
    expect(data.questions).toBe('arith');
    expect(data.dataDir).toBeNull();
    expect(data.train).toHaveLength(4000);
    expect(data.test).toHaveLength(1000);
    expect(data.dataSha256).toBe(loadStudyQuestions({ specPath: '', dir: '', backend }, spec).dataSha256);
    expect(() => loadStudyQuestions({ specPath: '', dir: '', backend, dataDir: '/x' }, spec)).toThrow(/--data-dir does not apply to a spec whose dataset is the arith world/);
  });
});
