// The `embedding` family (docs/method.md section 2.4) and tuneKernel's `features` option: user vectors that encode
// difficulty give a clear held-out gain; random vectors give no claimed gain; the kernel file stores the vectors by
// prompt sha256 and round-trips bit for bit; a prompt with no stored vector is refused, naming its batch index.
import { createHash } from 'node:crypto';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { createEstimator, kernelFileJson, loadKernel, RlAdvantagesError } from '../../src/index.js';
import { type CalibrationRow } from '../../src/calibration/index.js';
import { tuneKernel, type TuneKernelResult } from '../../src/tuning/index.js';
import { resolveFeatureRows } from '../../src/tuning/vectors.js';

const TASKS = 400;
const DIMENSION = 4;

/** Gaussian draw (Box-Muller) from a seeded generator. */
function normal(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

/**
 * 400 tasks with the same uninformative prompt text; task k succeeds with p_k = 0.05 + 0.225 u_k, u_k = k % 5 (one
 * rollout). Encoded vectors: coordinate 0 is u_k plus N(0, 0.1^2) noise, the others N(0, 1) noise; random vectors:
 * every coordinate N(0, 1), unrelated to u_k.
 */
function synthetic(encoded: boolean): { rows: CalibrationRow[]; features: { task_id: string; features: number[] }[] } {
  const rng = seedrandom('embedding-test');
  const noise = seedrandom('embedding-noise');
  const rows: CalibrationRow[] = [];
  const features: { task_id: string; features: number[] }[] = [];
  for (let k = 0; k < TASKS; k++) {
    const u = k % 5;
    rows.push({ task_id: `t${k}`, prompt: `Question ${k}: how many are left?`, reward: rng() < 0.05 + 0.225 * u ? 1 : 0 });
    const v = Array.from({ length: DIMENSION }, () => normal(noise));
    if (encoded) v[0] = u + 0.1 * (v[0] as number);
    features.push({ task_id: `t${k}`, features: v });
  }
  return { rows, features };
}

const OPTIONS = { families: ['embedding', 'loo_batch_mean'] as ('embedding' | 'loo_batch_mean')[], batchSize: 16, batches: 250, seed: 5 };
let encoded: TuneKernelResult;

describe('the embedding family in tuneKernel', () => {
  it('finds a clear held-out gain when the user vectors encode difficulty', () => {
    const { rows, features } = synthetic(true);
    encoded = tuneKernel(rows, { ...OPTIONS, features });
    expect(encoded.kernel.family).toBe('embedding');
    expect(encoded.heldOut.ratio).toBeGreaterThan(1.1);
    expect((encoded.heldOut.ci95 as [number, number])[0]).toBeGreaterThan(1);
  });

  it('claims no gain with random vectors', () => {
    const { rows, features } = synthetic(false);
    const result = tuneKernel(rows, { ...OPTIONS, features });
    // With loo_batch_mean offered, the search picks it (ratio 1); forced to the embedding family, no gain either.
    const forced = tuneKernel(rows, { ...OPTIONS, families: ['embedding'], features });
    expect((forced.heldOut.ci95 as [number, number])[0]).toBeLessThanOrEqual(1);
    expect(forced.heldOut.ratio).toBeLessThan(1.02);
    expect((result.heldOut.ci95 as [number, number])[0]).toBeLessThanOrEqual(1);
    expect(result.heldOut.ratio).toBeLessThan(1.02);
  });

  it('stores every vector by prompt sha256 and round-trips bit for bit', () => {
    const { rows, features } = synthetic(true);
    const fitted = encoded.kernel.fitted as { dimension: number; vectors: Record<string, number[]> };
    expect(fitted.dimension).toBe(DIMENSION);
    const key = createHash('sha256').update(rows[7]!.prompt, 'utf8').digest('hex');
    expect(fitted.vectors[key]).toEqual(features[7]!.features);
    const text = kernelFileJson(encoded.kernel);
    const kernel = loadKernel(JSON.parse(text));
    expect(kernelFileJson(kernel)).toBe(text);
    const batch = { rewards: rows.slice(0, 16).map((r) => r.reward), prompts: rows.slice(0, 16).map((r) => r.prompt) };
    const a = createEstimator('kernel_file', { kernel: loadKernel(kernelFileJson(encoded.kernel)) }).compute(batch).advantages;
    const b = createEstimator('kernel_file', { kernel: loadKernel(text) }).compute(batch).advantages;
    expect(Array.from(b)).toEqual(Array.from(a));
    expect(Array.from(a).every(Number.isFinite)).toBe(true);
  });

  it('refuses a prompt with no stored vector, naming its index in the batch', () => {
    const kernel = loadKernel(kernelFileJson(encoded.kernel));
    const batch = { rewards: [1, 0, 1], prompts: ['Question 1: how many are left?', 'Question 2: how many are left?', 'a prompt never seen'] };
    let error: unknown;
    try {
      createEstimator('kernel_file', { kernel }).compute(batch);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RlAdvantagesError);
    expect((error as RlAdvantagesError).index).toBe(2);
    expect((error as Error).message).toMatch(/prompts\[2\] has no feature vector: an embedding kernel only knows the prompts it was given vectors for/);
  });

  it('validates the fitted part of a kernel file', () => {
    const file = JSON.parse(kernelFileJson(encoded.kernel)) as { fitted: { dimension: number; vectors: Record<string, number[]> } };
    const key = Object.keys(file.fitted.vectors)[0] as string;
    const wrongLength = structuredClone(file);
    wrongLength.fitted.vectors[key] = [1, 2];
    expect(() => loadKernel(wrongLength)).toThrow(`kernel.fitted.vectors.${key} must have ${DIMENSION} entries, got 2`);
    const badKey = structuredClone(file);
    badKey.fitted.vectors['not-a-hash'] = new Array(DIMENSION).fill(0);
    expect(() => loadKernel(badKey)).toThrow(/kernel\.fitted\.vectors keys must be sha256 hex digests/);
    const badDimension = structuredClone(file);
    badDimension.fitted.dimension = 2.5;
    expect(() => loadKernel(badDimension)).toThrow(/kernel\.fitted\.dimension must be a positive integer/);
  });
});

describe('the features option', () => {
  const tasks = [
    { taskId: 'a', prompt: 'pa', rewards: [1] },
    { taskId: 'b', prompt: 'pb', rewards: [0] },
  ];

  it('resolves task_id and prompt keys to prompts and skips unknown task ids', () => {
    const vectors = resolveFeatureRows([{ task_id: 'a', features: [1, 2] }, { prompt: 'pb', features: [3, 4] }, { task_id: 'zzz', features: [0, 0] }, { prompt: 'new', features: [5, 6] }], tasks);
    expect([...vectors.entries()]).toEqual([['pa', [1, 2]], ['pb', [3, 4]], ['new', [5, 6]]]);
  });

  it.each([
    [[{ task_id: 'a', features: 'x' }], /features\[0\]\.features must be a non-empty array of finite numbers/],
    [[{ task_id: 'a', features: [1, null] }], /features\[0\]\.features entry \[1\] must be a finite number, got null/],
    [[{ task_id: 'a', features: [1, 2] }, { task_id: 'b', features: [1] }], /features\[1\]\.features has 1 entries at index 1, the first row has 2/],
    [[{ task_id: 'a', features: [1] }, { task_id: 'a', features: [2] }], /features\[1\]\.task_id "a" is given twice \(rows 0 and 1\)/],
    [[{ task_id: 'a', features: [1] }, { prompt: 'pa', features: [2] }], /features\[1\]\.prompt "pa": its prompt already has a vector/],
    [[{ features: [1] }], /features\[0\]\.task_id exactly one of task_id and prompt/],
    [[{ task_id: 'a', features: [1] }], /task "b" has no feature vector/],
  ])('refuses bad rows %#', (rows, message) => {
    expect(() => resolveFeatureRows(rows as never, tasks)).toThrow(message);
  });

  it('refuses the embedding family without features', () => {
    expect(() => tuneKernel(synthetic(true).rows, { families: ['embedding'] })).toThrow(/families includes embedding, which needs the features option/);
  });
});

describe('the embedding energies (docs/method.md section 2.4), by hand', () => {
  const sha = (p: string) => createHash('sha256').update(p, 'utf8').digest('hex');
  /** d = 2, means (0, 0), sds (1, 2): z_a = (1, 0), z_b = (0, 1), z_c = (3, 2). */
  const file = (metric: string, bandwidth: number) => ({
    format: 'rl-advantages/kernel',
    version: 1,
    family: 'embedding',
    params: { metric, bandwidth },
    fitted: { dimension: 2, means: [0, 0], sds: [1, 2], vectors: { [sha('a')]: [1, 0], [sha('b')]: [0, 2], [sha('c')]: [3, 4] } },
  });

  // Tolerance 1e-15: the energies are O(1) and computed in a few float64 operations (a few ulps).
  it('rbf: |z_a - z_b|^2 / (2 s^2 d) on the standardised vectors', () => {
    const g = loadKernel(file('rbf', 1)).embed(['a', 'b', 'c']);
    expect(g.energy(0, 1)).toBeCloseTo(0.5, 15);
    expect(g.energy(0, 2)).toBeCloseTo(2, 15);
    expect(g.energy(1, 2)).toBeCloseTo(2.5, 15);
    // b_a = (e^-0.5 * 0 + e^-2 * 1) / (e^-0.5 + e^-2) (numpy 1.24).
    const b = createEstimator('kernel_file', { kernel: loadKernel(file('rbf', 1)) }).compute({ rewards: [1, 0, 1], prompts: ['a', 'b', 'c'] }).baselines;
    expect(b[0]).toBeCloseTo(0.18242552380635635, 15);
  });

  it('cosine: -cos(u_a, u_b) / T on the raw vectors', () => {
    const g = loadKernel(file('cosine', 0.5)).embed(['a', 'b', 'c']);
    expect(g.energy(0, 1)).toBeCloseTo(0, 15);
    expect(g.energy(0, 2)).toBeCloseTo(-1.2, 15);
    expect(g.energy(1, 2)).toBeCloseTo(-1.6, 15);
    // b_a = (e^-1.2 * 0 + 1 * 1) / (e^-1.2 + 1) (numpy 1.24).
    const b = createEstimator('kernel_file', { kernel: loadKernel(file('cosine', 0.5)) }).compute({ rewards: [1, 0, 1], prompts: ['a', 'b', 'c'] }).baselines;
    expect(b[0]).toBeCloseTo(0.7685247834990175, 15);
  });
});
