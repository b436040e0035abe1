// tuneKernel: a kernel tuned on calibration rows, with an honest held-out ratio (docs/method.md section 4.3).
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../errors.js';
import { groupCalibrationRows, readTasks, type CalibrationRow, type CalibrationTask } from '../calibration/rows.js';
import { prepare } from '../calibration/simulate.js';
import { VERSION } from '../version.js';
import { promptKey } from '../kernels/families/embedding.js';
import { familyDefinition } from '../kernels/families/index.js';
import { TextCache } from '../kernels/families/types.js';
import { KERNEL_FILE_FORMAT, KERNEL_FILE_VERSION, type KernelFamilyFigures, type KernelFile } from '../kernels/kernel-file.js';
import type { JsonObject } from '../kernels/read.js';
import { candidateGrid, candidateKey, type Candidate } from './grid.js';
import { pooledHeldOut, type HeldOutPart, type HeldOutRatio } from './heldout.js';
import { readTuneOptions, type TuneKernelOptions } from './options.js';
import { refit, type ProtocolContext, type TaskSet } from './protocol.js';
import { planBatches } from './score.js';
import { search, type SearchResult } from './search.js';
import { resolveFeatureRows } from './vectors.js';

export type { TuneKernelOptions } from './options.js';

/** One direction of the cross-fit: tuned on one part, scored on the other. */
export interface TuneDirection {
  readonly tuningTasks: number;
  readonly heldOutTasks: number;
  /** The winner's family and parameters, and its tuning score. */
  readonly winner: Candidate;
  readonly tuning: number;
  readonly candidates: number;
  /**
   * The winner refitted on this direction's tuning part (no provenance): the kernel that scored the held-out part.
   * `loadKernel(kernelFileJson(d.kernel)).embed(prompts)` scores it on any other tasks, e.g. a fresh population to
   * check the held-out interval against (validation/kernel-lab-heldout-truth.mjs).
   */
  readonly kernel: KernelFile;
}

/** What {@link tuneKernel} returns. */
export interface TuneKernelResult {
  /** The kernel file to write (refitted on all tasks; `kernelFileJson` gives its text). */
  readonly kernel: KernelFile;
  readonly mode: 'corrected' | 'single_rollout';
  /** The mean of the directions' winning tuning scores. */
  readonly tuning: number;
  /** The pooled held-out ratio of the winners and its jackknife interval. */
  readonly heldOut: HeldOutRatio;
  /** tuning - heldOut.ratio. */
  readonly selectionBias: number;
  readonly directions: readonly TuneDirection[];
  /** Distinct candidates scored over every search. */
  readonly candidates: number;
  /** Candidate-batches scored over every search (the tuner's work). */
  readonly candidateBatches: number;
  /** The best of each family: mean tuning score and pooled held-out ratio. */
  readonly perFamily: readonly KernelFamilyFigures[];
  /** The final search's winner on all tasks and its score there. */
  readonly final: { readonly candidate: Candidate; readonly score: number | null };
}


function mean(values: readonly number[]): number {
  return values.reduce((s, v) => s + v, 0) / values.length;
}

function taskSet(name: string, tasks: readonly CalibrationTask[]): TaskSet {
  return { name, prompts: tasks.map((t) => t.prompt), y: Float64Array.from(tasks, (t) => mean(t.rewards)) };
}

/** Shuffles the task indices with the seed; the first K - round(hK) are the tuning part. */
function split(count: number, holdout: number, seed: string): [number[], number[]] {
  const rng = seedrandom(`${seed}/split`);
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const held = Math.round(holdout * count);
  return [order.slice(0, count - held).sort((a, b) => a - b), order.slice(count - held).sort((a, b) => a - b)];
}

function checkTrain(tasks: readonly CalibrationTask[], train: readonly CalibrationTask[]): void {
  const ids = new Set(tasks.map((t) => t.taskId));
  const prompts = new Set(tasks.map((t) => t.prompt));
  train.forEach((t, i) => {
    if (ids.has(t.taskId) || prompts.has(t.prompt)) {
      throw new RlAdvantagesError(`train task ${JSON.stringify(t.taskId)} is also an input task (same ${ids.has(t.taskId) ? 'task_id' : 'prompt'}); --train must hold other tasks`, {
        code: 'train_overlap',
        field: 'train',
        index: i,
      });
    }
  });
}

