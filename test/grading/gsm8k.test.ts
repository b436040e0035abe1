import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import { extractBoxed } from '../../src/grading/boxed.js';
import {
  GSM8K_FORMAT_COEF,
  gradeGsm8kResponse,
  gradeNumericExact,
  gsm8kReferenceAnswer,
  gsm8kReward,
} from '../../src/grading/gsm8k.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

interface GradingCase {
  name: string;
  response: string;
  reference: string;
  correct: boolean;
  extracted: string | null;
}

// The shared vector file: the Python twin (examples/tinker-cookbook/tests/test_grading.py) asserts the same cases.
const cases: GradingCase[] = readFileSync(path.join(repoRoot, 'test', 'fixtures', 'grading-cases.jsonl'), 'utf8')
  .split('\n')
  .filter((line) => line.trim() !== '')
  .map((line) => JSON.parse(line) as GradingCase);

describe('shared grading vectors (test/fixtures/grading-cases.jsonl)', () => {
  it('has at least 40 uniquely named cases of the documented shape', () => {
    expect(cases.length).toBeGreaterThanOrEqual(40);
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    for (const c of cases) {
      expect(typeof c.response).toBe('string');
      expect(typeof c.reference).toBe('string');
      expect(typeof c.correct).toBe('boolean');
      expect(c.extracted === null || typeof c.extracted === 'string').toBe(true);
    }
  });

  it('covers both outcomes and both box states', () => {
    expect(cases.some((c) => c.correct)).toBe(true);
    expect(cases.some((c) => !c.correct && c.extracted !== null)).toBe(true);
    expect(cases.some((c) => c.extracted === null)).toBe(true);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(extractBoxed(c.response)).toBe(c.extracted);
    expect(gradeNumericExact(c.response, c.reference)).toBe(c.correct);
    // The reward follows from the two flags: correct + 0.1 * (format_ok - 1).
    const boxed = c.extracted !== null;
    expect(gsm8kReward(c.response, c.reference)).toBe(Number(c.correct) + 0.1 * (Number(boxed) - 1));
    expect(gsm8kReward(c.response, c.reference, { stoppedCleanly: false })).toBe(Number(c.correct) - 0.1);
  });
});

describe('gsm8kReferenceAnswer', () => {
  it('takes the text after the last ####, without commas, trimmed', () => {
    expect(gsm8kReferenceAnswer('48/2 = <<48/2=24>>24\n#### 72')).toBe('72');
    expect(gsm8kReferenceAnswer('a #### 1\nb\n####  1,080 \n')).toBe('1080');
    expect(gsm8kReferenceAnswer('#### -3')).toBe('-3');
  });

  it('throws a named error without a #### or with nothing after it', () => {
    expect(() => gsm8kReferenceAnswer('The answer is 72')).toThrow(RlAdvantagesError);
    expect(() => gsm8kReferenceAnswer('The answer is 72')).toThrow(/no "####" marker/);
    expect(() => gsm8kReferenceAnswer('72 ####  ')).toThrow(/nothing after its last "####"/);
    expect(() => gsm8kReferenceAnswer(undefined as unknown as string)).toThrow(/answer must be a string/);
  });
});

describe('gsm8kReward', () => {
  it('takes exactly the four documented values', () => {
    expect(gsm8kReward('\\boxed{72}', '72')).toBe(1);
    expect(gsm8kReward('\\boxed{72}', '72', { stoppedCleanly: false })).toBe(0.9);
    expect(gsm8kReward('\\boxed{70}', '72')).toBe(0);
    expect(gsm8kReward('\\boxed{70}', '72', { stoppedCleanly: false })).toBe(-0.1);
    expect(gsm8kReward('The answer is 72', '72')).toBe(-0.1);
    expect(gsm8kReward('The answer is 72', '72', { stoppedCleanly: false })).toBe(-0.1);
    expect(GSM8K_FORMAT_COEF).toBe(0.1);
  });

  it('reports every part of the decision', () => {
    expect(gradeGsm8kResponse('It is \\boxed{3/4}', '0.75')).toEqual({
      extracted: '3/4',
      correct: true,
      formatOk: true,
      reward: 1,
    });
    expect(gradeGsm8kResponse('It is \\boxed{}', '0.75', { stoppedCleanly: false })).toEqual({
      extracted: '',
      correct: false,
      formatOk: false,
      reward: -0.1,
    });
  });

  test.prop([fc.string({ maxLength: 80 }), fc.integer({ min: -1000, max: 1000 }), fc.boolean()])(
    'is always one of -0.1, 0, 0.9, 1 and never exceeds correctness',
    (response, reference, stoppedCleanly) => {
      const grade = gradeGsm8kResponse(response, String(reference), { stoppedCleanly });
      expect([-0.1, 0, 0.9, 1]).toContain(grade.reward);
      expect(grade.reward <= Number(grade.correct)).toBe(true);
      expect(grade.correct).toBe(gradeNumericExact(response, String(reference)));
      expect(grade.reward).toBe(gsm8kReward(response, String(reference), { stoppedCleanly }));
    },
  );

  test.prop([fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.integer({ min: 0, max: 4 })])(
    'a boxed integer with trailing zeros is correct',
    (value, zeros) => {
      const written = zeros === 0 ? String(value) : `${value}.${'0'.repeat(zeros)}`;
      expect(gsm8kReward(`so \\boxed{${written}}.`, String(value))).toBe(1);
      expect(gsm8kReward(`so \\boxed{${written}}.`, String(value + 1))).toBe(0);
    },
  );

  it('throws a named error for an unparsable reference or bad option', () => {
    expect(() => gradeNumericExact('\\boxed{1}', 'seventy')).toThrow(/referenceAnswer must be a number, got "seventy"/);
    expect(() => gsm8kReward('\\boxed{1}', '')).toThrow(RlAdvantagesError);
    expect(() => gsm8kReward('\\boxed{1}', '1', { stoppedCleanly: 1 as unknown as boolean })).toThrow(
      /options\.stoppedCleanly must be a boolean/,
    );
    expect(() => gradeNumericExact(null as unknown as string, '1')).toThrow(/response must be a string, got null/);
  });
});
