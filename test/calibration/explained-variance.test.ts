// EVPO's explained variance beside B_eff (docs/method.md section 4.4): EV = 1 - sum (r - b)^2 / sum (r - rbar)^2
// over the calibration's batches, and its relation ratio = (1 - EV_ref) / (1 - EV_e).
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { calibrateBeff, type CalibrationTask } from '../../src/calibration/beff.js';
import { calibrationJson, parseCalibrationJson } from '../../src/calibration/json.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';

const GS1 = 'tfidf_kernel_loo_T0.1';

/** 64 tasks in 4 word clusters, success probability 0.05, 0.35, 0.65, 0.95 by cluster, g rollouts each. */
function clustered(g: number, seed: string): { tasks: CalibrationTask[]; vectorizer: TfidfVectorizer } {
  const rng = seedrandom(seed);
  const prompts = Array.from({ length: 64 }, (_, k) => Array.from({ length: 8 }, () => `c${k % 4}word${Math.floor(rng() * 12)}`).join(' '));
  const p = [0.05, 0.35, 0.65, 0.95];
  const tasks = prompts.map((prompt, k) => ({ taskId: `t${k}`, prompt, rewards: Array.from({ length: g }, () => (rng() < (p[k % 4] as number) ? 1 : 0)) }));
  return { tasks, vectorizer: TfidfVectorizer.fit(prompts) };
}

describe('explained variance', () => {
  it('single-rollout mode: ratio = (1 - EV_ref) / (1 - EV_e) exactly (same batches, same denominators)', () => {
    const { tasks, vectorizer } = clustered(1, 'ev-single');
    const result = calibrateBeff(tasks, { vectorizer, estimators: [GS1], batches: 2000, batchSize: 16, seed: 1 });
    const ref = result.estimators.loo_batch_mean?.explainedVariance as number;
    const gs1 = result.estimators[GS1]?.explainedVariance as number;
    expect(Math.abs(result.estimators[GS1]?.ratio as number - (1 - ref) / (1 - gs1))).toBeLessThan(1e-12);
    // The clusters are what the kernel sees: it explains far more than the batch mean (whose EV is 1 - (B/(B-1))^2 < 0).
    expect(gs1).toBeGreaterThan(0.15);
    // r - b_loo = B (r - rbar) / (B - 1) in every batch, so EV(loo_batch_mean) = 1 - (B / (B - 1))^2 exactly.
    expect(Math.abs(ref - (1 - (16 / 15) ** 2))).toBeLessThan(1e-12);
  });

  it('corrected mode: ratio and (1 - EV_ref) / (1 - EV_e) agree in expectation (here within 2%)', () => {
    const { tasks, vectorizer } = clustered(8, 'ev-corrected');
    const result = calibrateBeff(tasks, { vectorizer, estimators: [GS1], batches: 4000, batchSize: 16, seed: 2 });
    const ref = result.estimators.loo_batch_mean?.explainedVariance as number;
    const gs1 = result.estimators[GS1]?.explainedVariance as number;
    const ratio = result.estimators[GS1]?.ratio as number;
    expect(Math.abs(ratio / ((1 - ref) / (1 - gs1)) - 1)).toBeLessThan(0.02);
  });

  it('is written to and read back from the JSON form as explained_variance', () => {
    const { tasks, vectorizer } = clustered(4, 'ev-json');
    const result = calibrateBeff(tasks, { vectorizer, estimators: [GS1], batches: 500, batchSize: 8, seed: 3 });
    const json = calibrationJson(result);
    expect(json.estimators[GS1]?.explained_variance).toBe(result.estimators[GS1]?.explainedVariance);
    expect(parseCalibrationJson(JSON.parse(JSON.stringify(json))).estimators[GS1]?.explainedVariance).toBe(result.estimators[GS1]?.explainedVariance);
  });
});
