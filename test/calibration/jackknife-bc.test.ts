// The bias-corrected (delete-two) jackknife of the B_eff ratio (docs/method.md section 4.1): the delete-two ratios
// from the per-pair sums against a brute-force recomputation on the same batches, the variance's constants on
// statistics whose jackknife bias is known, and compareIntervals' delete-one jackknife against calibrateBeff's.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { calibrateBeff, type CalibrationTask } from '../../src/calibration/beff.js';
import { createBaselineEngine, type BaselineEngine } from '../../src/calibration/engines.js';
import { compareIntervals } from '../../src/calibration/interval-comparison.js';
import { biasCorrectedJackknife, biasCorrectedVariance, deleteTwoRatios } from '../../src/calibration/jackknife-bc.js';
import { jackknifeRatio } from '../../src/calibration/jackknife.js';
import { readTasks } from '../../src/calibration/rows.js';
import { prepare, simulate, type NoiseModel } from '../../src/calibration/simulate.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';

const GS1 = 'tfidf_kernel_loo_T0.1';
const WORDS = ['apples', 'trains', 'money', 'garden', 'books', 'speed', 'cookies', 'marbles'];

/** K small tasks with unequal G (2 to 4) and 0/1 rewards, prompts sharing words by family. */
function smallTasks(K: number, seed: string): CalibrationTask[] {
  const rng = seedrandom(seed);
  return Array.from({ length: K }, (_, k) => {
    const G = 2 + (k % 3);
    return {
      taskId: `t${k}`,
      prompt: `how many ${WORDS[k % 4]} and ${WORDS[4 + (k % 3)]} are left after ${k} days`,
      rewards: Array.from({ length: G }, () => (rng() < 0.2 + 0.15 * (k % 4) ? 1 : 0)),
    };
  });
}

/** The engine, recording every batch's tasks (the reference is called once per batch). */
function recording(engine: BaselineEngine, batches: number[][]): BaselineEngine {
  return {
    name: engine.name,
    compute(taskOf, rewards, out) {
      batches.push(Array.from(taskOf));
      engine.compute(taskOf, rewards, out);
    },
  };
}

/** s_k^2 of a task's rewards (unbiased). */
function variance(rewards: readonly number[]): number {
  const mean = rewards.reduce((s, r) => s + r, 0) / rewards.length;
  return rewards.reduce((s, r) => s + (r - mean) ** 2, 0) / (rewards.length - 1);
}

/**
 * The calibration of the tasks other than i and j on the batches that hold neither, from the per-batch sse and
 * the batch's tasks, sigma_eps^2 and the corrections recomputed from the rewards (docs/method.md section 4).
 */
function bruteForce(
  tasks: CalibrationTask[],
  members: number[][],
  sseRef: Float64Array,
  sseEst: Float64Array,
  noise: NoiseModel,
  B: number,
  i: number,
  j: number,
): number {
  const kept = tasks.map((_, k) => k).filter((k) => k !== i && k !== j);
  const s2 = tasks.map((t) => variance(t.rewards));
  const G = tasks.map((t) => t.rewards.length);
  const sigma2 =
    noise === 'pooled'
      ? kept.reduce((s, k) => s + (G[k]! - 1) * s2[k]!, 0) / kept.reduce((s, k) => s + G[k]! - 1, 0)
      : kept.reduce((s, k) => s + s2[k]!, 0) / kept.length;
  let a = 0;
  let c = 0;
  members.forEach((batch, m) => {
    if (batch.includes(i) || batch.includes(j)) return;
    const correction = batch.reduce((s, k) => s + (noise === 'pooled' ? sigma2 / (G[k]! - 1) : s2[k]! / (G[k]! - 1)), 0);
    a += sigma2 + (sseRef[m]! - correction) / B;
    c += sigma2 + (sseEst[m]! - correction) / B;
  });
  return a / c;
}

describe('deleteTwoRatios', () => {
  for (const noise of ['pooled', 'per-task'] as const) {
    it(`equals the brute-force calibration without tasks i and j on the same batches (${noise}, 1e-12)`, () => {
      const K = 9;
      const B = 4;
      const tasks = smallTasks(K, `bc-test/${noise}`);
      const table = readTasks(tasks);
      const prepared = prepare(table);
      const vectorizer = TfidfVectorizer.fit(tasks.map((t) => t.prompt));
      const members: number[][] = [];
      const engines = [
        recording(createBaselineEngine('loo_batch_mean', table.prompts, vectorizer, 'reference'), members),
        createBaselineEngine(GS1, table.prompts, vectorizer, 'estimator'),
      ];
      const rng = seedrandom('bc-test/batches') as unknown as { quick(): number };
      const sums = simulate(prepared, B, 300, rng, engines, () => undefined, true);
      const two = deleteTwoRatios(prepared, sums, 1, noise, B);
      expect(two).not.toBeNull();
      let compared = 0;
      for (let i = 0; i < K; i++) {
        for (let j = i + 1; j < K; j++) {
          const expected = bruteForce(tasks, members, sums.sse[0]!, sums.sse[1]!, noise, B, i, j);
          expect(Math.abs(two![i * K + j]! - expected)).toBeLessThan(1e-12 * Math.abs(expected));
          compared++;
        }
      }
      expect(compared).toBe((K * (K - 1)) / 2);
      // Without the per-pair sums, or with a pair in every batch (B = K - 1), there is no delete-two calibration.
      const plain = simulate(prepared, B, 50, seedrandom('x') as unknown as { quick(): number }, engines, () => undefined);
      expect(deleteTwoRatios(prepared, plain, 1, noise, B)).toBeNull();
      const full = simulate(prepared, K - 1, 50, seedrandom('y') as unknown as { quick(): number }, engines, () => undefined, true);
      expect(biasCorrectedJackknife(prepared, full, 1, 1, noise, K - 1)).toBeNull();
    });
  }

  it('leaves the draws and every other sum unchanged (the default interval bit for bit)', () => {
    const tasks = smallTasks(9, 'bc-test/same');
    const table = readTasks(tasks);
    const prepared = prepare(table);
    const vectorizer = TfidfVectorizer.fit(tasks.map((t) => t.prompt));
    const engines = ['loo_batch_mean', GS1].map((n, i) => createBaselineEngine(n, table.prompts, vectorizer, i === 0 ? 'reference' : 'estimator'));
    const run = (pairs: boolean) => simulate(prepared, 4, 200, seedrandom('s') as unknown as { quick(): number }, engines, () => undefined, pairs);
    const [without, withPairs] = [run(false), run(true)];
    expect(Array.from(withPairs.sse[1]!)).toEqual(Array.from(without.sse[1]!));
    expect(Array.from(withPairs.byTask.sse[1]!)).toEqual(Array.from(without.byTask.sse[1]!));
    expect(jackknifeRatio(prepared, withPairs, 1, 1.1, 'pooled', 4)).toEqual(jackknifeRatio(prepared, without, 1, 1.1, 'pooled', 4));
  });
});

