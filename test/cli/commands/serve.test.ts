// rl-adv serve end to end: JSON lines over a real subprocess's stdin/stdout, responses equal to the
// library's, bad lines answered with errors while the server goes on.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEstimator, createStatefulEstimator } from '../../../src/estimators/registry.js';
import type { Batch } from '../../../src/estimators/types.js';
import { TfidfVectorizer } from '../../../src/text/tfidf.js';
import { trainQuestions } from '../../helpers/paths.js';
import { cliPath, parseLines, rlAdv, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();
let corpus: string[];
let corpusFile: string;
let vectorizer: TfidfVectorizer;

beforeAll(() => {
  corpus = trainQuestions().slice(0, 400);
  corpusFile = writeJsonl(dir, 'corpus.jsonl', corpus.map((question) => ({ question })));
  vectorizer = TfidfVectorizer.fit(corpus);
});

function expected(id: string | number, estimator: string, batch: Batch): unknown {
  const created = createEstimator(estimator, { vectorizer });
  const r = created.compute(batch);
  return {
    id,
    estimator: created.name,
    advantages: Array.from(r.advantages),
    baselines: Array.from(r.baselines),
    loo_mean: Array.from(r.looMean),
    max_self_weight: r.maxSelfWeight,
    diagnostics: {
      groups: r.diagnostics.groups,
      groups_of_one: r.diagnostics.groupsOfOne,
      zero_variance_groups: r.diagnostics.zeroVarianceGroups,
      zero_advantage_fraction: r.diagnostics.zeroAdvantageFraction,
      masked: r.diagnostics.masked,
    },
  };
}

describe('rl-adv serve: new estimators, options and prompt_value sessions', () => {
  it('passes lengths, greedy_rewards, mask and options; keeps one prompt_value per session, as the library', async () => {
    const steps = [
      { rewards: [1, 0, 1], prompts: ['p', 'p', 'q'] },
      { rewards: [1, 1, 0], prompts: ['p', 'r', 'q'] },
    ];
    const requests = [
      { id: 1, estimator: 'opo', rewards: [1, 0, null], group_ids: [0, 0, 0], lengths: [1, 3, 2], mask: [false, false, true] },
      { id: 2, estimator: 'remax', rewards: [1, 0], greedy_rewards: [0.5, 0.5], normalize: 'batch', epsilon: 0 },
      ...steps.map((step, k) => ({ id: `s${k}`, estimator: 'prompt_value', session: 'run-a', prompt_value: { kind: 'beta' }, ...step })),
      { id: 'other', estimator: 'prompt_value', session: 'run-b', ...steps[1] },
      { id: 'clash', estimator: 'prompt_value', session: 'run-a', ...steps[1] },
      { id: 'nosession', estimator: 'prompt_value', ...steps[1] },
      { id: 'bad', estimator: 'group_mean', rewards: [1], group_ids: [0], std_floor: -1 },
    ];
    const run = await rlAdv(['serve'], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n' });
    expect(run.code).toBe(0);
    const responses = run.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(responses[0]).toEqual(expected(1, 'opo', { rewards: [1, 0, Number.NaN], groupIds: [0, 0, 0], lengths: [1, 3, 2], mask: [false, false, true] }));
    expect((responses[0] as { diagnostics: { masked: number } }).diagnostics.masked).toBe(1);
    expect(responses[1]?.advantages).toEqual(Array.from(createEstimator('remax', { normalize: 'batch', epsilon: 0 }).compute({ rewards: [1, 0], greedyRewards: [0.5, 0.5] }).advantages));
    const library = createStatefulEstimator('prompt_value', { promptValue: { kind: 'beta' } });
    steps.forEach((step, k) => {
      expect(responses[2 + k]?.advantages).toEqual(Array.from(library.compute(step).advantages));
      library.update(step);
    });
    // A new session starts from the prior: the default ema, nothing seen.
    expect(responses[4]?.baselines).toEqual([0.5, 0.5, 0.5]);
    expect(responses[5]).toMatchObject({ id: 'clash', error: { code: 'bad_request', message: expect.stringMatching(/session "run-a" was started as prompt_value/) } });
    expect(responses[6]).toMatchObject({ id: 'nosession', error: { code: 'missing_field', message: expect.stringMatching(/field "session" is required/) } });
    expect(responses[7]).toMatchObject({ id: 'bad', error: { code: 'bad_option', message: expect.stringMatching(/std_floor must be/) } });
  });
});

describe('rl-adv serve', () => {
  it('answers every line in order: good requests as the library computes them, bad lines with errors', async () => {
    const prompts = corpus.slice(10, 42);
    const rewards = prompts.map((_, i) => (i * 37) % 5 === 0 ? 1 : i % 3 === 0 ? 0.5 : 0);
    const groups = prompts.map((_, i) => `g${i % 4}`);
    const requests = [
      JSON.stringify({ id: 1, estimator: 'tfidf_kernel_loo_T0.1', rewards, prompts }),
      'this is not JSON',
      JSON.stringify({ id: 'two', estimator: 'group_mean', rewards, group_ids: groups }),
      '',
      JSON.stringify({ id: 3, estimator: 'no_such_estimator', rewards }),
      JSON.stringify({ id: 4, estimator: 'loo_batch_mean', rewards: [1, 'x', 0] }),
      JSON.stringify({ estimator: 'loo_batch_mean', rewards: [1, 0] }),
      JSON.stringify([1, 2, 3]),
      JSON.stringify({ id: 5, estimator: 'group_mean', rewards: [1, 0] }),
      JSON.stringify({ id: 6, estimator: 'tfidf_kernel_loo_T0.1', rewards: [1, 0], prompts: ['a'] }),
      JSON.stringify({ id: 7, estimator: 'tfidf_kernel_loo_T0.1', rewards, prompts }), // cached estimator, same answer
      JSON.stringify({ id: 8, estimator: 'length_bucket_loo', rewards, prompts }),
      JSON.stringify({ id: 9, estimator: 'rloo', rewards, group_ids: groups }),
    ];
    const run = await rlAdv(['serve', '--corpus', corpusFile], { input: requests.join('\n') + '\n' });
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    // stdout holds nothing but responses, one line each.
    expect(run.stdout.endsWith('\n')).toBe(true);
    const responses = parseLines(run.stdout);
    expect(responses).toHaveLength(requests.filter((r) => r !== '').length);
    expect(responses[0]).toEqual(expected(1, 'tfidf_kernel_loo_T0.1', { rewards, prompts }));
    expect(responses[1]).toEqual({ id: null, error: { code: 'bad_json', message: expect.stringMatching(/^line 2 is not valid JSON/) } });
    expect(responses[2]).toEqual(expected('two', 'group_mean', { rewards, groupIds: groups }));
    expect(responses[3]).toEqual({ id: 3, error: { code: 'unknown_estimator', message: expect.stringMatching(/unknown estimator "no_such_estimator"/), field: 'name' } });
    expect(responses[4]).toEqual({ id: 4, error: { code: 'non_finite', message: 'rewards[1] must be a finite number, got "x"', field: 'rewards', index: 1 } });
    expect(responses[5]).toEqual({ id: null, error: { code: 'bad_request', message: expect.stringMatching(/line 7: field "id"/) } });
    expect(responses[6]).toEqual({ id: null, error: { code: 'bad_request', message: expect.stringMatching(/must be a JSON object/) } });
    expect(responses[7]).toEqual({ id: 5, error: { code: 'missing_field', message: expect.stringMatching(/^group_ids is required/), field: 'group_ids' } });
    expect(responses[8]).toEqual({ id: 6, error: { code: 'length_mismatch', message: expect.stringMatching(/prompts has 1 elements but rewards has 2/), field: 'prompts' } });
    expect(responses[9]).toEqual(responses[0] && { ...(responses[0] as object), id: 7 });
    expect(responses[10]).toEqual(expected(8, 'length_bucket_loo', { rewards, prompts }));
    expect(responses[11]).toEqual(expected(9, 'rloo', { rewards, groupIds: groups }));
  });

  it("NaN or Infinity (Python's json.dumps default) is answered with the request's id and says allow_nan=False", async () => {
    const requests = [
      '{"id": 11, "estimator": "loo_batch_mean", "rewards": [1.0, NaN, 0.0]}',
      '{"estimator": "loo_batch_mean", "id": "step-12", "rewards": [Infinity, 0]}',
      '{"id": 13, "estimator": "loo_batch_mean", "rewards": [-Infinity, 0]}',
      '{"rewards": [NaN], "estimator": "loo_batch_mean"}',
      '{"id": 15, "estimator": "loo_batch_mean", "prompts": ["NaN, Infinity"], "rewards": [1, 0], oops}',
      '{"id": 16, "estimator": "loo_batch_mean", "rewards": [1, 0]}',
    ];
    const run = await rlAdv(['serve'], { input: requests.join('\n') + '\n' });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const responses = parseLines(run.stdout) as { id: unknown; error?: { code: string; message: string } }[];
    expect(responses.map((r) => r.id)).toEqual([11, 'step-12', 13, null, 15, 16]);
    for (const [i, r] of responses.slice(0, 4).entries()) {
      expect(r.error).toEqual({
        code: 'bad_json',
        message: `line ${i + 1} holds NaN or Infinity, which JSON does not allow (Python's json.dumps writes them by default): ` +
          'send finite numbers and encode with json.dumps(request, allow_nan=False), which raises on them instead',
      });
    }
    // NaN inside a string is not the problem of a line that is broken elsewhere.
    expect(responses[4]?.error?.message).toMatch(/^line 5 is not valid JSON/);
    expect(responses[5]).toMatchObject({ id: 16, advantages: [1, -1], baselines: [0, 1], loo_mean: [0, 1], max_self_weight: 0 });
    expect(responses[5]).toHaveProperty('diagnostics');
  });

  it('without --corpus or --vectorizer a kernel request is an error response that says how to start the server', async () => {
    const run = await rlAdv(['serve'], {
      input: JSON.stringify({ id: 1, estimator: 'tfidf_kernel_loo_T0.1', rewards: [1, 0], prompts: ['a', 'b'] }) + '\n' +
        JSON.stringify({ id: 2, estimator: 'loo_batch_mean', rewards: [1, 0] }) + '\n',
    });
    expect(run.code).toBe(0);
    const [first, second] = parseLines(run.stdout);
    expect(first).toEqual({ id: 1, error: { code: 'missing_vectorizer', message: expect.stringMatching(/start rl-adv serve with --corpus FILE/), field: 'estimator' } });
    expect(second).toEqual({
      id: 2,
      estimator: 'loo_batch_mean',
      advantages: [1, -1],
      baselines: [0, 1],
      loo_mean: [0, 1],
      max_self_weight: 0,
      diagnostics: { groups: 2, groups_of_one: 2, zero_variance_groups: 0, zero_advantage_fraction: 0, masked: 0 },
    });
  });

  it('answers each request before the next one arrives (a training loop can wait on each)', async () => {
    const child = spawn(process.execPath, [cliPath, 'serve', '--corpus', corpusFile], { stdio: ['pipe', 'pipe', 'pipe'] });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const ask = async (request: object): Promise<unknown> => {
      child.stdin.write(JSON.stringify(request) + '\n');
      const next = await lines.next();
      return JSON.parse(next.value as string) as unknown;
    };
    const prompts = corpus.slice(0, 8);
    const rewards = [1, 0, 1, 1, 0, 0, 1, 0];
    expect(await ask({ id: 'a', estimator: 'tfidf_kernel_loo_T0.1', rewards, prompts })).toEqual(
      expected('a', 'tfidf_kernel_loo_T0.1', { rewards, prompts }),
    );
    expect(await ask({ id: 'b', estimator: 'loo_batch_mean', rewards })).toEqual(expected('b', 'loo_batch_mean', { rewards }));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
  });

  it('a bad --corpus or --vectorizer at start-up is exit 2 before any request', async () => {
    const run = await rlAdv(['serve', '--vectorizer', corpusFile], { input: '{"id":1,"estimator":"loo_batch_mean","rewards":[1,0]}\n' });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/corpus\.jsonl:2: not valid JSON/);
    const notVectorizer = writeJsonl(dir, 'other.json', [{ terms: [] }]);
    const other = await rlAdv(['serve', '--vectorizer', notVectorizer]);
    expect([other.code, other.stderr]).toEqual([2, expect.stringMatching(/other\.json: field "format": must be "rl-advantages\/tfidf-vectorizer"/)]);
  });
});

describe('rl-adv serve: framing, size limit and group ids', () => {
  it('a lone CR is whitespace inside a request (one answer), CRLF ends a line', async () => {
    const input = '{"id":1,\r"estimator":"loo_batch_mean",\r"rewards":[1,0]}\r\n{"id":2,"estimator":"loo_batch_mean","rewards":[0,1]}\n';
    const run = await rlAdv(['serve'], { input });
    const responses = parseLines(run.stdout) as { id: unknown; advantages?: number[] }[];
    expect(responses.map((r) => [r.id, r.advantages])).toEqual([
      [1, [1, -1]],
      [2, [-1, 1]],
    ]);
  });

  it('a 10 MB unterminated string is bad_json with its id; a line over --max-request-bytes is too_large; the server goes on', async () => {
    const huge = '{"id":"h","estimator":"loo_batch_mean","prompts":["' + 'x'.repeat(10_000_000) + '\n';
    const long = JSON.stringify({ id: 'long', estimator: 'loo_batch_mean', rewards: Array.from({ length: 400 }, () => 1) }) + '\n';
    const next = '{"id":"next","estimator":"loo_batch_mean","rewards":[1,0]}\n';
    const run = await rlAdv(['serve'], { input: huge + next });
    const [first, second] = parseLines(run.stdout) as { id: unknown; error?: { code: string; message: string } }[];
    expect(first).toEqual({ id: 'h', error: { code: 'bad_json', message: expect.stringMatching(/^line 1 is not valid JSON \(Unterminated string/) } });
    expect(second).toMatchObject({ id: 'next', advantages: [1, -1] });
    const limited = await rlAdv(['serve', '--max-request-bytes', '500'], { input: long + next });
    const [tooLarge, after] = parseLines(limited.stdout) as { id: unknown; error?: { code: string; message: string } }[];
    expect(tooLarge).toEqual({ id: 'long', error: { code: 'too_large', message: expect.stringMatching(/^line 1 is \d+ bytes, over the limit of 500 bytes: split the batch, or start rl-adv serve with a larger --max-request-bytes$/) } });
    expect(after).toMatchObject({ id: 'next', advantages: [1, -1] });
    const zero = await rlAdv(['serve', '--max-request-bytes', '0']);
    expect([zero.code, zero.stderr]).toEqual([2, expect.stringMatching(/--max-request-bytes.*must be an integer >= 1/)]);
  });

  it('refuses group ids JSON cannot carry exactly, naming field and index; keeps 0 and "0" apart', async () => {
    const ask = (id: number, groupIds: string): string => `{"id":${id},"estimator":"group_mean","rewards":[1,0,1,0],"group_ids":${groupIds}}\n`;
    const input = ask(1, '[9007199254740992,9007199254740993,7,8]') + ask(2, '[0,true,1,1]') + ask(3, '[0,0.5,1,1]') + ask(4, '[0,"0",1,1]') + ask(5, '[-9007199254740991,"9007199254740993",1,1]');
    const responses = parseLines((await rlAdv(['serve'], { input })).stdout) as { id: number; error?: { field: string; index: number; message: string }; advantages?: number[] }[];
    expect(responses.slice(0, 3).map((r) => [r.id, r.error?.field, r.error?.index])).toEqual([
      [1, 'group_ids', 0],
      [2, 'group_ids', 1],
      [3, 'group_ids', 1],
    ]);
    expect(responses[0]?.error?.message).toMatch(/beyond 2\^53 - 1 loses its identity.*send such ids as strings/);
    expect(responses[3]?.advantages).toEqual([0, 0, 0.5, -0.5]);
    expect(responses[4]?.advantages).toEqual([0, 0, 0.5, -0.5]);
  });
});
