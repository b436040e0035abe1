// A user's estimator in an ES module: loaded by --estimator-module (calibrate, serve, advantages, estimators) and by
// loadEstimatorModule in the library, it gives the numbers a direct call gives.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { calibrateBeff, groupCalibrationRows } from '../../../src/calibration/beff.js';
import { calibrationJson } from '../../../src/calibration/json.js';
import { catalogueJson } from '../../../src/estimators/catalogue-json.js';
import { loadEstimatorModule } from '../../../src/estimators/module.js';
import { createEstimator } from '../../../src/estimators/registry.js';
import { parseLines, rlAdv, tempDir, writeJsonl } from '../run.js';

const dir = tempDir();
const modulePath = join(dir, 'shrunk.mjs');
let inputFile: string;
let rows: { task_id: string; prompt: string; reward: number }[];

// b_i = shrink * (the mean of the other rollouts) + (1 - shrink) * 0.5: plain JavaScript, no import of the library.
const MODULE = `export default [{
  name: 'shrunk_loo',
  family: 'user',
  summary: 'b = shrink * (mean of the other rollouts) + (1 - shrink) * 0.5',
  parameters: [{ name: 'shrink', type: 'number', default: 0.8, required: false, minimum: 0, maximum: 1, description: 'weight of the LOO mean' }],
  fields: { required: ['rewards'], optional: ['prompts'] },
  needsVectorizer: false,
  needsKernelFile: false,
  groupOfOne: 'n/a',
  sources: [],
  create: (params) => {
    const shrink = params.shrink ?? 0.8;
    return (batch) => {
      const r = Array.from(batch.rewards);
      const total = r.reduce((a, b) => a + b, 0);
      const baselines = r.map((x) => shrink * ((total - x) / (r.length - 1)) + (1 - shrink) * 0.5);
      return { advantages: r.map((x, i) => x - baselines[i]), baselines };
    };
  },
}];
`;

beforeAll(async () => {
  writeFileSync(modulePath, MODULE);
  await loadEstimatorModule(modulePath);
  const rng = seedrandom('estimator-module');
  rows = [];
  for (let g = 0; g < 3; g++) for (let k = 0; k < 12; k++) rows.push({ task_id: `t${k}`, prompt: `question ${k}`, reward: rng() < k / 12 ? 1 : 0 });
  inputFile = writeJsonl(dir, 'calibration.jsonl', rows);
});

describe('--estimator-module', () => {
  it('calibrate scores a module estimator as calibrateBeff does with it registered in the library', async () => {
    const run = await rlAdv(['calibrate', '--estimator-module', modulePath, '--input', inputFile, '--estimators', 'shrunk_loo', '--batch-size', '6', '--batches', '200', '--seed', '3', '--json']);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const lib = calibrateBeff(groupCalibrationRows(rows), { batchSize: 6, batches: 200, seed: 3, estimators: ['shrunk_loo'] });
    expect(JSON.parse(run.stdout)).toEqual(calibrationJson(lib, null));
    expect(lib.estimators.shrunk_loo?.ratio).not.toBe(1);
  });

  it('serve computes a module estimator (by name, and as an object with a parameter) as a direct call does', async () => {
    const rewards = [1, 0, 0, 1, 1];
    const requests = [
      { id: 1, estimator: 'shrunk_loo', rewards },
      { id: 2, estimator: { name: 'shrunk_loo', shrink: 0.5 }, rewards, mask: [false, false, true, false, false] },
      { id: 3, op: 'describe' },
      { id: 4, estimator: 'shrunk_loo', rewards, shrnk: 1 },
    ];
    const run = await rlAdv(['serve', '--estimator-module', modulePath], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n' });
    expect([run.code, run.stderr]).toEqual([0, '']);
    const [first, second, described, unknown] = parseLines(run.stdout) as Record<string, unknown>[];
    const direct = createEstimator({ name: 'shrunk_loo' }).compute({ rewards });
    expect(first).toMatchObject({ id: 1, estimator: 'shrunk_loo', advantages: Array.from(direct.advantages), baselines: Array.from(direct.baselines), loo_mean: Array.from(direct.looMean) });
    const masked = createEstimator({ name: 'shrunk_loo', shrink: 0.5 }).compute({ rewards, mask: [false, false, true, false, false] });
    expect(second).toMatchObject({ id: 2, advantages: Array.from(masked.advantages), diagnostics: { masked: 1 } });
    expect(described).toEqual({ id: 3, ...catalogueJson() });
    expect((described as { estimators: { name: string; user_defined: boolean }[] }).estimators.at(-1)).toMatchObject({ name: 'shrunk_loo', user_defined: true });
    expect(unknown).toMatchObject({ id: 4, error: { code: 'unknown_field', message: 'unknown field "shrnk" (did you mean "shrink"?); shrunk_loo\'s options: shrink' } });
  });

  it('advantages and estimators take it; a bad module is a usage error naming the flag', async () => {
    const input = writeJsonl(dir, 'rollouts.jsonl', [1, 0, 1].map((reward) => ({ reward })));
    const run = await rlAdv(['advantages', '--estimator-module', modulePath, '--estimator-json', '{"name": "shrunk_loo", "shrink": 1}', '--input', input]);
    expect(run.code).toBe(0);
    const direct = createEstimator({ name: 'shrunk_loo', shrink: 1 }).compute({ rewards: [1, 0, 1] });
    expect((parseLines(run.stdout) as { advantage: number }[]).map((r) => r.advantage)).toEqual(Array.from(direct.advantages));
    expect(JSON.parse((await rlAdv(['estimators', '--json', '--estimator-module', modulePath])).stdout)).toEqual(catalogueJson());
    const bad = join(dir, 'bad.mjs');
    writeFileSync(bad, 'export default { name: "Bad Name" };\n');
    const refused = await rlAdv(['serve', '--estimator-module', bad], { input: '' });
    expect([refused.code, refused.stderr]).toEqual([2, `rl-adv: --estimator-module ${bad}: name must be lower case letters, digits and underscores, starting with a letter, got "Bad Name"\n`]);
    const missing = await rlAdv(['calibrate', '--estimator-module', join(dir, 'missing.mjs'), '--input', inputFile]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^rl-adv: --estimator-module .*missing\.mjs: cannot import it: /);
  });
});
