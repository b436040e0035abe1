// The catalogue exposes the normalisation step, every preset, maxrl and gdpo, with typed parameters; each
// created by name (and by structured spec) gives what the library function gives.
import { describe, expect, it } from 'vitest';
import { catalogueJson, createEstimator, createStatefulEstimator, gdpo, maxrl, NORMALIZATION_PRESET_NAMES, normalizationPreset, normalized, RunningNormalization } from '../../src/index.js';

const batch = { rewards: [1, 0, 0.5, 0.25, 1, 1, 0, 0.75], groupIds: [0, 0, 0, 0, 1, 1, 1, 1], lengths: [3, 1, 4, 1, 5, 9, 2, 6] };

describe('normalisation in the catalogue', () => {
  it('lists maxrl, gdpo, normalized and every preset, with snake_case parameters and reward_components', () => {
    const names = catalogueJson().estimators.map((d) => d.name);
    for (const n of ['maxrl', 'gdpo', 'normalized', ...NORMALIZATION_PRESET_NAMES]) expect(names, n).toContain(n);
    const gdpoD = catalogueJson().estimators.find((d) => d.name === 'gdpo');
    expect(gdpoD?.fields.required).toContain('reward_components');
    const step = catalogueJson().estimators.find((d) => d.name === 'normalized');
    expect(step?.parameters.map((p) => p.name)).toContain('whiten_epsilon_mode');
    const trl = catalogueJson().estimators.find((d) => d.name === 'trl_rloo');
    expect(trl?.parameters.find((p) => p.name === 'whiten')?.default).toBe(true);
  });

  it('each preset by name equals normalized(batch, preset.spec)', () => {
    for (const name of NORMALIZATION_PRESET_NAMES) {
      const spec = normalizationPreset(name).spec;
      if (spec.centre === 'running') continue;
      expect(Array.from(createEstimator(name).compute(batch).advantages), name).toEqual(Array.from(normalized(batch, spec).advantages));
    }
  });

  it('parameters override a preset: trl_grpo with zero_variance mask and a clip', () => {
    const ours = createEstimator({ name: 'trl_grpo', zeroVariance: 'mask', clipHigh: 0.5 }).compute(batch);
    expect(Array.from(ours.advantages)).toEqual(Array.from(normalized(batch, { ...normalizationPreset('trl_grpo').spec, zeroVariance: 'mask', clipHigh: 0.5 }).advantages));
  });

  it('maxrl and gdpo by name', () => {
    expect(Array.from(createEstimator({ name: 'maxrl', epsilon: 0 }).compute(batch).advantages)).toEqual(Array.from(maxrl(batch, { epsilon: 0 }).advantages));
    const withComponents = { ...batch, rewardComponents: batch.rewards.map((r, i) => [r, i % 2]) };
    expect(Array.from(createEstimator({ name: 'gdpo', flavour: 'trl', componentWeights: [1, 0.5] }).compute(withComponents).advantages)).toEqual(
      Array.from(gdpo(withComponents, { flavour: 'trl', componentWeights: [1, 0.5] }).advantages),
    );
  });

  it('roll_running is stateful: compute uses the moments merged with the batch, update keeps them', () => {
    const e = createStatefulEstimator('roll_running');
    const first = e.compute({ rewards: batch.rewards });
    expect(Array.from(e.compute({ rewards: batch.rewards }).advantages)).toEqual(Array.from(first.advantages));
    e.update({ rewards: batch.rewards });
    expect(Array.from(e.compute({ rewards: batch.rewards }).advantages)).not.toEqual(Array.from(first.advantages));
  });

  it('normalized refuses a running centre (one-step), naming the field', () => {
    expect(() => createEstimator({ name: 'normalized', centre: 'running' }).compute(batch)).toThrow(/roll_running/);
  });
});

describe('roll_running checkpoints', () => {
  it('toJSON / RunningNormalization.fromJSON resume bit for bit through JSON, and a bad checkpoint names its field', () => {
    const a = createStatefulEstimator('roll_running');
    a.update({ rewards: [1, 0, 0.5] });
    const b = RunningNormalization.fromJSON(JSON.parse(JSON.stringify(a.toJSON())));
    const next = { rewards: [0.2, 0.9, 0.4] };
    expect(Array.from(b.compute(next).advantages)).toEqual(Array.from(a.compute(next).advantages));
    a.update(next);
    b.update(next);
    expect(b.toJSON()).toEqual(a.toJSON());
    expect(() => RunningNormalization.fromJSON({ ...a.toJSON(), variance: -1 })).toThrow(/state.variance/);
    expect(() => RunningNormalization.fromJSON({ ...a.toJSON(), format: 'x' })).toThrow(/state.format/);
  });
});
