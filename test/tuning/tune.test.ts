// tuneKernel (docs/method.md section 4.3) on small synthetic sets with a known truth: a set whose success rate is a
// function of a text feature (the count of numbers) gives a clear held-out gain; the same rewards shuffled across
// tasks (no structure) give no claimed gain; the kernel file round-trips bit for bit; a seed fixes everything.
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { createEstimator, kernelFileJson, loadKernel } from '../../src/index.js';
import { type CalibrationRow } from '../../src/calibration/index.js';
import { tuneKernel, type TuneKernelResult } from '../../src/tuning/index.js';

const WORDS = ['apples', 'trains', 'hours', 'dollars', 'pens', 'students', 'cookies', 'miles'];

/** 500 tasks: task k has n = 1 + k % 5 numbers in its prompt and succeeds with p = 0.98 - 0.19 n (one rollout). */
function clustered(): CalibrationRow[] {
  const rng = seedrandom('tune-test');
  return Array.from({ length: 500 }, (_, k) => {
    const n = 1 + (k % 5);
    const numbers = Array.from({ length: n }, (_, j) => `${j + 2 + (k % 5)} ${WORDS[(k + j) % WORDS.length]}`).join(' and ');
    return { task_id: `t${k}`, prompt: `Task ${k}: Sam has ${numbers}. How many in all?`, reward: rng() < 0.98 - 0.19 * n ? 1 : 0 };
  });
}

function shuffled(rows: CalibrationRow[]): CalibrationRow[] {
  const rng = seedrandom('shuffle');
  const rewards = rows.map((r) => r.reward);
  for (let i = rewards.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [rewards[i], rewards[j]] = [rewards[j] as number, rewards[i] as number];
  }
  return rows.map((r, i) => ({ ...r, reward: rewards[i] as number }));
}

const OPTIONS = { families: ['length', 'difficulty', 'loo_batch_mean'] as const, batchSize: 16, batches: 250, seed: 3 };
let memo: TuneKernelResult | undefined;
/** The tuned result on clustered(): computed by whichever test asks first, so no test depends on another's order. */
function structuredResult(): TuneKernelResult {
  memo ??= tuneKernel(clustered(), { ...OPTIONS, families: [...OPTIONS.families] });
  return memo;
}

describe('tuneKernel', () => {
  it('finds a clear held-out gain when difficulty is a function of a text feature', () => {
    const structured = structuredResult();
    expect(structured.heldOut.ratio).toBeGreaterThan(1.1);
    expect((structured.heldOut.ci95 as [number, number])[0]).toBeGreaterThan(1);
    expect(structured.directions).toHaveLength(2);
    expect(structured.kernel.provenance?.refit_on_all_tasks).toBe(true);
    expect(structured.kernel.provenance?.tuning_tasks).toHaveLength(500);
    expect(structured.candidates).toBeGreaterThan(300);
  });

  it("gives each direction's kernel: the winner refitted on that direction's tuning half", () => {
    const structured = structuredResult();
    for (const d of structured.directions) {
      const loaded = loadKernel(JSON.parse(kernelFileJson(d.kernel)));
      expect(loaded.family).toBe(d.winner.family);
      expect(d.kernel.provenance).toBeUndefined();
      expect(d.kernel.params).toEqual(loadKernel({ ...d.kernel, params: d.winner.params }).file.params);
      // Fitted on 250 tasks, not on the 500 the final kernel is refitted on: the fitted parts differ.
      if (d.winner.family === structured.kernel.family) expect(d.kernel.fitted).not.toEqual(structured.kernel.fitted);
    }
    const [one, two] = structured.directions;
    expect(one?.kernel.fitted).not.toEqual(two?.kernel.fitted);
  });

  it('claims no gain on rewards shuffled across tasks', () => {
    const result = tuneKernel(shuffled(clustered()), { ...OPTIONS, families: [...OPTIONS.families] });
    const [low] = result.heldOut.ci95 as [number, number];
    expect(low).toBeLessThanOrEqual(1);
    expect(result.heldOut.ratio).toBeLessThan(1.02);
    // The search still finds something that looks better on the data it tuned on: that is the selection bias.
    expect(result.selectionBias).toBeGreaterThan(0);
  });

  it('writes a kernel file that round-trips bit for bit and gives the same advantages', () => {
    const text = kernelFileJson(structuredResult().kernel);
    const kernel = loadKernel(JSON.parse(text));
    expect(kernelFileJson(kernel)).toBe(text);
    const batch = { rewards: clustered().slice(0, 16).map((r) => r.reward), prompts: clustered().slice(0, 16).map((r) => r.prompt) };
    const a = createEstimator('kernel_file', { kernel }).compute(batch).advantages;
    const b = createEstimator('kernel_file', { kernel: loadKernel(text) }).compute(batch).advantages;
    expect(Array.from(b)).toEqual(Array.from(a));
  });

  it('is fixed by its seed', () => {
    // Two runs of a smaller search (200 tasks, 60 batches) with one seed: the same kernel file and held-out figures.
    const small = { families: ['length', 'difficulty'] as ('length' | 'difficulty')[], batchSize: 16, batches: 60, seed: 3 };
    const rows = clustered().slice(0, 200);
    const once = tuneKernel(rows, { ...small, families: [...small.families] });
    const again = tuneKernel(rows, { ...small, families: [...small.families] });
    expect(kernelFileJson(again.kernel)).toBe(kernelFileJson(once.kernel));
    expect(again.heldOut).toEqual(once.heldOut);
    const other = tuneKernel(rows, { ...small, families: [...small.families], seed: 4 });
    expect(other.heldOut).not.toEqual(once.heldOut);
  });

  it('runs in corrected mode (G = 4 a task) and uses --train rows only to fit the ridge', () => {
    const rng = seedrandom('corrected');
    const base = clustered().slice(0, 200);
    const rows = base.flatMap((r, k) => Array.from({ length: 4 }, () => ({ ...r, reward: rng() < 0.98 - 0.19 * (1 + (k % 5)) ? 1 : 0 })));
    const train = clustered().slice(200, 300);
    const result = tuneKernel(rows, { families: ['difficulty', 'loo_batch_mean'], batchSize: 16, batches: 200, seed: 1, train });
    expect(result.mode).toBe('corrected');
    expect(result.heldOut.ratio).toBeGreaterThan(1);
    expect(result.kernel.provenance?.tuning_tasks).toHaveLength(300);
    // Scored sets hold input tasks only: each direction splits the 200 input tasks, never the 100 train tasks.
    for (const d of result.directions) expect(d.tuningTasks + d.heldOutTasks).toBe(200);
    expect(result.directions).toHaveLength(2);
  });

  it('refuses train rows of an input task, and too few tasks for a batch', () => {
    const rows = clustered();
    expect(() => tuneKernel(rows, { ...OPTIONS, families: ['length'], train: [rows[0] as CalibrationRow] })).toThrow(/also an input task/);
    expect(() => tuneKernel(rows.slice(0, 40), { ...OPTIONS, families: ['length'], batchSize: 32 })).toThrow(/needs more than batchSize/);
    expect(() => tuneKernel(rows, { holdout: 1 })).toThrow(/holdout must be a number strictly between 0 and 1/);
  });
});
