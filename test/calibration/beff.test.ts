import { fc, test } from '@fast-check/vitest';
import seedrandom from 'seedrandom';
import { beforeAll, describe, expect, it } from 'vitest';
import { calibrateBeff, type BeffCalibration, type CalibrationTask } from '../../src/calibration/beff.js';
import { RlAdvantagesError } from '../../src/errors.js';
import { TfidfVectorizer } from '../../src/text/tfidf.js';
import { trainQuestions } from '../helpers/paths.js';

const GS1 = 'tfidf_kernel_loo_T0.1';
const FAST = { batches: 2000 } as const;

let questions: string[];
let gsm8k: TfidfVectorizer;

beforeAll(() => {
  questions = trainQuestions();
  gsm8k = TfidfVectorizer.fit(questions);
});

function bernoulliTasks(prompts: readonly string[], p: (k: number) => number, g: number, seed: string): CalibrationTask[] {
  const rng = seedrandom(seed);
  return prompts.map((prompt, k) => ({
    taskId: `task_${k}`,
    prompt,
    rewards: Array.from({ length: g }, () => (rng() < p(k) ? 1 : 0)),
  }));
}

/** 64 tasks in 4 clusters with disjoint vocabularies; cluster c succeeds with probability 0.05, 0.35, 0.65, 0.95. */
function clusteredTasks(seed: string): { tasks: CalibrationTask[]; vectorizer: TfidfVectorizer } {
  const rng = seedrandom(`${seed}-prompts`);
  const prompts = Array.from({ length: 64 }, (_, k) => {
    const cluster = k % 4;
    return Array.from({ length: 8 }, () => `c${cluster}word${Math.floor(rng() * 12)}`).join(' ');
  });
  const vectorizer = TfidfVectorizer.fit(prompts);
  const p = [0.05, 0.35, 0.65, 0.95];
  return { tasks: bernoulliTasks(prompts, (k) => p[k % 4] as number, 8, seed), vectorizer };
}

function figures(result: BeffCalibration, name: string) {
  const figures = result.estimators[name];
  if (figures === undefined) throw new Error(`no figures for ${name}`);
  return figures;
}

