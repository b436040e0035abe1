// Kernel arms (docs/study.md, "Kernel arms"): the oracle cell kernel's baselines against the formula of
// docs/method.md section 2.4.1 computed here independently; the bad inputs refused naming the field; a sim study
// with a tuned-kernel arm and a kernel-file arm, each kernel's B_eff ratio beside its gain, and a resume that refuses
// a changed kernel (tuned or file) naming it, with nothing lost.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import seedrandom from 'seedrandom';
import { describe, expect, it } from 'vitest';
import { arithItems, parseArithWorld } from '../../src/data/arith.js';
import { createEstimator } from '../../src/estimators/registry.js';
import { loadKernel } from '../../src/kernels/kernel-file.js';
import { runStudyWithReports } from '../../src/report/write.js';
import { arithCell, oracleKernelJson } from '../../src/study/oracle-kernel.js';
import type { StudyOptions } from '../../src/study/run.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { loadStudySpec, StudySpecError } from '../../src/study/spec.js';
import { repoRoot, specPath } from '../helpers/paths.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-kernel-arms-'));
const kernelsSpec = JSON.parse(readFileSync(path.join(repoRoot, 'specs', 'arith-kernels.json'), 'utf8')) as Record<string, unknown> & {
  arms: { advantage: string }[];
};

function problems(spec: unknown): { path: string; message: string }[] {
  try {
    loadStudySpec(spec);
  } catch (error) {
    if (error instanceof StudySpecError) return [...error.problems];
    throw error;
  }
  return [];
}

describe('the oracle cell kernel (docs/method.md section 2.4.1)', () => {
  const world = parseArithWorld(kernelsSpec.dataset as Record<string, unknown>);
  const train = arithItems(world, 'train');
  const kernel = loadKernel(oracleKernelJson(train));

  it('gives each rollout the mean reward of its cell-mates in the batch, or the LOO batch mean when it has none', () => {
    const rng = seedrandom('oracle-kernel-test');
    for (let trial = 0; trial < 50; trial++) {
      // 32 distinct train prompts; every 10th trial keeps a single prompt of its cell in the batch.
      const picked = [...new Set(Array.from({ length: 64 }, () => Math.floor(rng() * train.length)))].slice(0, 32).map((q) => train[q]!);
      const batch = trial % 10 === 0 ? [...picked.filter((t) => arithCell(t.question) !== 'times 2x2').slice(0, 31), train.find((t) => arithCell(t.question) === 'times 2x2')!] : picked;
      const rewards = batch.map(() => [0, 1, -0.1][Math.floor(rng() * 3)]!);
      const prompts = batch.map((t) => t.question);
      const got = createEstimator('kernel_file', { kernel }).compute({ rewards, prompts });
      // The formula, computed here: the cell from the prompt text, the mean over the other rollouts of the cell.
      const cells = prompts.map((p) => /^(\w+) (\d)x(\d):/.exec(p)!.slice(1).join(' '));
      const expected = rewards.map((_, i) => {
        const mates = rewards.filter((_, j) => j !== i && cells[j] === cells[i]);
        const others = mates.length > 0 ? mates : rewards.filter((_, j) => j !== i);
        return others.reduce((s, r) => s + r, 0) / others.length;
      });
      // The other cells' weights are e^-50 (< 6e-21 in total): the 0/1 kernel to float64 rounding of a mean.
      got.baselines.forEach((b, i) => expect(Math.abs(b - expected[i]!)).toBeLessThan(1e-15));
      expect(got.maxSelfWeight).toBe(0);
    }
  });

  it('has the six cells of the world, each prompt one-hot, and the same bytes for the same world', () => {
    const prov = kernel.file.provenance as unknown as { cells: { cell: string; train_prompts: number }[] };
    expect(prov.cells.map((c) => c.cell)).toEqual(['minus 1x1', 'minus 2x2', 'plus 1x1', 'plus 2x2', 'times 1x1', 'times 2x2']);
    expect(prov.cells.reduce((s, c) => s + c.train_prompts, 0)).toBe(train.length);
    expect(oracleKernelJson(arithItems(world, 'train'))).toBe(oracleKernelJson(train));
    expect(() => oracleKernelJson([{ ...train[0]!, question: 'What is 2 + 2?' }])).toThrow(/train item 0 .* has no arith cell/);
  });
});