describe('biasCorrectedVariance', () => {
  /** theta, delete-one and delete-two values of a statistic of x (stat(x, i, j): without x_i and x_j; -1 none). */
  function values(x: Float64Array, stat: (v: Float64Array, i: number, j: number) => number) {
    const n = x.length;
    const one = Float64Array.from({ length: n }, (_, i) => stat(x, i, -1));
    const two = new Float64Array(n * n);
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) two[i * n + j] = stat(x, i, j);
    return biasCorrectedVariance(stat(x, -1, -1), one, two);
  }
  /** The mean and the unbiased variance of x without x_i and x_j, straight from the kept values. */
  function moments(v: Float64Array, i: number, j: number): [number, number] {
    let n = 0;
    let s = 0;
    for (let k = 0; k < v.length; k++) {
      if (k === i || k === j) continue;
      n++;
      s += v[k]!;
    }
    const m = s / n;
    let q = 0;
    for (let k = 0; k < v.length; k++) if (k !== i && k !== j) q += (v[k]! - m) ** 2;
    return [m, q / (n - 1)];
  }
  const meanWithout = (v: Float64Array, i: number, j: number) => moments(v, i, j)[0];
  const varianceWithout = (v: Float64Array, i: number, j: number) => moments(v, i, j)[1];
  const mean = (v: Float64Array) => v.reduce((s, a) => s + a, 0) / v.length;
  const sampleVariance = (v: Float64Array) => {
    const m = mean(v);
    return v.reduce((s, a) => s + (a - m) ** 2, 0) / (v.length - 1);
  };

  it('subtracts nothing for the mean (Q_ij = 0): v_BC = v_J = s^2/n', () => {
    const rng = seedrandom('bc-test/mean');
    const x = Float64Array.from({ length: 12 }, () => rng());
    const v = values(x, meanWithout);
    expect(v.biasEstimate).toBeLessThan(1e-28);
    expect(Math.abs(v.varianceJackknife - sampleVariance(x) / 12)).toBeLessThan(1e-15);
  });

  it("removes v_J's upward bias for the sample variance of 20 N(0,1) draws: E v_BC = Var s^2 = 2/19", () => {
    // Efron-Stein: E v_J - Var s^2 = 2 delta/((n - 1)(n - 2)) = 0.00585 (delta = zeta_2 - 2 zeta_1 = 1 for N(0,1)).
    const rng = seedrandom('bc-test/variance');
    const normal = () => Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
    const reps = 4000;
    const vj = new Float64Array(reps);
    const vbc = new Float64Array(reps);
    for (let r = 0; r < reps; r++) {
      const v = values(Float64Array.from({ length: 20 }, normal), varianceWithout);
      vj[r] = v.varianceJackknife;
      vbc[r] = v.varianceCorrected;
    }
    const se = (a: Float64Array) => Math.sqrt(sampleVariance(a) / reps);
    const truth = 2 / 19;
    expect(Math.abs(mean(vbc) - truth)).toBeLessThan(3 * se(vbc));
    expect(mean(vj) - truth).toBeGreaterThan(3 * se(vj));
  });
});

describe('compareIntervals', () => {
  it("gives calibrateBeff's ratio and delete-one jackknife bit for bit, and a bias-corrected interval beside it", () => {
    const tasks = smallTasks(12, 'bc-test/compare');
    const vectorizer = TfidfVectorizer.fit(tasks.map((t) => t.prompt));
    const options = { batchSize: 5, batches: 400, vectorizer, seed: 3 };
    const c = calibrateBeff(tasks, options).estimators[GS1]!;
    const both = compareIntervals(tasks, options)[GS1]!;
    expect(both.ratio).toBe(c.ratio);
    expect(both.ratioSe).toBe(c.ratioSe);
    expect(both.jackknife?.se).toBe(c.ratioTaskSe);
    expect(both.jackknife?.ci95).toEqual(c.ratioCi95);
    const bc = both.biasCorrected!;
    expect(bc.varianceJackknife).toBeCloseTo(c.ratioTaskSe! ** 2, 14);
    expect(bc.se).toBe(Math.sqrt(bc.fellBack ? bc.varianceJackknife : bc.varianceCorrected));
    expect(bc.ci95[1] - bc.ci95[0]).toBeCloseTo(2 * 1.959963984540054 * bc.se, 14);
    expect(() => compareIntervals(tasks, { ...options, interval: 'none' })).toThrow(/interval "none"/);
  });
});