describe('calibrateBeff', () => {
  it('finds a ratio > 1, with a jackknife interval above 1, when task difficulty follows prompt clusters', () => {
    const { tasks, vectorizer } = clusteredTasks('clusters');
    const result = calibrateBeff(tasks, { ...FAST, vectorizer, seed: 7 });
    const gs1 = figures(result, GS1);
    expect(result.mode).toBe('corrected');
    expect(gs1.ratio).toBeGreaterThan(1);
    expect(gs1.ratioCi95?.[0]).toBeGreaterThan(1);
    expect(gs1.ratioCi95?.[1]).toBeGreaterThanOrEqual(gs1.ratioCi95?.[0] as number);
    expect(gs1.ratio - 1).toBeGreaterThan(4 * gs1.ratioSe);
  });

  it('gives exactly ratio 1 when every prompt is the same (the kernel is then the LOO batch mean)', () => {
    // Rewards 0/1 make every sum an exact integer, so both estimators' baselines agree to the bit.
    const prompt = questions[7400] as string;
    const tasks = bernoulliTasks(Array(64).fill(prompt), (k) => (k % 5) / 5, 8, 'same');
    const result = calibrateBeff(tasks, { ...FAST, vectorizer: gsm8k, seed: 3 });
    const gs1 = figures(result, GS1);
    const loo = figures(result, 'loo_batch_mean');
    expect(gs1.ratio).toBe(1);
    expect(gs1.ratioSe).toBe(0);
    expect(gs1.ratioCi95).toEqual([1, 1]);
    expect(gs1.mseRaw).toBe(loo.mseRaw);
  });

  it('gives a ratio whose interval covers or lies below 1 when rewards do not depend on the prompt', () => {
    const tasks = bernoulliTasks(questions.slice(7400, 7464), () => 0.5, 8, 'independent');
    const result = calibrateBeff(tasks, { ...FAST, vectorizer: gsm8k, seed: 11 });
    // No difficulty structure to find: the kernel only narrows the set of rollouts it averages, so it
    // is no better than the LOO mean and the interval does not lie above 1.
    const [lo] = figures(result, GS1).ratioCi95 as [number, number];
    expect(lo).toBeLessThanOrEqual(1);
    expect(figures(result, GS1).ratio).toBeLessThan(1);
  });

  it('is bit-identical for the same seed and differs for another seed', () => {
    const tasks = bernoulliTasks(questions.slice(7400, 7464), (k) => (k % 8) / 8, 8, 'seeded');
    const options = { batches: 500, vectorizer: gsm8k };
    const a = calibrateBeff(tasks, { ...options, seed: 'alpha' });
    const b = calibrateBeff(tasks, { ...options, seed: 'alpha' });
    const c = calibrateBeff(tasks, { ...options, seed: 'beta' });
    expect(b).toStrictEqual(a);
    expect(c.estimators[GS1]?.mseRaw).not.toBe(a.estimators[GS1]?.mseRaw);
    expect(c.estimators[GS1]?.ratioCi95).not.toEqual(a.estimators[GS1]?.ratioCi95);
    // The jackknife reuses the main batches: without it the figures are the same, with no interval.
    const none = calibrateBeff(tasks, { ...options, interval: 'none', seed: 'alpha' });
    expect(none.estimators[GS1]?.ratio).toBe(a.estimators[GS1]?.ratio);
    expect(none.estimators[GS1]?.ratioCi95).toBeNull();
    expect(none.intervalMethod).toBe('none');
    expect(a.intervalMethod).toBe('jackknife');
    // The deprecated bootstrap: 0 still means no interval.
    expect(calibrateBeff(tasks, { ...options, interval: 'none', seed: 'alpha' }).estimators[GS1]?.ratioCi95).toBeNull();
  });

  it('computes sigma_eps^2 as the pooled within-task variance and B_eff, ratio from the MSEs', () => {
    // Task variances (unbiased): [1,0,0,1] -> 1/3, [1,1,1,0,0,0] -> 0.3, [0,0] -> 0.
    // sigma^2 = (3 * 1/3 + 5 * 0.3 + 1 * 0) / (3 + 5 + 1) = 2.5 / 9.
    const tasks = [
      { taskId: 'a', prompt: 'alpha beta', rewards: [1, 0, 0, 1] },
      { taskId: 'b', prompt: 'beta gamma', rewards: [1, 1, 1, 0, 0, 0] },
      { taskId: 'c', prompt: 'delta', rewards: [0, 0] },
    ];
    const vectorizer = TfidfVectorizer.fit(tasks.map((t) => t.prompt));
    const result = calibrateBeff(tasks, { batchSize: 2, batches: 1000, interval: 'none', vectorizer, seed: 1 });
    const s2 = result.sigmaEps2 as number;
    expect(s2).toBeCloseTo(2.5 / 9, 15);
    expect(result.rollouts).toBe(12);
    for (const name of ['loo_batch_mean', GS1]) {
      const f = figures(result, name);
      expect(f.beff).toBeCloseTo((2 * s2) / (s2 + f.mseCorrected), 14);
    }
    const ref = figures(result, 'loo_batch_mean');
    const gs1 = figures(result, GS1);
    expect(gs1.ratio).toBeCloseTo((s2 + ref.mseCorrected) / (s2 + gs1.mseCorrected), 14);
    expect(ref.ratio).toBe(1);
  });

  it('matches the exact expectation of MSE_raw and MSE_corrected on a tiny enumerable case', () => {
    // 3 tasks, B = 2: a batch is an ordered pair of distinct tasks (6, equally likely) and one rollout of
    // each (uniform). Enumerate every batch to get the exact mean and variance of the per-batch mean
    // (b - t)^2 of loo_batch_mean; the Monte-Carlo estimate must lie within 5 standard errors.
    const tasks = [
      { taskId: 'a', prompt: 'a', rewards: [1, 0, 1] },
      { taskId: 'b', prompt: 'b', rewards: [0, 0.9, -0.1, 1] },
      { taskId: 'c', prompt: 'c', rewards: [0.9, 0.9] },
    ];
    const others = (r: number[], g: number) => (r.reduce((s, x) => s + x, 0) - (r[g] as number)) / (r.length - 1);
    const variance = (r: number[]) => {
      const m = r.reduce((s, x) => s + x, 0) / r.length;
      return r.reduce((s, x) => s + (x - m) ** 2, 0) / (r.length - 1);
    };
    // sigma^2 pooled by hand: sum (G - 1) s^2 / sum (G - 1).
    const s2 = tasks.reduce((s, t) => s + (t.rewards.length - 1) * variance(t.rewards), 0) / (2 + 3 + 1);
    const raw = { mean: 0, second: 0 };
    const corrected = { mean: 0, second: 0 };
    for (let k1 = 0; k1 < 3; k1++) {
      for (let k2 = 0; k2 < 3; k2++) {
        if (k1 === k2) continue;
        const r1 = tasks[k1]?.rewards as number[];
        const r2 = tasks[k2]?.rewards as number[];
        for (let g1 = 0; g1 < r1.length; g1++) {
          for (let g2 = 0; g2 < r2.length; g2++) {
            const p = 1 / 6 / r1.length / r2.length;
            // LOO batch mean with B = 2: b_1 = r_2, b_2 = r_1.
            const value = (((r2[g2] as number) - others(r1, g1)) ** 2 + ((r1[g1] as number) - others(r2, g2)) ** 2) / 2;
            const fixed = value - (s2 * (1 / (r1.length - 1) + 1 / (r2.length - 1))) / 2;
            raw.mean += p * value;
            raw.second += p * value * value;
            corrected.mean += p * fixed;
            corrected.second += p * fixed * fixed;
          }
        }
      }
    }
    const batches = 200_000;
    const result = calibrateBeff(tasks, { batchSize: 2, batches, interval: 'none', estimators: [], seed: 'tiny' });
    const loo = figures(result, 'loo_batch_mean');
    expect(result.sigmaEps2).toBeCloseTo(s2, 15);
    const se = (m: { mean: number; second: number }) => Math.sqrt((m.second - m.mean * m.mean) / batches);
    expect(Math.abs(loo.mseRaw - raw.mean)).toBeLessThan(5 * se(raw));
    expect(Math.abs(loo.mseCorrected - corrected.mean)).toBeLessThan(5 * se(corrected));
    expect(Object.keys(result.estimators)).toEqual(['loo_batch_mean']);
  });

  it('works in single-rollout mode: ratio = mean (r - b_ref)^2 / mean (r - b_e)^2, no sigma_eps^2', () => {
    const { tasks: grouped, vectorizer } = clusteredTasks('single');
    const tasks = grouped.map((t) => ({ ...t, rewards: [t.rewards[0] as number] }));
    const result = calibrateBeff(tasks, { ...FAST, vectorizer, seed: 5 });
    expect(result.mode).toBe('single_rollout');
    expect(result.sigmaEps2).toBeNull();
    const ref = figures(result, 'loo_batch_mean');
    const gs1 = figures(result, GS1);
    expect(gs1.beff).toBeNull();
    expect(gs1.mseCorrected).toBe(gs1.mseRaw);
    expect(gs1.ratio).toBeCloseTo(ref.mseRaw / gs1.mseRaw, 14);
    expect(gs1.ratio).toBeGreaterThan(1); // the clusters still predict the single rewards
  });

  it('refuses tasks that mix G = 1 with G >= 2, naming one of each', () => {
    const tasks = [
      { taskId: 'two', prompt: 'p', rewards: [1, 0] },
      { taskId: 'one', prompt: 'q', rewards: [1] },
      { taskId: 'three', prompt: 'r', rewards: [1, 0, 1] },
    ];
    expect(() => calibrateBeff(tasks, { batchSize: 2, estimators: [] })).toThrow(
      /tasks\[1\] \("one"\) has 1 reward but tasks\[0\] \("two"\) has 2/,
    );
  });

  it('refuses bad options and inputs with a message naming the field', () => {
    const prompts = ['aa bb', 'cc dd', 'ee ff'];
    const tasks = bernoulliTasks(prompts, () => 0.5, 4, 'bad');
    const vectorizer = TfidfVectorizer.fit(prompts);
    expect(() => calibrateBeff(tasks, { batchSize: 4, vectorizer })).toThrow(/batchSize 4 exceeds the number of tasks \(3\)/);
    expect(() => calibrateBeff(tasks, { batchSize: 1, vectorizer })).toThrow(/batchSize must be an integer >= 2/);
    expect(() => calibrateBeff(tasks, { batchSize: 2, batches: 1, vectorizer })).toThrow(/batches must be an integer >= 2/);
    expect(() => calibrateBeff(tasks, { batchSize: 2 })).toThrow(/needs options.vectorizer/);
    expect(() => calibrateBeff(tasks, { batchSize: 2, estimators: ['group_mean'], vectorizer })).toThrow(/cannot be calibrated/);
    expect(() => calibrateBeff(tasks, { batchSize: 2, seed: {} as never, vectorizer })).toThrow(/seed must be a string or a finite number/);
    const broken = [...tasks, { taskId: 'x', prompt: 'gg', rewards: [0, Number.NaN] }];
    expect(() => calibrateBeff(broken, { batchSize: 2, vectorizer })).toThrow('tasks[3].rewards[1] must be a finite number, got NaN');
    const duplicate = [...tasks, { ...(tasks[0] as CalibrationTask) }];
    expect(() => calibrateBeff(duplicate, { batchSize: 2, vectorizer })).toThrow(/tasks\[3\].taskId "task_0" repeats tasks\[0\].taskId/);
    expect(() => calibrateBeff(tasks, { batchSize: 2, vectorizer, bootstrap: -1 })).toThrow(RlAdvantagesError);
    expect(() => calibrateBeff(tasks, { batchSize: 2, vectorizer, interval: 'bootstrap' as never })).toThrow(/interval must be "jackknife" or "none"/);
    expect(() => calibrateBeff(tasks, { batchSize: 2, vectorizer, noise: 'task' as never })).toThrow(/noise must be "pooled" or "per-task"/);
  });

  it('reports progress up to done = total batches', () => {
    const tasks = bernoulliTasks(['a b', 'c d', 'e f', 'g h'], () => 0.5, 3, 'progress');
    const calls: [number, number][] = [];
    calibrateBeff(tasks, {
      batchSize: 2,
      batches: 2500,
      estimators: [],
      onProgress: (done, total) => calls.push([done, total]),
    });
    expect(calls.at(-1)).toEqual([2500, 2500]);
    expect(calls[0]).toEqual([1000, 2500]);
    for (let i = 1; i < calls.length; i++) expect((calls[i] as [number, number])[0]).toBeGreaterThan((calls[i - 1] as [number, number])[0]);
  });

  it('has a Monte-Carlo standard error that matches the spread of the ratio over seeds', () => {
    // 20 independent runs of M = 1000 batches: the SD of their ratios estimates the true MC error; with
    // 19 degrees of freedom it lies within [0.68, 1.31] x the true SE with 95% probability.
    const tasks = bernoulliTasks(questions.slice(7400, 7464), (k) => ((k * 37) % 64) / 64, 8, 'mc');
    const runs = Array.from({ length: 20 }, (_, seed) =>
      figures(calibrateBeff(tasks, { batches: 1000, interval: 'none', vectorizer: gsm8k, seed }), GS1),
    );
    const mean = runs.reduce((s, r) => s + r.ratio, 0) / runs.length;
    const sd = Math.sqrt(runs.reduce((s, r) => s + (r.ratio - mean) ** 2, 0) / (runs.length - 1));
    const se = runs.reduce((s, r) => s + r.ratioSe, 0) / runs.length;
    expect(sd / se).toBeGreaterThan(0.5);
    expect(sd / se).toBeLessThan(1.6);
  });
});

