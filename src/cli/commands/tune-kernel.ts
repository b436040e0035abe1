// rl-adv tune-kernel: a prompt-only kernel tuned on calibration rows, with an honest held-out ratio
// (docs/method.md section 4.3); writes kernel.json (docs/kernel-lab.md).
import { createHash } from 'node:crypto';
import { Option, type Command } from 'commander';
import type { CalibrationRow } from '../../calibration/rows.js';
import { RlAdvantagesError } from '../../errors.js';
import { KERNEL_FAMILIES, type KernelFamily } from '../../kernels/families/types.js';
import { kernelFamilyRows, kernelFileJson, type KernelInput } from '../../kernels/kernel-file.js';
import { tuneKernel, type TuneKernelResult } from '../../tuning/tune.js';
import type { FeatureRow } from '../../tuning/vectors.js';
import { kernelPage } from '../../report/pages.js';
import { num, table } from '../format.js';
import { inputError, parseJsonl, readCorpus, readText, type Row } from '../io.js';
import { forceOption, inputOption, outputOption, writeOutput } from '../outputs.js';
import { flagNames, integerOption, listOption } from '../options.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';
import { readRows } from './calibrate.js';

interface TuneKernelCliOptions {
  input: string;
  train?: string;
  corpus?: string;
  corpusField: string;
  features?: string;
  families?: string[];
  holdout: string;
  batchSize: number;
  batches: number;
  seed: string;
  crossFit: boolean;
  out: string;
  force?: boolean;
  json?: boolean;
  html?: string;
}

/** The library's option names, as the command line spells them. */
const FLAGS: Readonly<Record<string, string>> = {
  batchSize: '--batch-size',
  batches: '--batches',
  holdout: '--holdout',
  families: '--families',
  seed: '--seed',
  train: '--train',
};

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

async function readInput(file: string, io: CliIo, option: string, role: KernelInput['role']): Promise<{ rows: CalibrationRow[]; input: KernelInput }> {
  const text = await readText(file, io, option);
  const rows: Row[] = parseJsonl(text, file);
  return { rows: readRows(rows), input: { role, path: file, sha256: sha256(text), rows: rows.length } };
}

/** The --features rows, as the library reads them (errors name the line through {@link featuresError}). */
async function readFeatures(file: string, io: CliIo): Promise<{ rows: Row[]; input: KernelInput }> {
  const text = await readText(file, io, '--features');
  const rows = parseJsonl(text, file);
  if (rows.length === 0) throw inputError(file, undefined, undefined, 'holds no rows (one JSON object a line: {"task_id" | "prompt", "features": [numbers]})');
  return { rows, input: { role: 'features', path: file, sha256: sha256(text), rows: rows.length } };
}

/** A library error about the --features rows as `FILE:LINE: field "F": ...` (the file alone for a missing task). */
function featuresError(file: string, rows: readonly Row[], error: RlAdvantagesError): Error {
  const row = error.index === undefined ? undefined : rows[error.index];
  if (row === undefined) return inputError(file, undefined, undefined, `${error.message} (--input has the task, --features does not)`);
  return row.error(error.field, error.message.replace(/^features\[\d+\]\.\w+ /, ''));
}

/** The readable summary. */
export function tuneKernelText(r: TuneKernelResult, out: string): string {
  const ci = (c: readonly [number, number] | null | undefined) => (c === null || c === undefined ? '-' : `[${num(c[0])}, ${num(c[1])}]`);
  const rows = r.perFamily.map((f) => [f.family, num(f.tuning), num(f.held_out), ci(f.held_out_ci95)]);
  const p = r.kernel.provenance;
  return (
    `Kernel tuning (docs/method.md section 4.3): ${p?.mode ?? ''} mode, B = ${p?.batch_size}, ${p?.batches} batches per set, seed ${JSON.stringify(p?.seed)}, ` +
    `${r.directions.length === 2 ? 'cross-fitted (both halves held out once)' : 'one direction'}\n` +
    r.directions.map((d, i) => `direction ${i + 1}: tuned on ${d.tuningTasks} tasks, scored on ${d.heldOutTasks}; winner ${d.winner.family} ${JSON.stringify(d.winner.params)} (tuning ${num(d.tuning)}, ${d.candidates} candidates)\n`).join('') +
    '\n' +
    table(['family (best)', 'tuning ratio', 'held-out ratio', 'held-out 95% CI'], rows) +
    `\nwinner: tuning ${num(r.tuning)}, held out ${num(r.heldOut.ratio)} ${ci(r.heldOut.ci95)} (jackknife on the log ratio), selection bias ${num(r.selectionBias)}, ${r.candidates} candidates\n` +
    `kernel: ${r.kernel.family} ${JSON.stringify(r.kernel.params)}, refitted on all tasks -> ${out}\n` +
    'ratio = B_eff(kernel) / B_eff(loo_batch_mean); the held-out ratio is what to expect on new tasks.\n'
  );
}

