// rl-adv estimators and serve's describe: the catalogue as JSON, equal to the library's catalogueJson(); estimator
// specs as JSON (--estimator-json, serve's "estimator" object); unknown fields refused with the closest name.
import { describe, expect, it } from 'vitest';
import { catalogueJson } from '../../../src/estimators/catalogue-json.js';
import { createEstimator } from '../../../src/estimators/registry.js';
import { parseLines, rlAdv, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();

/** An estimator's options as messages list them (snake_case, catalogue order). */
function options(name: string): string {
  return (catalogueJson().estimators.find((e) => e.name === name)?.parameters ?? []).map((p) => p.name).join(', ');
}

describe('rl-adv estimators', () => {
  it('--json prints catalogueJson(); the table lists every estimator with its short form', async () => {
    const json = await rlAdv(['estimators', '--json']);
    expect([json.code, json.stderr]).toEqual([0, '']);
    expect(JSON.parse(json.stdout)).toEqual(catalogueJson());
    const text = await rlAdv(['estimators']);
    expect(text.code).toBe(0);
    for (const e of catalogueJson().estimators) {
      expect(text.stdout).toContain(`\n${e.name} `);
      expect(text.stdout).toContain(`\n  ${e.name}: `);
    }
    expect(text.stdout).toMatch(/^\d+ estimators \(rl-advantages \d+\.\d+\.\d+\)/);
    expect(text.stdout).toMatch(/\ntfidf_kernel_loo +\+ _T<temperature> +kernel +prompts +vectorizer\n/);
    expect(text.stdout).toMatch(/\n {2}tfidf_kernel_loo: temperature \(required\)\n/);
    expect(text.stdout).toMatch(/\n {2}group_mean_std: epsilon=0.000001, std_floor=0(, |\n)/);
    const parameterLines = (text.stdout.split('\nParameters')[1] ?? '').split('\n');
    expect(parameterLines.length).toBeGreaterThan(10);
    expect(Math.max(...parameterLines.map((line) => line.length))).toBeLessThanOrEqual(100);
  });
});

describe('rl-adv serve: describe, estimator objects, unknown fields', () => {
  it('answers describe with the catalogue, an estimator object as its name, and refuses unknown fields', async () => {
    const rewards = [1, 0, 1, 1];
    const groupIds = [0, 0, 1, 1];
    const requests = [
      { id: 1, op: 'describe' },
      { id: 2, estimator: { name: 'group_mean_std', std_floor: 0.5 }, rewards, group_ids: groupIds },
      { id: 3, estimator: 'group_mean', rewards, group_ids: groupIds, normalise: 'batch' },
      { id: 4, estimator: { name: 'tfidf_kernel_loo_T01' }, rewards, prompts: ['a', 'b', 'c', 'd'] },
      { id: 5, op: 'describes' },
      { id: 6, estimator: { name: 'group_mean_std', epsilon: 0.1 }, rewards, group_ids: groupIds, epsilon: 0.2 },
      { id: 7, estimator: 'group_mean', rewards, group_ids: groupIds, normalize: 'batch' },
      { id: 8, estimator: { name: 'group_mean', stdFloor: 1 }, rewards, group_ids: groupIds },
    ];
    const run = await rlAdv(['serve'], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n' });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const responses = parseLines(run.stdout) as Record<string, unknown>[];
    expect(responses[0]).toEqual({ id: 1, ...catalogueJson() });
    const library = createEstimator({ name: 'group_mean_std', stdFloor: 0.5 }).compute({ rewards, groupIds });
    expect(responses[1]).toMatchObject({ id: 2, estimator: 'group_mean_std', advantages: Array.from(library.advantages) });
    expect(responses[2]).toEqual({
      id: 3,
      error: { code: 'unknown_field', field: 'normalise', message: `unknown field "normalise" (did you mean "normalize"?); group_mean's options: ${options('group_mean')}` },
    });
    expect(responses[3]).toMatchObject({ id: 4, error: { code: 'bad_name', message: expect.stringMatching(/write tfidf_kernel_loo_T1 or tfidf_kernel_loo_T0\.1$/) } });
    expect(responses[4]).toEqual({ id: 5, error: { code: 'unknown_op', field: 'op', message: 'unknown op "describes" (did you mean "describe"?); ops: describe, state_dict, load_state_dict (an estimator request has no "op")' } });
    expect(responses[5]).toMatchObject({ id: 6, error: { code: 'conflicting_option', field: 'epsilon', message: 'epsilon is given twice: 0.1 in the spec and 0.2 in the options' } });
    const batchNormalised = createEstimator('group_mean', { normalize: 'batch' }).compute({ rewards, groupIds });
    expect(responses[6]).toMatchObject({ id: 7, estimator: 'group_mean', advantages: Array.from(batchNormalised.advantages) });
    expect(responses[7]).toMatchObject({ id: 8, error: { code: 'unknown_option', message: 'estimator: option names are snake_case: write "std_floor"', field: 'std_floor' } });
  });
});

describe('rl-adv advantages --estimator-json', () => {
  it('takes the wire spec and gives what --estimator and the options flags give', async () => {
    const input = writeJsonl(dir, 'rollouts.jsonl', [1, 0, 1, 1, 0, 0].map((reward, i) => ({ reward, group: i >> 1 })));
    const json = await rlAdv(['advantages', '--estimator-json', '{"name": "group_mean_std", "std_floor": 0.5}', '--input', input]);
    const flags = await rlAdv(['advantages', '--estimator', 'group_mean_std', '--std-floor', '0.5', '--input', input]);
    expect(json.code).toBe(0);
    expect(json.stdout).toBe(flags.stdout);
    const unknown = await rlAdv(['advantages', '--estimator-json', '{"name": "group_mean_std", "std_flor": 0.5}', '--input', input]);
    expect([unknown.code, unknown.stderr]).toEqual([2, `rl-adv: --estimator-json: std_flor is not an option of group_mean_std (did you mean "std_floor"?); its options: ${options('group_mean_std')}\n`]);
    const badJson = await rlAdv(['advantages', '--estimator-json', '{"name": ', '--input', input]);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toMatch(/^rl-adv: --estimator-json: not valid JSON/);
    const both = await rlAdv(['advantages', '--estimator', 'group_mean', '--estimator-json', '{"name": "group_mean"}', '--input', input]);
    expect(both.code).toBe(2);
    const notTaken = await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--singleton', 'zero', '--input', input]);
    expect([notTaken.code, notTaken.stderr]).toEqual([2, 'rl-adv: --singleton: singleton is not an option of loo_batch_mean; its options: normalize, epsilon, std_floor\n']);
    const strict = await rlAdv(['advantages', '--estimator', 'kernel_loo_T1e-1', '--input', input]);
    expect([strict.code, strict.stderr]).toEqual([
      2,
      'rl-adv: --estimator kernel_loo_T1e-1: estimator "kernel_loo_T1e-1": temperature "1e-1" is not a decimal number in canonical form (no exponent, sign, leading or trailing zero); write kernel_loo_T0.1\n',
    ]);
    const neither = await rlAdv(['advantages', '--input', input]);
    expect([neither.code, neither.stderr]).toEqual([2, "rl-adv: required option '--estimator <name>' (or --estimator-json <json>) not specified\n"]);
  });
});
