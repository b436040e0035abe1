// rl-adv tfidf fit end to end: the saved vectorizer is the library's, for JSON lines and .txt corpora.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TfidfVectorizer } from '../../../src/text/tfidf.js';
import { gsm8kDir, trainQuestions } from '../../helpers/paths.js';
import { rlAdv, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();

describe('rl-adv tfidf fit', () => {
  it('fits the GSM8K train questions and saves exactly the library vectorizer', async () => {
    const out = join(dir, 'gsm8k.tfidf.json');
    const run = await rlAdv(['tfidf', 'fit', '--corpus', join(gsm8kDir, 'train.jsonl'), '--out', out]);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/fitted on 7473 documents, \d+ terms; saved to/);
    const saved = JSON.parse(readFileSync(out, 'utf8')) as unknown;
    expect(saved).toEqual(TfidfVectorizer.fit(trainQuestions()).toJSON());
    expect(TfidfVectorizer.fromJSON(saved as never).documents).toBe(7473);
  });

  it('a .txt corpus is one document a line (blank lines are not documents); --out - writes stdout; --corpus-field', async () => {
    const txt = join(dir, 'c.txt');
    writeFileSync(txt, 'the cat sat\r\n\nthe dog sat\na bird flew\n');
    const run = await rlAdv(['tfidf', 'fit', '--corpus', txt, '--out', '-']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(TfidfVectorizer.fit(['the cat sat', 'the dog sat', 'a bird flew']).toJSON());
    const jsonl = writeJsonl(dir, 'c.jsonl', [{ text: 'the cat sat' }, { text: 'the dog sat' }, { text: 'a bird flew' }]);
    const byField = await rlAdv(['tfidf', 'fit', '--corpus', jsonl, '--corpus-field', 'text', '--out', '-']);
    expect(byField.stdout).toBe(run.stdout);
  });

  it('bad input exits 2 naming the file (and line and field)', async () => {
    const empty = join(dir, 'empty.txt');
    writeFileSync(empty, '\n \n');
    let run = await rlAdv(['tfidf', 'fit', '--corpus', empty, '--out', '-']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/empty\.txt: holds no documents/)]);
    const punct = join(dir, 'punct.txt');
    writeFileSync(punct, '!!\n?\n');
    run = await rlAdv(['tfidf', 'fit', '--corpus', punct, '--out', '-']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/punct\.txt: corpus has 2 documents but no tokens/)]);
    const bad = writeJsonl(dir, 'bad.jsonl', [{ question: 'a b' }, { question: 3 }]);
    run = await rlAdv(['tfidf', 'fit', '--corpus', bad, '--out', '-']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/bad\.jsonl:2: field "question": must be a string, got 3/)]);
    run = await rlAdv(['tfidf', 'fit', '--corpus', bad]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/required option '--out <file>' not specified/)]);
    run = await rlAdv(['tfidf', 'fit', '--corpus', join(dir, 'c.txt'), '--out', join(dir, 'no', 'such', 'folder.json')]);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/--out .*folder\.json: cannot write it \(no such file or folder\)/)]);
  });

  it('one-letter words: the message says tokens need two word characters', async () => {
    const file = join(dir, 'letters.txt');
    writeFileSync(file, 'a b c\nx y\n');
    const run = await rlAdv(['tfidf', 'fit', '--corpus', file, '--out', '-']);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/letters\.txt: corpus has 2 documents but no tokens \(empty vocabulary\): a token is two or more word characters/);
  });

  it('a corpus given as --vectorizer gets the hint to give it as --corpus', async () => {
    const jsonl = writeJsonl(dir, 'train-like.jsonl', [{ question: 'the cat sat' }, { question: 'the dog sat' }]);
    const one = writeJsonl(dir, 'one-row.jsonl', [{ question: 'the cat sat' }]);
    const txt = join(dir, 'prompts.txt');
    writeFileSync(txt, 'the cat sat\nthe dog sat\n');
    for (const [file, where] of [
      [jsonl, /train-like\.jsonl:2: not valid JSON/],
      [one, /one-row\.jsonl: field "format": must be "rl-advantages\/tfidf-vectorizer"/],
      [txt, /prompts\.txt: not valid JSON \(Unexpected token 'h'\);/],
    ] as const) {
      const run = await rlAdv(['advantages', '--estimator', 'tfidf_kernel_loo_T0.1', '--vectorizer', file], { input: '{"prompt":"a","reward":1}\n' });
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(where);
      expect(run.stderr).toContain(`; --vectorizer takes a vectorizer saved by "rl-adv tfidf fit": to fit on this file, give it as --corpus ${file}\n`);
    }
  });

  it('a damaged saved vectorizer is reported with its file and field', async () => {
    const good = TfidfVectorizer.fit(['the cat sat', 'the dog sat']).toJSON();
    const file = join(dir, 'damaged.json');
    writeFileSync(file, JSON.stringify({ ...good, idf: good.idf.map((v, i) => (i === 2 ? 'x' : v)) }, null, 2));
    const run = await rlAdv(['advantages', '--estimator', 'tfidf_kernel_loo_T0.1', '--vectorizer', file], { input: '{"prompt":"a","reward":1}\n' });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/damaged\.json:\d+: field "idf\[2\]": must be a finite number, got "x"/);
  });
});
