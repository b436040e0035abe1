// calibrationJson / parseCalibrationJson: one snake_case shape, read back exactly, bad fields named by path.
import { describe, expect, it } from 'vitest';
import { calibrateBeff } from '../../src/calibration/beff.js';
import { calibrationJson, parseCalibrationJson } from '../../src/calibration/json.js';
import { RlAdvantagesError } from '../../src/errors.js';

const tasks = Array.from({ length: 12 }, (_, k) => ({ taskId: `t${k}`, prompt: `p${k}`, rewards: [k % 2, (k * 7) % 3 === 0 ? 1 : 0, 1] }));

describe('calibrationJson and parseCalibrationJson', () => {
  const result = calibrateBeff(tasks, { batchSize: 4, batches: 200, estimators: [], seed: 'json', noise: 'per-task' });

  it('round-trips through JSON text, keeping what reproduces the calibration', () => {
    const json = calibrationJson(result, { file: 'v.json' });
    expect(Object.keys(json)).toEqual([
      'mode', 'tasks', 'rollouts', 'mean_reward', 'batch_size', 'batches', 'seed', 'noise', 'interval_method',
      'interval_level', 'sigma_eps2', 'reference', 'estimator_names', 'vectorizer', 'estimators',
    ]);
    expect(json).toMatchObject({ seed: 'json', noise: 'per-task', interval_method: 'jackknife', batches: 200, estimator_names: ['loo_batch_mean'] });
    const back = parseCalibrationJson(JSON.parse(JSON.stringify(json)));
    expect(back).toEqual({ ...result, vectorizer: { file: 'v.json' } });
    expect(calibrationJson(back, back.vectorizer)).toEqual(json);
  });

  it('names the JSON path of a bad or missing field', () => {
    const json = calibrationJson(result) as unknown as Record<string, unknown>;
    const bad = (patch: Record<string, unknown>, message: RegExp, field: string) => {
      let error: unknown;
      try {
        parseCalibrationJson({ ...json, ...patch });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RlAdvantagesError);
      expect((error as RlAdvantagesError).message).toMatch(message);
      expect((error as RlAdvantagesError).field).toBe(field);
    };
    bad({ sigma_eps2: undefined }, /^sigma_eps2 must be a finite number, got undefined/, 'sigma_eps2');
    bad({ mode: 'bootstrap' }, /^mode must be one of "corrected", "single_rollout"/, 'mode');
    bad({ interval_method: 'percentile_bootstrap' }, /^interval_method must be one of "jackknife", "none"/, 'interval_method');
    bad({ estimators: { loo_batch_mean: { ...(json.estimators as Record<string, object>).loo_batch_mean, ratio_ci95: [2, 1] } } }, /lower <= upper/, 'estimators.loo_batch_mean.ratio_ci95');
    bad({ estimators: {} }, /has no figures for the reference "loo_batch_mean"/, 'estimators');
    bad({ tasks: 1.5 }, /^tasks must be an integer >= 2/, 'tasks');
    expect(() => parseCalibrationJson([])).toThrow(/calibration must be the JSON object/);
  });
});