describe('calibrateBeff invariants', () => {
  const taskSet = fc.array(fc.array(fc.constantFrom(-0.1, 0, 0.9, 1), { minLength: 2, maxLength: 5 }), {
    minLength: 3,
    maxLength: 8,
  });
  test.prop([taskSet, fc.double({ min: -5, max: 5, noNaN: true }), fc.double({ min: 0.25, max: 4, noNaN: true })], {
    numRuns: 30,
  })('an affine change of every reward, r -> s r + c, leaves each ratio unchanged and scales MSEs by s^2', (rewards, c, s) => {
    const words = ['apple pie', 'apple tart', 'green tea', 'black tea', 'apple tea', 'pie crust', 'green apple', 'tart pie'];
    const tasks = rewards.map((r, k) => ({ taskId: `t${k}`, prompt: words[k] as string, rewards: r }));
    const moved = tasks.map((t) => ({ ...t, rewards: t.rewards.map((r) => s * r + c) }));
    const vectorizer = TfidfVectorizer.fit(words);
    const options = { batchSize: 3, batches: 50, interval: 'none' as const, vectorizer, seed: 'affine' };
    const a = calibrateBeff(tasks, options);
    const b = calibrateBeff(moved, options);
    expect(b.sigmaEps2 as number).toBeCloseTo(s * s * (a.sigmaEps2 as number), 9);
    for (const name of ['loo_batch_mean', GS1]) {
      const fa = figures(a, name);
      const fb = figures(b, name);
      expect(fb.mseRaw).toBeCloseTo(s * s * fa.mseRaw, 9);
      if (fa.ratio > 1e-6) expect(fb.ratio / fa.ratio).toBeCloseTo(1, 6);
    }
  });
});
