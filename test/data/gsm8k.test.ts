import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import { exactNumbersEqual, parseExactNumber, type ExactNumber } from '../../src/grading/exact-number.js';
import { gsm8kCacheDir, rlAdvCacheDir } from '../../src/data/cache.js';
import { loadGsm8k, resolveGsm8kDir } from '../../src/data/gsm8k.js';
import { gsm8kDir } from '../helpers/paths.js';

describe('the real GSM8K files (GSM8K_DIR)', () => {
  const train = loadGsm8k(gsm8kDir, 'train');
  const test = loadGsm8k(gsm8kDir, 'test');

  it('has the published row counts and ids', () => {
    // Counts from the GSM8K paper / openai/grade-school-math README: 7473 train, 1319 test.
    expect(train).toHaveLength(7473);
    expect(test).toHaveLength(1319);
    expect(test[0]?.id).toBe('gsm8k_test_0');
    expect(train[7472]?.id).toBe('gsm8k_train_7472');
    expect(test.every((item, i) => item.index === i)).toBe(true);
  });

  it('parses every reference answer of both splits as an exact number', () => {
    const unparsed = [...train, ...test].filter((item) => parseExactNumber(item.referenceAnswer) === null);
    expect(unparsed.map((item) => `${item.id}: ${item.referenceAnswer}`)).toEqual([]);
  });

  it('reads known rows (first rows of each split, as published)', () => {
    expect(train[0]?.referenceAnswer).toBe('72'); // Natalia's clips
    expect(test[0]?.referenceAnswer).toBe('18'); // Janet's ducks
    expect(test[0]?.question.startsWith('Janet\u2019s ducks lay 16 eggs per day.')).toBe(true);
  });

  describe('against example_model_solutions.jsonl (OpenAI grade-school-math)', () => {
    interface Solution {
      is_correct: boolean;
      solution: string;
    }
    type Row = { question: string; ground_truth: string } & Record<string, unknown>;
    const rows: Row[] = readFileSync(path.join(gsm8kDir, 'example_model_solutions.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as Row);
    // These files end a solution with a line "A: <answer>" rather than "#### <answer>".
    const finalAnswer = (text: string): string | null => {
      const matches = [...text.matchAll(/A:[ \t]*(.*)/g)];
      return matches.length > 0 ? (matches[matches.length - 1]?.[1] ?? null) : null;
    };

    it('has the test questions in the same order', () => {
      expect(rows.map((r) => r.question)).toEqual(test.map((item) => item.question));
    });

    it('has ground truths whose final answer equals our reference answer', () => {
      const mismatches = rows.flatMap((row, i) => {
        const ours = parseExactNumber(test[i]?.referenceAnswer ?? '') as ExactNumber;
        const theirs = parseExactNumber(finalAnswer(row.ground_truth) ?? '');
        return theirs !== null && exactNumbersEqual(ours, theirs) ? [] : [`${i}: ${row.ground_truth.slice(-30)}`];
      });
      expect(mismatches).toEqual([]);
    });

    it("agrees with OpenAI's is_correct on every model solution when its A: line is graded exactly", () => {
      const models = ['6b_finetuning', '6b_verification', '175b_finetuning', '175b_verification'];
      let graded = 0;
      const disagreements: string[] = [];
      rows.forEach((row, i) => {
        const reference = parseExactNumber(test[i]?.referenceAnswer ?? '') as ExactNumber;
        for (const model of models) {
          const sol = row[model] as Solution;
          const answer = finalAnswer(sol.solution);
          const given = answer === null ? null : parseExactNumber(answer);
          const ours = given !== null && exactNumbersEqual(given, reference);
          graded++;
          if (ours !== sol.is_correct) disagreements.push(`${i} ${model}: ${JSON.stringify(answer)} is_correct=${sol.is_correct}`);
        }
      });
      expect(graded).toBe(4 * 1319);
      expect(disagreements).toEqual([]);
    });
  });
});

describe('loadGsm8k on small files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'rl-adv-gsm8k-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const row = (question: string, answer: string) => JSON.stringify({ question, answer });

  it('reads rows, skips blank lines and accepts CRLF', () => {
    writeFileSync(path.join(dir, 'test.jsonl'), `${row('Q1', 'x\n#### 1,000')}\r\n\n${row('Q2', '#### -3')}\n`);
    expect(loadGsm8k(dir, 'test')).toEqual([
      { index: 0, id: 'gsm8k_test_0', question: 'Q1', answer: 'x\n#### 1,000', referenceAnswer: '1000' },
      { index: 1, id: 'gsm8k_test_1', question: 'Q2', answer: '#### -3', referenceAnswer: '-3' },
    ]);
  });

  it('names the file when it is missing', () => {
    expect(() => loadGsm8k(dir, 'train')).toThrow(RlAdvantagesError);
    expect(() => loadGsm8k(dir, 'train')).toThrow(`GSM8K file ${path.join(dir, 'train.jsonl')} does not exist`);
  });

  it('names file and line for bad JSON, a missing field and a missing ####', () => {
    const file = path.join(dir, 'train.jsonl');
    writeFileSync(file, `${row('Q1', '#### 1')}\n{"question": "Q2", \n`);
    expect(() => loadGsm8k(dir, 'train')).toThrow(`${file} line 2 is not valid JSON`);
    writeFileSync(file, `${row('Q1', '#### 1')}\n\n${JSON.stringify({ question: 'Q3' })}\n`);
    expect(() => loadGsm8k(dir, 'train')).toThrow(`${file} line 3: field "answer" must be a string, got undefined`);
    writeFileSync(file, `${row('Q1', 'the answer is 1')}\n`);
    expect(() => loadGsm8k(dir, 'train')).toThrow(`${file} line 1: answer has no "####" marker`);
    writeFileSync(file, '[1, 2]\n');
    expect(() => loadGsm8k(dir, 'train')).toThrow(`${file} line 1 must be a JSON object, got an array`);
  });

  it('rejects an unknown split', () => {
    expect(() => loadGsm8k(dir, 'validation' as 'test')).toThrow(/split must be "train" or "test", got "validation"/);
  });
});

describe('resolveGsm8kDir: --data-dir, then GSM8K_DIR, then the cache', () => {
  const names = ['GSM8K_DIR', 'RL_ADV_CACHE_DIR', 'XDG_CACHE_HOME', 'HOME'] as const;
  const saved = Object.fromEntries(names.map((k) => [k, process.env[k]]));
  let temp: string;
  beforeEach(() => {
    temp = mkdtempSync(path.join(tmpdir(), 'rl-adv-resolve-'));
    for (const k of names) delete process.env[k];
    process.env.RL_ADV_CACHE_DIR = path.join(temp, 'cache');
  });
  afterEach(() => rmSync(temp, { recursive: true, force: true }));
  afterAll(() => {
    for (const k of names) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  });
  const folder = (name: string, splits = false): string => {
    const dir = path.join(temp, name);
    mkdirSync(dir, { recursive: true });
    if (splits) for (const s of ['train', 'test']) writeFileSync(path.join(dir, `${s}.jsonl`), '');
    return dir;
  };

  it('prefers the flag, then GSM8K_DIR, then a cache holding both splits', () => {
    const a = folder('a');
    const b = folder('b');
    const cached = folder('cache/gsm8k', true);
    process.env.GSM8K_DIR = b;
    expect(resolveGsm8kDir(a)).toBe(a);
    expect(resolveGsm8kDir()).toBe(b);
    expect(resolveGsm8kDir('')).toBe(b);
    delete process.env.GSM8K_DIR;
    expect(resolveGsm8kDir()).toBe(cached);
  });

  it('finds the cache through RL_ADV_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(gsm8kCacheDir()).toBe(path.join(temp, 'cache', 'gsm8k'));
    delete process.env.RL_ADV_CACHE_DIR;
    process.env.XDG_CACHE_HOME = path.join(temp, 'xdg');
    expect(rlAdvCacheDir()).toBe(path.join(temp, 'xdg', 'rl-advantages'));
    process.env.XDG_CACHE_HOME = 'relative/xdg'; // invalid by the XDG spec: ignored
    process.env.HOME = path.join(temp, 'home');
    expect(gsm8kCacheDir()).toBe(path.join(temp, 'home', '.cache', 'rl-advantages', 'gsm8k'));
  });

  it('ignores a cache folder without both splits and says how to provide the data', () => {
    folder('cache/gsm8k'); // empty
    expect(() => resolveGsm8kDir()).toThrow(RlAdvantagesError);
    expect(() => resolveGsm8kDir()).toThrow(
      /^GSM8K not found: no --data-dir, no GSM8K_DIR, and no copy in the cache .*`rl-adv data gsm8k`.*`rl-adv data gsm8k --from DIR`.*--data-dir DIR.*GSM8K_DIR=DIR.*train\.jsonl and test\.jsonl/,
    );
  });

  it('rejects a --data-dir or GSM8K_DIR that is not a folder, naming which', () => {
    const missing = path.join(temp, 'no-such-folder');
    folder('cache/gsm8k', true);
    expect(() => resolveGsm8kDir(missing)).toThrow(`--data-dir is ${JSON.stringify(missing)}, which is not a folder`);
    process.env.GSM8K_DIR = missing;
    expect(() => resolveGsm8kDir()).toThrow(`GSM8K_DIR is ${JSON.stringify(missing)}, which is not a folder`);
  });
});
