// A spec's estimator_modules: user estimators registered (paths relative to the spec file) before its arms are read.
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { createEstimator } from '../../src/estimators/registry.js';
import { loadSpecModules, readSpec } from '../../src/study/setup.js';
import { StudySpecError } from '../../src/study/spec.js';
import { specPath } from '../helpers/paths.js';

function specObject(): Record<string, unknown> {
  return JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, unknown>;
}

it('registers estimator_modules relative to the spec file, so an arm may name a user estimator', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rl-adv-spec-modules-'));
  mkdirSync(join(dir, 'estimators'));
  writeFileSync(
    join(dir, 'estimators', 'half.mjs'),
    `export default { name: 'half_batch_mean', family: 'user', summary: 'b = half the batch mean', parameters: [],
  fields: { required: ['rewards'], optional: [] }, needsVectorizer: false, needsKernelFile: false, groupOfOne: 'n/a', sources: [],
  create: () => (batch) => { const r = Array.from(batch.rewards); const b = r.reduce((a, x) => a + x, 0) / r.length / 2;
    return { advantages: r.map((x) => x - b), baselines: r.map(() => b), maxSelfWeight: 1 / r.length }; } };\n`,
  );
  const spec = specObject();
  spec.estimator_modules = ['estimators/half.mjs'];
  (spec.arms as { advantage: unknown }[])[1] = { ...(spec.arms as Record<string, unknown>[])[1], advantage: { name: 'half_batch_mean' } } as never;
  const file = join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  await loadSpecModules(file);
  const { spec: loaded } = readSpec(file);
  expect(loaded.arms[1]).toMatchObject({ advantage: 'half_batch_mean', advantageSpec: { name: 'half_batch_mean' } });
  expect(Array.from(createEstimator({ name: 'half_batch_mean' }).compute({ rewards: [1, 0, 1, 0] }).baselines)).toEqual([0.25, 0.25, 0.25, 0.25]);

  const bad = join(dir, 'bad.json');
  writeFileSync(bad, JSON.stringify({ ...specObject(), estimator_modules: 'estimators/half.mjs' }));
  try {
    readSpec(bad);
    throw new Error('expected a StudySpecError');
  } catch (error) {
    expect(error).toBeInstanceOf(StudySpecError);
    expect((error as StudySpecError).problems).toEqual([{ path: 'estimator_modules', message: 'must be an array of module paths (relative to the spec file), got "estimators/half.mjs"' }]);
  }
  const missing = join(dir, 'missing.json');
  writeFileSync(missing, JSON.stringify({ ...specObject(), estimator_modules: ['nope.mjs'] }));
  await expect(loadSpecModules(missing)).rejects.toMatchObject({ code: 'bad_module', field: 'estimator_modules[0]' });
});
