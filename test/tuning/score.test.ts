// The tuner's fast scorer (float32 weights, one shift per kernel, 16 kernels at a time) against the calibration's
// exact float64 engine on the same batches (the same seed draws the same batches): docs/method.md sections 4, 4.3.
// Tolerance 1e-6 on the ratio: float32 weights carry a relative error below 6e-8 each, so each baseline moves by
// less than about 1e-7 of the reward range and the ratio by less than 1e-6.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { readTasks } from '../../src/calibration/rows.js';
import { loadKernel, type LoadedKernel } from '../../src/index.js';
import { calibrateBeff, type CalibrationTask } from '../../src/calibration/index.js';
import { planBatches, planRatio, scoreEmbeddings } from '../../src/tuning/score.js';
import { handKernels } from '../helpers/kernels.js';

function tasks(groups: number): CalibrationTask[] {
  const rng = seedrandom('score-test');
  return Array.from({ length: 90 }, (_, k) => ({
    taskId: `t${k}`,
    prompt: `Task ${k}: Sam has ${k % 7} apples and ${'buys 2 more each day. '.repeat(1 + (k % 4))}How many?`,
    rewards: Array.from({ length: groups }, () => (rng() < 0.2 + 0.15 * (k % 4) ? 1 : 0)),
  }));
}

describe('scoreEmbeddings', () => {
  const kernels: LoadedKernel[] = Object.values(handKernels()).map((json) => loadKernel(json));
  it.each([1, 4])('gives the calibration ratio of every kernel (G = %i)', (groups) => {
    const set = tasks(groups);
    const plan = planBatches(readTasks(set), 12, 400, seedrandom('7') as unknown as { quick(): number });
    const sse = scoreEmbeddings(plan, kernels.map((k) => k.embed(set.map((t) => t.prompt))));
    kernels.forEach((kernel, i) => {
      const exact = calibrateBeff(set, { batchSize: 12, batches: 400, seed: 7, interval: 'none', estimators: ['k'], kernels: { k: kernel } });
      expect(Math.abs(planRatio(plan, sse[i] as number) - (exact.estimators.k?.ratio as number))).toBeLessThan(1e-6);
    });
  });
});
