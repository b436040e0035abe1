// rl-adv advantages end to end: a real subprocess, compared with the library, and its bad input.
import { linkSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEstimator } from '../../../src/estimators/registry.js';
import { TfidfVectorizer } from '../../../src/text/tfidf.js';
import { trainQuestions } from '../../helpers/paths.js';
import { parseLines, rlAdv, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();
let corpus: string[];
let corpusFile: string;
let rows: { prompt: string; reward: number; group: string; note: string }[];
let inputFile: string;

beforeAll(() => {
  // A small slice of the GSM8K train questions keeps the fit fast; the batch reuses some of them.
  corpus = trainQuestions().slice(0, 300);
  corpusFile = writeJsonl(dir, 'corpus.jsonl', corpus.map((question, i) => ({ question, i })));
  rows = Array.from({ length: 12 }, (_, i) => ({
    prompt: corpus[(i * 7) % 5] as string, // 5 distinct prompts, repeated: groups of GRPO style
    reward: [1, 0, 0.5, 1, 0, 0, 1, 1, 0, 0.25, 1, 0][i] as number,
    group: `q${(i * 7) % 5}`,
    note: 'extra fields are ignored',
  }));
  inputFile = writeJsonl(dir, 'rollouts.jsonl', rows);
});

function library(name: string, vectorizer?: TfidfVectorizer) {
  const result = createEstimator(name, vectorizer ? { vectorizer } : {}).compute({
    rewards: rows.map((r) => r.reward),
    prompts: rows.map((r) => r.prompt),
    groupIds: rows.map((r) => r.group),
  });
  return rows.map((_, i) => ({
    advantage: result.advantages[i],
    baseline: result.baselines[i],
    loo_mean: result.looMean[i],
  }));
}

describe('rl-adv advantages: the estimators of docs/method.md section 2.2', () => {
  const extra = [
    { reward: 1, group: 'a', length: 10, greedy_reward: 0.5 },
    { reward: 0, group: 'a', length: 30, greedy_reward: 0.5 },
    { reward: null, group: 'a', length: 5, greedy_reward: 0.5, masked: true },
    { reward: 1, group: 'b', length: 8, greedy_reward: 1 },
    { reward: 1, group: 'b', length: 9, greedy_reward: 1 },
    { reward: 0, group: 'c', length: 4, greedy_reward: 0 },
  ];
  const batch = {
    rewards: extra.map((r) => (r.reward === null ? Number.NaN : r.reward)),
    groupIds: extra.map((r) => r.group),
    lengths: extra.map((r) => r.length),
    greedyRewards: extra.map((r) => r.greedy_reward),
    mask: extra.map((r) => r.masked === true),
  };
  it.each([
    ['opo', {}, []],
    ['remax', { normalize: 'batch', epsilon: 1e-4 }, ['--normalize', 'batch', '--epsilon', '1e-4']],
    ['reinforce_plus_plus_baseline', {}, []],
    ['gpg', { stdFloor: 0.5, normalize: 'group' }, ['--std-floor', '0.5', '--normalize', 'group']],
    ['rloo', { singleton: 'zero' }, ['--singleton', 'zero']],
    ['shrinkage_loo', {}, []],
  ] as const)('%s reads length, greedy_reward and masked rows, and equals the library', async (name, context, flags) => {
    const file = writeJsonl(dir, `extra-${name}.jsonl`, extra);
    const run = await rlAdv(['advantages', '--estimator', name, ...flags, '--input', file]);
    expect(run.code, run.stderr).toBe(0);
    const result = createEstimator(name, context).compute(batch);
    expect(parseLines(run.stdout)).toEqual(extra.map((_, i) => ({ advantage: result.advantages[i], baseline: result.baselines[i], loo_mean: result.looMean[i] })));
    expect(run.stderr).toContain('1 masked');
  });

  it('refuses prompt_value (no history in one batch) and a bad --epsilon, with exit 2', async () => {
    const file = writeJsonl(dir, 'pv.jsonl', [{ reward: 1, prompt: 'x' }]);
    const stateful = await rlAdv(['advantages', '--estimator', 'prompt_value', '--input', file]);
    expect([stateful.code, stateful.stderr]).toEqual([2, expect.stringMatching(/--estimator prompt_value: .*rl-adv serve with a "session"/)]);
    const bad = await rlAdv(['advantages', '--estimator', 'group_mean', '--epsilon', '-1', '--input', file]);
    expect([bad.code, bad.stderr]).toEqual([2, expect.stringMatching(/--epsilon/)]);
    const missing = await rlAdv(['advantages', '--estimator', 'opo', '--input', writeJsonl(dir, 'opo.jsonl', [{ reward: 1, group: 'a', length: 3 }, { reward: 0, group: 'a' }])]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringMatching(/opo\.jsonl:2: field "length": is missing/)]);
  });
});