/** A kernel file without provenance for a candidate refitted on `fit` (every part, the ridge on all its tasks). */
function bareKernelFile(candidate: Candidate, fit: TaskSet, context: ProtocolContext): KernelFile {
  const { params, fitted } = refit(candidate, fit, context);
  return { format: KERNEL_FILE_FORMAT, version: KERNEL_FILE_VERSION, family: candidate.family, params, fitted };
}

/**
 * Tunes a prompt-only kernel on calibration rows and estimates, honestly, how it does on unseen tasks
 * (docs/method.md section 4.3): a seeded split into a tuning and a held-out part; on the tuning part, every candidate
 * of a fixed grid (then local refinement) scored by its B_eff ratio against loo_batch_mean on common random batches,
 * the ridge of `difficulty` out of fold; the winner refitted on the tuning part and scored on the held-out part;
 * cross-fitting swaps the parts and pools the held-out batches (jackknife interval, section 4.1). The kernel returned
 * is the winner of the same search on all tasks, refitted on all of them. Synchronous (it runs for seconds to a
 * minute: 1319 tasks, about 500 candidates x 10000 batches per search).
 *
 * @param rows - `{task_id, prompt, reward}` rows as `calibrate` reads them (every task G >= 2, or every task G = 1).
 * @throws `RlAdvantagesError` for bad rows, a bad option, a part with fewer than batchSize + 1 tasks, or a train
 *   task that is also an input task.
 * @example
 * ```ts
 * const result = tuneKernel(rows, { families: ['length', 'difficulty'], seed: 0 });
 * writeFileSync('kernel.json', kernelFileJson(result.kernel));
 * result.heldOut; // { ratio: 1.03, se: 0.01, ci95: [1.01, 1.05] }
 * ```
 */
export function tuneKernel(rows: readonly CalibrationRow[], options?: TuneKernelOptions): TuneKernelResult {
  const o = readTuneOptions(options);
  const tasks = groupCalibrationRows(rows);
  const table = readTasks(tasks);
  const mode = prepare(table).corrected ? 'corrected' : 'single_rollout';
  checkTrain(tasks, o.train);
  const vectors = o.features === undefined ? undefined : resolveFeatureRows(o.features, tasks);
  const seed = String(o.seed);
  const parts = split(tasks.length, o.holdout, seed);
  parts.forEach((part, i) => {
    if (part.length <= o.batchSize) {
      throw new RlAdvantagesError(`the ${i === 0 ? 'tuning' : 'held-out'} part has ${part.length} tasks; it needs more than batchSize (${o.batchSize}): give more tasks, a smaller batchSize or another holdout`, {
        code: 'batch_too_large',
        field: 'batchSize',
      });
    }
  });
  const run: Run = { o, tasks, seed, grid: candidateGrid(o.families), context: { cache: new TextCache(), seed, train: taskSet('train', o.train), corpus: o.corpus, ...(vectors === undefined ? {} : { vectors }) } };
  const familyOrder = o.families.filter((f) => run.grid.some((c) => c.family === f));
  const directions = (o.crossFit ? [0, 1] : [0]).map((d) => ({ tune: parts[d] as number[], test: parts[1 - d] as number[], name: `part${d + 1}` }));
  const searches: SearchResult[] = [];
  const directionKernels: KernelFile[] = [];
  const heldOutParts = directions.map((direction) => {
    const { result, part, kernel } = runDirection(run, direction, familyOrder);
    searches.push(result);
    directionKernels.push(kernel);
    return part;
  });
  o.onProgress('held out', 0, 1);
  const pooled = pooledHeldOut(table, heldOutParts, o.batchSize, o.batches, seed);
  o.onProgress('held out', 1, 1);
  const all = taskSet('all', tasks);
  let final: { candidate: Candidate; score: number | null };
  if (o.crossFit) {
    const plan = planBatches(table, o.batchSize, o.batches, seedrandom(`${seed}/tune/all`) as unknown as { quick(): number });
    const result = search(run.grid, all, plan, run.context, (done, total) => o.onProgress('tune all', done, total));
    searches.push(result);
    final = { candidate: result.best.candidate, score: result.best.score };
  } else {
    final = { candidate: (searches[0] as SearchResult).best.candidate, score: null };
  }
  const tuned = searches.slice(0, directions.length);
  const tuningScore = mean(tuned.map((s) => s.best.score));
  const heldOut = pooled[0] as HeldOutRatio;
  const perFamily: KernelFamilyFigures[] = familyOrder.map((family, i) => {
    const h = pooled[i + 1] as HeldOutRatio;
    return { family, tuning: mean(tuned.map((s) => (s.bestByFamily.get(family) as { score: number }).score)), held_out: h.ratio, held_out_ci95: h.ci95 };
  });
  const candidates = new Set(searches.flatMap((s) => s.scored.map((x) => candidateKey(x.candidate)))).size;
  const figures = { mode, tuningScore, heldOut, perFamily, candidates, final } as const;
  return {
    kernel: kernelFile(run, refit(final.candidate, all, run.context), figures),
    mode,
    tuning: tuningScore,
    heldOut,
    selectionBias: tuningScore - heldOut.ratio,
    directions: directions.map((d, i) => {
      const s = searches[i] as SearchResult;
      return {
        tuningTasks: d.tune.length,
        heldOutTasks: d.test.length,
        winner: s.best.candidate,
        tuning: s.best.score,
        candidates: s.scored.length,
        kernel: directionKernels[i] as KernelFile,
      };
    }),
    candidates,
    candidateBatches: searches.reduce((s, r) => s + r.candidateBatches, 0),
    perFamily,
    final,
  };
}