describe('kernel arms in a spec: bad input names the field', () => {
  it('refuses a tuned-kernel arm without a tuning phase, an oracle on a world without cells, and a bad tuning section', () => {
    const noTuning = { ...kernelsSpec };
    delete noTuning.tuning;
    expect(problems(noTuning)).toEqual([{ path: 'arms[3].advantage', message: expect.stringMatching(/"tuned_kernel" needs the spec's tuning phase/) as unknown }]);
    const gsm8k = JSON.parse(readFileSync(specPath, 'utf8')) as { arms: Record<string, unknown>[] };
    gsm8k.arms[1] = { ...gsm8k.arms[1], advantage: 'oracle_cell_kernel' };
    expect(problems(gsm8k)).toEqual([{ path: 'arms[1].advantage', message: expect.stringMatching(/"oracle_cell_kernel" needs a world with difficulty cells .* has none/) as unknown }]);
    expect(problems({ ...kernelsSpec, tuning: { tasks: 0, extra: 1 } }).map((p) => p.path)).toEqual(['tuning.tasks', 'tuning.extra']);
    expect(problems({ ...kernelsSpec, tuning: { batches: 10 } }).map((p) => p.path)).toEqual(['tuning.tasks']);
    expect(problems(kernelsSpec)).toEqual([]);
  });
});

/** The shipped spec with a batch-mean arm, a tuned-kernel arm, a kernel-file arm, the tuning section and comparisons. */
function kernelArmSpec(root: string): string {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, unknown> & { arms: Record<string, unknown>[]; decision_rule: Record<string, unknown> };
  const g1 = spec.arms[1] as Record<string, unknown>;
  spec.arms.push({ ...g1, name: 'batchmean_g1', advantage: 'loo_batch_mean' }, { ...g1, name: 'tuned_g1', advantage: 'tuned_kernel' }, { ...g1, name: 'file_g1', advantage: 'kernel:k/bucket.json' });
  spec.tuning = { tasks: 300, batches: 200 };
  const sup = (t: string): object => ({ id: `${t}_vs_batchmean`, treatment: t, reference: 'batchmean_g1', kind: 'superiority', metric: 'accuracy' });
  spec.decision_rule = { ...spec.decision_rule, seeds: [0, 1], seed_method: 'seed_item_t', method: 'paired_exact_unconditional', comparisons: [sup('gs1_tfidf_g1'), sup('tuned_g1'), sup('file_g1'), { id: 'gs1_vs_grpo', treatment: 'gs1_tfidf_g1', reference: 'grpo_g8', kind: 'non_inferiority', margin: -0.05, metric: 'accuracy' }] };
  const file = path.join(root, 'spec.json');
  writeFileSync(file, JSON.stringify(spec));
  return file;
}

describe('a study with kernel arms (sim backend, the clustered questions)', () => {
  it("records each kernel arm's B_eff ratio beside its gain, freezes the tuned kernel, and refuses a changed kernel on resume", async () => {
    const root = temp();
    mkdirSync(path.join(root, 'k'));
    // A kernel file arm: the length buckets of the train questions (the seed's fallback, as a file).
    const bucket = { format: 'rl-advantages/kernel', version: 1, family: 'loo_batch_mean', params: {}, fitted: {} };
    writeFileSync(path.join(root, 'k', 'bucket.json'), JSON.stringify(bucket));
    const spec = kernelArmSpec(root);
    const dir = path.join(root, 'run');
    const options: StudyOptions = {
      specPath: spec,
      dir,
      backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }),
      questions: 'clustered',
      steps: 6,
      evalLimit: 200,
      calibrationBatches: 1000,
    };
    const { exitCode, summary: s } = await runStudyWithReports(options);
    expect(exitCode).toBe(0);
    expect(Object.keys(s.phases).slice(0, 4)).toEqual(['preflight', 'calibration', 'tuning', 'kernel_arms']);
    const run = JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as Record<string, { sha256: string } | undefined>;
    const sha = (f: string): string => createHash('sha256').update(readFileSync(f)).digest('hex');
    expect(run.tuned_kernel).toEqual({ file: 'kernel.json', sha256: sha(path.join(dir, 'kernel.json')) });
    expect(run.kernels).toEqual({ 'kernel:k/bucket.json': { file: 'k/bucket.json', sha256: sha(path.join(root, 'k', 'bucket.json')) } });
    const k = s.kernel_arms!;
    expect(k.reference_arm).toBe('batchmean_g1');
    expect(k.arms.map((a) => [a.arm, a.advantage])).toEqual([
      ['gs1_tfidf_g1', 'tfidf_kernel_loo_T0.1'],
      ['tuned_g1', 'tuned_kernel'],
      ['file_g1', 'kernel:k/bucket.json'],
    ]);
    // The TF-IDF ratio is the calibration phase's (the same rows, batches and seed); the batch mean as a file is 1.
    expect(k.arms[0]!.beff_ratio).toBe(s.calibration?.estimators['tfidf_kernel_loo_T0.1']?.ratio);
    expect(k.arms[2]!.beff_ratio).toBeCloseTo(1, 12);
    expect(k.arms[1]!.kernel_sha256).toBe(run.tuned_kernel?.sha256);
    for (const a of k.arms) {
      const c = s.comparisons!.find((x) => x.treatment === a.arm)!;
      expect(a.gain).toEqual({ comparison: c.id, estimate: c.estimate, interval: c.interval, level: c.level, verdict: c.verdict, per_seed: c.per_seed.map((p) => ({ seed: p.seed, gain: p.estimate })) });
    }
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain('aria-label="B_eff ratio against the gain over the batch-mean arm, per kernel arm"');

    // A changed kernel file, then a changed tuned kernel: each resume refused naming it, nothing written.
    const summaryBefore = readFileSync(path.join(dir, 'summary.json'), 'utf8');
    writeFileSync(path.join(root, 'k', 'bucket.json'), JSON.stringify({ ...bucket, provenance: { note: 'edited' } }));
    await expect(runStudyWithReports({ ...options, resume: true })).rejects.toThrow(/the kernel of arm file_g1 \(kernel:k\/bucket\.json, file k\/bucket\.json\) changed/);
    writeFileSync(path.join(root, 'k', 'bucket.json'), JSON.stringify(bucket));
    copyFileSync(path.join(dir, 'kernel.json'), path.join(root, 'kernel.saved'));
    writeFileSync(path.join(dir, 'kernel.json'), readFileSync(path.join(dir, 'kernel.json'), 'utf8') + ' ');
    await expect(runStudyWithReports({ ...options, resume: true })).rejects.toThrow(/the kernel of arm tuned_g1 \(tuned_kernel, file kernel\.json\) changed/);
    expect(readFileSync(path.join(dir, 'summary.json'), 'utf8')).toBe(summaryBefore);
    copyFileSync(path.join(root, 'kernel.saved'), path.join(dir, 'kernel.json'));
    const again = await runStudyWithReports({ ...options, resume: true });
    expect(again.summary.kernel_arms).toEqual(k);
  });
});
