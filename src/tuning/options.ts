// The options of tuneKernel, validated in one place.
import { RlAdvantagesError } from '../errors.js';
import { checkPositiveInteger, describe } from '../internal/validate.js';
import { groupCalibrationRows, type CalibrationRow, type CalibrationTask } from '../calibration/rows.js';
import { KERNEL_FAMILIES, type KernelFamily } from '../kernels/families/types.js';
import type { KernelInput } from '../kernels/kernel-file.js';
import type { FeatureRow } from './vectors.js';

/** Options of {@link tuneKernel}. */
export interface TuneKernelOptions {
  /**
   * Rows of *other* tasks (`{task_id, prompt, reward}`), used only to fit learned parts (the ridge of `difficulty`):
   * never scored. A task (by id or prompt) in both the input and the train rows is an error.
   */
  train?: readonly CalibrationRow[];
  /** Documents for the TF-IDF vocabulary and the length-bucket edges (else the prompts of the set being fitted). */
  corpus?: readonly string[];
  /**
   * User feature vectors (e.g. embeddings) for the `embedding` family: rows `{task_id | prompt, features}`, every
   * input task covered, all of one length. The kernel file stores them by prompt sha256 and knows only those prompts.
   */
  features?: readonly FeatureRow[];
  /** Families to search. Default: every family of {@link KERNEL_FAMILIES} (`embedding` only when `features` is given). */
  families?: readonly KernelFamily[];
  /** h, the held-out fraction of the tasks, 0 < h < 1. Default 0.5. */
  holdout?: number;
  /** B, distinct tasks per batch. Default 32. */
  batchSize?: number;
  /** M, batches per scored set (tuning and held out). Default 10000. */
  batches?: number;
  /** Seed of the split, the folds and every batch (seedrandom). Default 0. */
  seed?: string | number;
  /** Swap the parts and pool the held-out scores (default true); false: one direction. */
  crossFit?: boolean;
  /** The input files, recorded in the kernel file's provenance. */
  inputs?: readonly KernelInput[];
  /** Called with a stage name (`tune part 1`, ...) and the grid candidates done of that stage. */
  onProgress?: (stage: string, done: number, total: number) => void;
}

/** The validated options. */
export interface ReadOptions {
  readonly train: CalibrationTask[];
  readonly corpus: readonly string[] | undefined;
  readonly features: readonly FeatureRow[] | undefined;
  readonly families: readonly KernelFamily[];
  readonly holdout: number;
  readonly batchSize: number;
  readonly batches: number;
  readonly seed: string | number;
  readonly crossFit: boolean;
  readonly inputs: readonly KernelInput[];
  readonly onProgress: (stage: string, done: number, total: number) => void;
}

function bad(field: string, message: string, index?: number): never {
  throw new RlAdvantagesError(`${field} ${message}`, { code: 'bad_option', field, ...(index === undefined ? {} : { index }) });
}

/** Validates the options (each error names its option). */
export function readTuneOptions(options: TuneKernelOptions | undefined): ReadOptions {
  const o = options ?? {};
  if (typeof o !== 'object') bad('options', `must be an object, got ${describe(o)}`);
  const holdout = o.holdout ?? 0.5;
  if (typeof holdout !== 'number' || !(holdout > 0 && holdout < 1)) bad('holdout', `must be a number strictly between 0 and 1, got ${describe(holdout)}`);
  const batchSize = checkPositiveInteger('batchSize', o.batchSize ?? 32, 2);
  const batches = checkPositiveInteger('batches', o.batches ?? 10000, 2);
  const seed = o.seed ?? 0;
  if (!(typeof seed === 'string' || (typeof seed === 'number' && Number.isFinite(seed)))) bad('seed', `must be a string or a finite number, got ${describe(seed)}`);
  const families = o.families ?? KERNEL_FAMILIES.filter((f) => f !== 'embedding' || o.features !== undefined);
  if (!Array.isArray(families) || families.length === 0) bad('families', `must be a non-empty array of family names (${KERNEL_FAMILIES.join(', ')})`);
  families.forEach((f: unknown, i) => {
    if (typeof f !== 'string' || !(KERNEL_FAMILIES as readonly string[]).includes(f)) bad('families', `[${i}] must be one of ${KERNEL_FAMILIES.join(', ')}, got ${describe(f)}`, i);
  });
  if (o.features === undefined && families.includes('embedding')) bad('families', 'includes embedding, which needs the features option (user feature vectors)');
  const crossFit = o.crossFit ?? true;
  if (typeof crossFit !== 'boolean') bad('crossFit', `must be true or false, got ${describe(crossFit)}`);
  if (o.corpus !== undefined && (!Array.isArray(o.corpus) || o.corpus.some((d) => typeof d !== 'string'))) bad('corpus', 'must be an array of strings');
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') bad('onProgress', `must be a function, got ${describe(o.onProgress)}`);
  return {
    train: o.train === undefined ? [] : groupCalibrationRows(o.train),
    corpus: o.corpus,
    features: o.features,
    families: [...new Set(families)],
    holdout,
    batchSize,
    batches,
    seed,
    crossFit,
    inputs: o.inputs ?? [],
    onProgress: o.onProgress ?? (() => undefined),
  };
}