/** What every stage of a run shares. */
interface Run {
  readonly o: ReturnType<typeof readTuneOptions>;
  readonly tasks: readonly CalibrationTask[];
  readonly seed: string;
  readonly grid: readonly Candidate[];
  readonly context: ProtocolContext;
}

/** One direction: the search on its tuning part, and the winner and each family's best refitted for its held-out part. */
function runDirection(
  run: Run,
  direction: { tune: number[]; test: number[]; name: string },
  familyOrder: readonly string[],
): { result: SearchResult; part: HeldOutPart; kernel: KernelFile } {
  const subset = (indices: number[]) => indices.map((k) => run.tasks[k] as CalibrationTask);
  const tuneSet = taskSet(direction.name, subset(direction.tune));
  const testSet = taskSet(`${direction.name}-held-out`, subset(direction.test));
  const plan = planBatches(readTasks(subset(direction.tune)), run.o.batchSize, run.o.batches, seedrandom(`${run.seed}/tune/${direction.name}`) as unknown as { quick(): number });
  const result = search(run.grid, tuneSet, plan, run.context, (done, total) => run.o.onProgress(`tune ${direction.name}`, done, total));
  // The winner is also its family's best: each distinct candidate is refitted once (a ridge or a vocabulary fit).
  const refitted = new Map<string, KernelFile>();
  const kernelOf = (c: Candidate): KernelFile => {
    const key = candidateKey(c);
    if (!refitted.has(key)) refitted.set(key, bareKernelFile(c, tuneSet, run.context));
    return refitted.get(key) as KernelFile;
  };
  const kernels = [result.best.candidate, ...familyOrder.map((f) => (result.bestByFamily.get(f) as { candidate: Candidate }).candidate)].map(kernelOf);
  return {
    result,
    kernel: kernels[0] as KernelFile,
    part: {
      table: readTasks(subset(direction.test)),
      globalIndex: Int32Array.from(direction.test),
      embeddings: kernels.map((k) => familyDefinition(k.family).make(k.params, k.fitted)(testSet.prompts, run.context.cache)),
    },
  };
}

/** The kernel file: the final candidate refitted on all tasks, and the provenance. */
function kernelFile(
  run: Run,
  refitted: { params: JsonObject; fitted: JsonObject },
  f: { mode: string; tuningScore: number; heldOut: HeldOutRatio; perFamily: KernelFamilyFigures[]; candidates: number; final: { candidate: Candidate; score: number | null } },
): KernelFile {
  const o = run.o;
  return {
    format: KERNEL_FILE_FORMAT,
    version: KERNEL_FILE_VERSION,
    family: f.final.candidate.family,
    params: refitted.params,
    fitted: refitted.fitted,
    provenance: {
      library_version: VERSION,
      seed: o.seed,
      holdout: o.holdout,
      batch_size: o.batchSize,
      cross_fit: o.crossFit,
      refit_on_all_tasks: true,
      mode: f.mode as 'corrected' | 'single_rollout',
      families: [...o.families],
      candidates: f.candidates,
      batches: o.batches,
      inputs: o.inputs,
      tuning_tasks: [...run.tasks, ...o.train].map((t) => ({ task_id: t.taskId, prompt_sha256: promptKey(t.prompt) })),
      tuning: { ratio: f.tuningScore },
      held_out: { ratio: f.heldOut.ratio, ratio_ci95: f.heldOut.ci95, interval_method: 'jackknife_log_ratio' },
      selection_bias: f.tuningScore - f.heldOut.ratio,
      per_family: f.perFamily,
      final_search: { ratio: f.final.score, tasks: run.tasks.length },
    },
  };
}