describe('rl-adv advantages', () => {
  it.each(['group_mean', 'group_mean_std', 'rloo', 'loo_batch_mean'])('%s: output rows equal the library, in input order', async (name) => {
    const run = await rlAdv(['advantages', '--estimator', name, '--input', inputFile]);
    // stdout holds the rows alone; stderr one line of diagnostics (5 groups of sizes 3, 3, 2, 2, 2).
    expect(run.stderr).toMatch(/^rl-adv: 5 groups \(0 of one, \d zero-variance\), [\d.]+% of advantages exactly 0\n$/);
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)).toEqual(library(name));
  });

  it('tfidf_kernel_loo_T0.1 with --corpus equals the library with the vectorizer fitted on the same corpus', async () => {
    const run = await rlAdv(['advantages', '--estimator', 'tfidf_kernel_loo_T0.1', '--corpus', corpusFile, '--input', inputFile]);
    expect(run.code).toBe(0);
    const expected = library('tfidf_kernel_loo_T0.1', TfidfVectorizer.fit(corpus));
    expect(parseLines(run.stdout)).toEqual(expected);
    // The kernel baseline differs from the LOO batch mean here (else the test could not tell them apart).
    expect(expected.some((r) => r.baseline !== r.loo_mean)).toBe(true);
  });

  it('reads stdin and writes --output; length_bucket_loo with a saved --vectorizer and a .txt corpus agree', async () => {
    const txt = join(dir, 'corpus.txt');
    writeFileSync(txt, corpus.join('\n') + '\n');
    const saved = join(dir, 'vec.json');
    expect((await rlAdv(['tfidf', 'fit', '--corpus', txt, '--out', saved])).code).toBe(0);
    const out = join(dir, 'adv.jsonl');
    const input = readFileSync(inputFile, 'utf8');
    const run = await rlAdv(['advantages', '--estimator', 'length_bucket_loo', '--vectorizer', saved, '--output', out], { input });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('');
    expect(parseLines(readFileSync(out, 'utf8'))).toEqual(library('length_bucket_loo', TfidfVectorizer.fit(corpus)));
  });

  it('kernel_loo_T<T> takes per-row "features"', async () => {
    const file = writeJsonl(dir, 'features.jsonl', [
      { reward: 1, features: [1, 0] },
      { reward: 1, features: [1, 0.1] },
      { reward: 0, features: [0, 1] },
      { reward: 0, features: [0.1, 1] },
    ]);
    const run = await rlAdv(['advantages', '--estimator', 'kernel_loo_T0.5', '--input', file]);
    expect(run.code).toBe(0);
    const result = createEstimator('kernel_loo_T0.5').compute({
      rewards: [1, 1, 0, 0],
      features: [
        [1, 0],
        [1, 0.1],
        [0, 1],
        [0.1, 1],
      ],
    });
    expect(parseLines(run.stdout).map((r) => (r as { baseline: number }).baseline)).toEqual(Array.from(result.baselines));
  });

  it('fields the estimator does not read are ignored: a prompt on some rows of a loo_batch_mean input', async () => {
    const file = writeJsonl(dir, 'partial.jsonl', [
      { prompt: 'a', reward: 1, group: 'g' },
      { reward: 0 },
      { prompt: 7, reward: 0.5, features: 'x' },
    ]);
    const run = await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--input', file]);
    expect([run.code, run.stderr]).toEqual([0, 'rl-adv: 3 groups (3 of one, 0 zero-variance), 33.3% of advantages exactly 0; every rollout is a group of one (no "group" field, or one rollout a prompt: GS1\'s design), and this estimator takes each rollout\'s baseline from the other prompts of the batch, so groups of one are expected\n']);
    expect(parseLines(run.stdout).map((r) => (r as { baseline: number }).baseline)).toEqual([0.25, 0.75, 0.5]);
  });

  describe('--output never overwrites --input (exit 2, the input unchanged)', () => {
    it.each([
      ['the same path', (f: string) => f],
      ['another relative path to it', (f: string) => join(dir, '.', 'sub', '..', f.slice(dir.length + 1))],
      ['a symbolic link to it', (f: string) => {
        const link = join(dir, 'link.jsonl');
        rmSync(link, { force: true });
        symlinkSync(f, link);
        return link;
      }],
      ['a hard link to it', (f: string) => {
        const link = join(dir, 'hard.jsonl');
        rmSync(link, { force: true });
        linkSync(f, link);
        return link;
      }],
    ])('%s', async (_, outputOf) => {
      mkdirSync(join(dir, 'sub'), { recursive: true });
      const file = writeJsonl(dir, 'mine.jsonl', [{ reward: 1 }, { reward: 0 }]);
      const before = readFileSync(file, 'utf8');
      const output = outputOf(file);
      const run = await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--input', file, '--output', output]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^rl-adv: --output .* is the --input file \(.*mine\.jsonl\); it would be overwritten: give --output another file\n$/);
      expect(readFileSync(file, 'utf8')).toBe(before);
    });

    it('tfidf fit: --out never overwrites --corpus', async () => {
      const file = join(dir, 'c.txt');
      writeFileSync(file, 'apples and pears\n');
      const run = await rlAdv(['tfidf', 'fit', '--corpus', file, '--out', file]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/--out .*c\.txt is the --corpus file/);
      expect(readFileSync(file, 'utf8')).toBe('apples and pears\n');
    });
  });

  describe('bad input: exit 2, one line naming the file, line and field, no stack trace', () => {
    const cases: [string, string, RegExp][] = [
      ['a reward that is a string', '{"prompt": "a", "reward": 1}\n{"prompt": "b", "reward": "x"}\n', /bad\.jsonl:2: field "reward": must be a finite number, got "x"/],
      ['a missing reward', '{"prompt": "a", "reward": 1}\n\n{"prompt": "b"}\n', /bad\.jsonl:3: field "reward": is missing/],
      ['a line that is not JSON', '{"prompt": "a", "reward": 1}\n{"prompt": "b", reward: 0}\n', /bad\.jsonl:2: not valid JSON/],
      ['a row that is not an object', '[1, 2]\n', /bad\.jsonl:1: must be a JSON object, got an array/],
      ['an empty file', '\n\n', /bad\.jsonl: holds no rows/],
    ];
    it.each(cases)('%s', async (_, text, message) => {
      const file = join(dir, 'bad.jsonl');
      writeFileSync(file, text);
      const run = await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--input', file]);
      expect(run.code).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toMatch(/^rl-adv: /);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    });

    it('a prompt on some rows only, or not a string, is an error for an estimator that reads prompts', async () => {
      const vectorizer = join(dir, 'vec-some.json');
      expect((await rlAdv(['tfidf', 'fit', '--corpus', corpusFile, '--out', vectorizer])).code).toBe(0);
      for (const [text, message] of [
        ['{"prompt": "a", "reward": 1}\n{"reward": 0}\n', /some\.jsonl:2: field "prompt": is missing, but line 1 gives one/],
        ['{"prompt": "a", "reward": 1}\n{"prompt": 7, "reward": 0}\n', /some\.jsonl:2: field "prompt": must be a string, got 7/],
      ] as const) {
        const file = join(dir, 'some.jsonl');
        writeFileSync(file, text);
        const run = await rlAdv(['advantages', '--estimator', 'length_bucket_loo', '--vectorizer', vectorizer, '--input', file]);
        expect([run.code, run.stdout]).toEqual([2, '']);
        expect(run.stderr).toMatch(message);
      }
      const groups = writeJsonl(dir, 'somegroups.jsonl', [{ reward: 1, group: 'a' }, { reward: 0 }]);
      const run = await rlAdv(['advantages', '--estimator', 'group_mean', '--input', groups]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/somegroups\.jsonl:2: field "group": is missing, but line 1 gives one/);
    });

    it('kernel_loo without a temperature says to put it in the name or the spec', async () => {
      const file = writeJsonl(dir, 'kernel.jsonl', [{ reward: 1, features: [1] }, { reward: 0, features: [2] }]);
      const run = await rlAdv(['advantages', '--estimator', 'kernel_loo', '--input', file]);
      expect([run.code, run.stderr]).toEqual([2, 'rl-adv: --estimator kernel_loo: estimator "kernel_loo" needs temperature (a finite number > 0): write kernel_loo_T<temperature> (e.g. kernel_loo_T0.1) or give { name: "kernel_loo", temperature: 0.1 }\n']);
      const served = await rlAdv(['serve'], { input: '{"id": 1, "estimator": "kernel_loo", "rewards": [1, 0]}\n' });
      expect(parseLines(served.stdout)).toEqual([
        {
          id: 1,
          error: {
            code: 'missing_option',
            message: 'estimator "kernel_loo" needs temperature (a finite number > 0): write kernel_loo_T<temperature> (e.g. kernel_loo_T0.1) or give { name: "kernel_loo", temperature: 0.1 }',
            field: 'temperature',
          },
        },
      ]);
    });

    it('a group of one under rloo names the line of that rollout', async () => {
      const file = writeJsonl(dir, 'rloo.jsonl', [
        { reward: 1, group: 'a' },
        { reward: 0, group: 'a' },
        { reward: 1, group: 'b' },
      ]);
      const run = await rlAdv(['advantages', '--estimator', 'rloo', '--input', file]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/rloo\.jsonl:3: field "group": is a group of one rollout/);
    });

    it('a group estimator without groups names the field', async () => {
      const file = writeJsonl(dir, 'nogroup.jsonl', [{ reward: 1 }, { reward: 0 }]);
      const run = await rlAdv(['advantages', '--estimator', 'group_mean', '--input', file]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/nogroup\.jsonl: field "group": is required/);
    });

    it('an unknown estimator, a kernel without a vectorizer, a missing file, both --corpus and --vectorizer', async () => {
      let run = await rlAdv(['advantages', '--estimator', 'nope', '--input', inputFile]);
      expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/--estimator nope: unknown estimator "nope" \(did you mean "opo"\?\); known estimators: group_mean/)]);
      run = await rlAdv(['advantages', '--estimator', 'tfidf_kernel_loo_T0.1', '--input', inputFile]);
      expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/needs a fitted TF-IDF vectorizer: start rl-adv advantages with --corpus FILE/)]);
      run = await rlAdv(['advantages', '--estimator', 'group_mean', '--input', join(dir, 'absent.jsonl')]);
      expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/--input .*absent\.jsonl: cannot read it \(no such file or folder\)/)]);
      run = await rlAdv(['advantages', '--estimator', 'group_mean', '--corpus', corpusFile, '--vectorizer', 'x.json', '--input', inputFile]);
      expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/--corpus <file>' cannot be used with option '--vectorizer/)]);
    });

    it('a corpus row without the text field names the corpus file, line and field', async () => {
      const file = writeJsonl(dir, 'badcorpus.jsonl', [{ question: 'a b' }, { text: 'c d' }]);
      const run = await rlAdv(['advantages', '--estimator', 'tfidf_kernel_loo_T0.1', '--corpus', file, '--input', inputFile]);
      expect(run.code).toBe(2);
      expect(run.stderr).toMatch(/badcorpus\.jsonl:2: field "question": is missing \(each corpus row needs the document text in "question"; --corpus-field picks another field\)/);
      const ok = await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--corpus', file, '--corpus-field', 'text', '--input', inputFile]);
      expect(ok.code).toBe(2); // row 1 has no "text": every row must give the field
      expect(ok.stderr).toMatch(/badcorpus\.jsonl:1: field "text"/);
    });
  });
});