/** One updating line on stderr per stage, only when stderr is a terminal (never in a pipe or a log file). */
function progress(io: CliIo): { onProgress?: (stage: string, done: number, total: number) => void; end(): void } {
  const stderr = io.stderr as { isTTY?: boolean; write(text: string): unknown };
  let last = '';
  if (stderr.isTTY !== true) return { end: () => undefined };
  return {
    onProgress: (stage, done, total) => {
      if (stage !== last && last !== '') stderr.write('\n');
      last = stage;
      stderr.write(`\rtuning: ${stage}${stage.startsWith('tune') ? `: ${done}/${total} grid candidates` : ''}   `);
    },
    end: () => {
      if (last !== '') stderr.write('\n');
    },
  };
}

function parseHoldout(text: string): number {
  const h = Number(text);
  if (!/^\d*\.?\d+$/.test(text) || !(h > 0 && h < 1)) throw new CliUsageError(`--holdout ${text}: give a fraction strictly between 0 and 1, e.g. 0.5`);
  return h;
}

function parseFamilies(list: string[] | undefined): KernelFamily[] | undefined {
  if (list === undefined) return undefined;
  for (const f of list) {
    if (!(KERNEL_FAMILIES as readonly string[]).includes(f)) throw new CliUsageError(`--families ${list.join(',')}: unknown family "${f}"; families: ${KERNEL_FAMILIES.join(', ')}`);
  }
  return list as KernelFamily[];
}

async function run(options: TuneKernelCliOptions, io: CliIo): Promise<void> {
  const holdout = parseHoldout(options.holdout);
  const families = parseFamilies(options.families);
  if (families?.includes('embedding') === true && options.features === undefined) {
    throw new CliUsageError(`--families ${families.join(',')}: the embedding family needs --features F.jsonl (user feature vectors)`);
  }
  const input = await readInput(options.input, io, '--input', 'input');
  const train = options.train === undefined ? undefined : await readInput(options.train, io, '--train', 'train');
  let corpus: string[] | undefined;
  const inputs = [input.input, ...(train === undefined ? [] : [train.input])];
  if (options.corpus !== undefined) {
    corpus = await readCorpus(options.corpus, io, options.corpusField);
    inputs.push({ role: 'corpus', path: options.corpus, sha256: sha256(await readText(options.corpus, io, '--corpus')), rows: corpus.length });
  }
  const features = options.features === undefined ? undefined : await readFeatures(options.features, io);
  if (features !== undefined) inputs.push(features.input);
  let result: TuneKernelResult;
  const bar = progress(io);
  try {
    result = tuneKernel(input.rows, {
      ...(train === undefined ? {} : { train: train.rows }),
      ...(corpus === undefined ? {} : { corpus }),
      ...(features === undefined ? {} : { features: features.rows.map((r) => r.value as unknown as FeatureRow) }),
      ...(families === undefined ? {} : { families }),
      holdout,
      batchSize: options.batchSize,
      batches: options.batches,
      seed: /^-?\d+$/.test(options.seed) ? Number(options.seed) : options.seed,
      crossFit: options.crossFit,
      inputs,
      ...(bar.onProgress === undefined ? {} : { onProgress: bar.onProgress }),
    });
  } catch (error) {
    if (!(error instanceof RlAdvantagesError)) throw error;
    if (features !== undefined && (error.code === 'bad_features' || error.code === 'missing_features')) throw featuresError(options.features as string, features.rows, error);
    if (error.field === 'train') throw inputError(options.train as string, undefined, 'task_id', error.message);
    const flag = error.field === undefined ? undefined : FLAGS[error.field];
    // The library's option names (batchSize, holdout) become the flags the user typed.
    if (flag !== undefined) throw new CliUsageError(`${flag}: ${flagNames(error.message, FLAGS).replace(/\bholdout\b/g, '--holdout')}`);
    throw inputError(options.input, undefined, undefined, error.message);
  } finally {
    bar.end();
  }
  const force = options.force === true;
  await writeOutput(options.out, kernelFileJson(result.kernel), io, '--out', force);
  if (options.html !== undefined) {
    const subtitle = `${options.input}: held out ${num(result.heldOut.ratio)}, selection bias ${num(result.selectionBias)}`;
    await writeOutput(options.html, await kernelPage(kernelFamilyRows(result.kernel), subtitle), io, '--html', force);
  }
  if (options.json === true) {
    const p = result.kernel.provenance;
    io.stdout.write(
      JSON.stringify({ out: options.out, kernel: { family: result.kernel.family, params: result.kernel.params }, tuning: result.tuning, held_out: p?.held_out, selection_bias: result.selectionBias, candidates: result.candidates, candidate_batches: result.candidateBatches, directions: result.directions.map(({ kernel: _kernel, ...d }) => d), per_family: result.perFamily }, null, 2) + '\n',
    );
  } else io.stdout.write(tuneKernelText(result, options.out));
}

