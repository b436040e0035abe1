// rl-adv calibrate end to end: the figures equal calibrateBeff's for the same options and seed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { calibrateBeff, groupCalibrationRows } from '../../../src/calibration/beff.js';
import { calibrationJson, parseCalibrationJson } from '../../../src/calibration/json.js';
import { TfidfVectorizer } from '../../../src/text/tfidf.js';
import { trainQuestions } from '../../helpers/paths.js';
import { rlAdv, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();
let corpus: string[];
let corpusFile: string;
let rows: { task_id: string; prompt: string; reward: number; sample: number }[];
let inputFile: string;

beforeAll(() => {
  corpus = trainQuestions().slice(0, 500);
  corpusFile = writeJsonl(dir, 'corpus.jsonl', corpus.map((question) => ({ question })));
  // 40 tasks x G = 4 rollouts, each task with its own success rate; rows interleaved across tasks.
  const rng = seedrandom('calibrate-cli');
  const p = Array.from({ length: 40 }, () => rng());
  rows = [];
  for (let g = 0; g < 4; g++) {
    for (let k = 0; k < 40; k++) {
      rows.push({ task_id: `gsm8k_train_${k}`, prompt: corpus[k] as string, reward: rng() < (p[k] as number) ? 1 : 0, sample: g });
    }
  }
  inputFile = writeJsonl(dir, 'calibration.jsonl', rows);
});

const OPTIONS = ['--batch-size', '8', '--batches', '300', '--seed', '11'];

describe('rl-adv calibrate', () => {
  it('--json prints calibrationJson: the library figures for the same options and seed, and what reproduces them', async () => {
    const run = await rlAdv(['calibrate', '--input', inputFile, '--corpus', corpusFile, ...OPTIONS, '--estimators', 'tfidf_kernel_loo_T0.1,length_bucket_loo', '--json']);
    expect(run.stderr).toBe(''); // no progress bar when stderr is not a terminal
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as Record<string, unknown> & { estimators: Record<string, Record<string, unknown>> };
    const lib = calibrateBeff(groupCalibrationRows(rows), {
      batchSize: 8,
      batches: 300,
      seed: 11,
      estimators: ['tfidf_kernel_loo_T0.1', 'length_bucket_loo'],
      vectorizer: TfidfVectorizer.fit(corpus),
    });
    expect(out).toEqual(calibrationJson(lib, { corpus: corpusFile, corpus_field: 'question' }));
    expect(out).toMatchObject({
      tasks: 40,
      rollouts: 160,
      batch_size: 8,
      batches: 300,
      seed: 11,
      noise: 'pooled',
      interval_method: 'jackknife',
      interval_level: 0.95,
      mode: 'corrected',
      estimator_names: ['loo_batch_mean', 'tfidf_kernel_loo_T0.1', 'length_bucket_loo'],
    });
    expect(out.mean_reward).toBeCloseTo(rows.reduce((s, r) => s + r.reward, 0) / rows.length, 14);
    // The shape reads back into the same calibration.
    expect(parseCalibrationJson(out)).toEqual({ ...lib, vectorizer: { corpus: corpusFile, corpus_field: 'question' } });
    // The same seed gives the same numbers, run after run.
    expect((await rlAdv(['calibrate', '--input', inputFile, '--corpus', corpusFile, ...OPTIONS, '--estimators', 'tfidf_kernel_loo_T0.1,length_bucket_loo', '--json'])).stdout).toBe(run.stdout);
  });

  it('--html writes the B_eff page: an <svg> with a point per estimator, the table, the bar; no <script>', async () => {
    const out = join(dir, 'calibration.html');
    const run = await rlAdv(['calibrate', '--input', inputFile, '--corpus', corpusFile, ...OPTIONS, '--html', out, '--bar', '1.05']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/40 tasks, 160 rollouts, corrected mode/);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<svg');
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('aria-label="B_eff ratio of every estimator scored"');
    expect(html).toContain('<th>95% interval (jackknife)</th>');
    expect(html).toContain('1.05');
  });

  it('the readable table; single-rollout mode has a null sigma_eps2 and no B_eff', async () => {
    const text = await rlAdv(['calibrate', '--input', inputFile, '--corpus', corpusFile, ...OPTIONS]);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/40 tasks, 160 rollouts, corrected mode/);
    expect(text.stdout).toMatch(/\ntfidf_kernel_loo_T0\.1 +\d/);
    expect(text.stdout).toMatch(/pooled noise, delete-one-task jackknife 95% intervals/);
    // --noise per-task equals pooled when every task has the same G (here 4).
    const perTask = JSON.parse((await rlAdv(['calibrate', '--input', inputFile, '--corpus', corpusFile, ...OPTIONS, '--noise', 'per-task', '--json'])).stdout) as { noise: string; sigma_eps2: number };
    const pooled = JSON.parse((await rlAdv(['calibrate', '--input', inputFile, '--corpus', corpusFile, ...OPTIONS, '--json'])).stdout) as { sigma_eps2: number };
    expect(perTask.noise).toBe('per-task');
    expect(perTask.sigma_eps2).toBeCloseTo(pooled.sigma_eps2, 14);
    const single = writeJsonl(dir, 'single.jsonl', rows.filter((r) => r.sample === 0));
    const run = await rlAdv(['calibrate', '--input', single, '--corpus', corpusFile, ...OPTIONS, '--json']);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { mode: string; sigma_eps2: unknown; estimators: Record<string, { beff: unknown }> };
    expect([out.mode, out.sigma_eps2, out.estimators['tfidf_kernel_loo_T0.1']?.beff]).toEqual(['single_rollout', null, null]);
  });

  it('skips prompt_value with a message (it needs a sequence of batches), and refuses it as --reference', async () => {
    const run = await rlAdv(['calibrate', '--input', inputFile, '--corpus', corpusFile, '--batches', '20', '--interval', 'none', '--estimators', 'shrinkage_loo,prompt_value', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/skipping prompt_value: it keeps state across training steps \(a per-prompt value, or running moments\)/);
    expect(Object.keys((JSON.parse(run.stdout) as { estimators: object }).estimators)).toEqual(['loo_batch_mean', 'shrinkage_loo']);
    const reference = await rlAdv(['calibrate', '--input', inputFile, '--reference', 'prompt_value']);
    expect([reference.code, reference.stderr]).toEqual([2, expect.stringMatching(/--reference prompt_value: a stateful estimator/)]);
  });

  it('bad input exits 2 naming the file, line and field, or the option', async () => {
    const cases: [string[], RegExp][] = [];
    const broken = join(dir, 'broken.jsonl');
    writeFileSync(broken, '{"task_id": "a", "prompt": "p", "reward": 1}\n{"task_id": "a", "prompt": "p", "reward": null}\n');
    cases.push([['--input', broken], /broken\.jsonl:2: field "reward": must be a finite number, got null/]);
    const prompts = join(dir, 'prompts.jsonl');
    writeFileSync(prompts, '{"task_id": "a", "prompt": "p", "reward": 1}\n{"task_id": "b", "prompt": "q", "reward": 1}\n{"task_id": "a", "prompt": "other", "reward": 0}\n');
    cases.push([['--input', prompts], /prompts\.jsonl:3: field "prompt": differs from the prompt of task "a" on line 1/]);
    const mixed = writeJsonl(dir, 'mixed.jsonl', [
      { task_id: 'a', prompt: 'p a', reward: 1 },
      { task_id: 'b', prompt: 'p b', reward: 1 },
      { task_id: 'b', prompt: 'p b', reward: 0 },
    ]);
    cases.push([['--input', mixed, '--batch-size', '2'], /mixed\.jsonl:1: tasks mix single-rollout and multi-rollout tasks/]);
    cases.push([['--input', inputFile, '--batch-size', '64'], /^rl-adv: --batch-size 64 exceeds the number of tasks \(40\) in .*calibration\.jsonl; a batch holds B distinct tasks, so give --batch-size 40 or less, or more tasks\n$/]);
    cases.push([['--input', inputFile, '--batch-size', '1'], /option '--batch-size <n>' argument '1' is invalid\. must be an integer >= 2/]);
    cases.push([['--input', inputFile, '--estimators', 'tfidf_kernel_loo_Tx'], /--estimators tfidf_kernel_loo_Tx: estimator "tfidf_kernel_loo_Tx": temperature "x" is not a decimal number in canonical form .*; write tfidf_kernel_loo_T<temperature>, e.g. tfidf_kernel_loo_T0.1$/m]);
    cases.push([['--input', inputFile, '--estimators', 'tfidf_kernel_loo_T01'], /--estimators tfidf_kernel_loo_T01: .*; write tfidf_kernel_loo_T1 or tfidf_kernel_loo_T0.1$/m]);
    cases.push([['--input', inputFile, '--estimators', 'group_mean'], /--estimators: estimator "group_mean" cannot be calibrated/]);
    cases.push([['--input', inputFile, '--reference', 'rloo'], /--reference: reference "rloo" cannot be calibrated/]);
    cases.push([['--input', inputFile, '--bootstrap', '200'], /--bootstrap 200: the percentile bootstrap was removed.*--interval none/]);
    // 0 used to mean --interval none silently: now the same error, naming what replaced it.
    cases.push([['--input', inputFile, '--bootstrap', '0'], /--bootstrap 0: the percentile bootstrap was removed.*--interval none/]);
    cases.push([['--input', inputFile, '--interval', 'bootstrap'], /option '--interval <method>' argument 'bootstrap' is invalid/]);
    for (const [args, message] of cases) {
      const run = await rlAdv(['calibrate', ...args, '--corpus', corpusFile, '--batches', '20', '--interval', 'none']);
      expect([run.code, run.stdout], args.join(' ')).toEqual([2, '']);
      expect(run.stderr, args.join(' ')).toMatch(message);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
    const noCorpus = await rlAdv(['calibrate', '--input', inputFile]);
    expect([noCorpus.code, noCorpus.stderr]).toEqual([2, expect.stringMatching(/tfidf_kernel_loo_T0\.1 weighs rollouts by prompt similarity: give --corpus FILE/)]);
  });

  it('validates its input before asking for (or reading) a corpus', async () => {
    const broken = join(dir, 'broken-first.jsonl');
    writeFileSync(broken, '{"task_id": "a", "prompt": "p", "reward": 1}\n{"task_id": "a", "prompt": "p", "reward": "x"}\n');
    const absent = join(dir, 'no-such-corpus.jsonl');
    for (const source of [[], ['--corpus', absent], ['--vectorizer', absent]]) {
      const run = await rlAdv(['calibrate', '--input', broken, ...source]);
      expect([run.code, run.stdout]).toEqual([2, '']);
      expect(run.stderr).toMatch(/^rl-adv: .*broken-first\.jsonl:2: field "reward": must be a finite number, got "x"\n$/);
    }
    const tooFew = await rlAdv(['calibrate', '--input', inputFile, '--batch-size', '41']);
    expect(tooFew.stderr).toMatch(/^rl-adv: --batch-size 41 exceeds the number of tasks \(40\)/);
  });
});