/** Registers `rl-adv tune-kernel`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('tune-kernel')
    .summary('tune a prompt-only kernel on calibration rows, with an honest held-out B_eff ratio')
    .description(
      'Searches kernel families (TF-IDF, prompt length, text features, user feature vectors, predicted difficulty, products, and the ' +
        'references) on a seeded tuning part of the tasks and scores the winner on the held-out part, by the B_eff ratio ' +
        'against loo_batch_mean on common random batches (docs/method.md section 4.3); cross-fitting swaps the parts. ' +
        'Writes kernel.json, usable as the estimator kernel:PATH (docs/kernel-lab.md).\n' +
        'Input: calibration rows, JSON lines {"task_id", "prompt", "reward"} (G >= 2 a task, or 1 a task).',
    )
    .addOption(inputOption('--input <file>', 'the calibration rows, JSON lines').makeOptionMandatory())
    .addOption(outputOption('--out <file>', 'the kernel file to write (kept if it exists, unless --force)').makeOptionMandatory())
    .addOption(inputOption('--train <file>', 'rows of other tasks, only to fit learned parts (the difficulty ridge); never scored'))
    .addOption(inputOption('--corpus <file>', 'documents for the TF-IDF vocabulary and length buckets (JSON lines or .txt)'))
    .option('--corpus-field <name>', 'the JSON-lines field of --corpus holding each document', 'question')
    .addOption(
      inputOption('--features <file>', 'user feature vectors (e.g. embeddings), JSON lines {"task_id" | "prompt", "features": [numbers]}, for the embedding family'),
    )
    .option('--families <list>', `comma-separated families (default all: ${KERNEL_FAMILIES.join(', ')})`, listOption)
    .option('--holdout <fraction>', 'the held-out fraction of the tasks', '0.5')
    .option('--batch-size <n>', 'B, distinct tasks per batch', integerOption(2), 32)
    .option('--batches <n>', 'M, batches per scored set', integerOption(2), 10000)
    .option('--seed <seed>', 'seed of the split, the folds and every batch', '0')
    .addOption(new Option('--no-cross-fit', 'score one direction only (default: swap the parts and pool)'))
    .addOption(forceOption())
    .addOption(outputOption('--html <file>', 'also write a page charting the tuning and held-out ratio of each family'))
    .option('--json', 'print the figures as JSON')
    .action(async (options: TuneKernelCliOptions) => run(options, io));
  withExamples(command, [
    'rl-adv tune-kernel --input calib.jsonl --out kernel.json',
    'rl-adv tune-kernel --input calib.jsonl --families length,difficulty --batches 2000 --out kernel.json --json',
    'rl-adv tune-kernel --input calib.jsonl --features embeddings.jsonl --families embedding,loo_batch_mean --out kernel.json',
  ]);
}
