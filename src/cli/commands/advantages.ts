// rl-adv advantages: one batch of rollouts in (JSON lines), one advantage per rollout out.
import type { Command } from 'commander';
import { RlAdvantagesError } from '../../errors.js';
import { ESTIMATOR_NAMES, parseEstimatorName } from '../../estimators/registry.js';
import type { Batch, Estimator, EstimatorResult } from '../../estimators/types.js';
import { plural } from '../format.js';
import { cliEstimator, fieldsUsed, type BatchField } from '../estimator.js';
import { atRow, displayName, loadVectorizer, readJsonl, refuseToOverwrite, STDIO, writeText, type Row, type VectorizerOptions } from '../io.js';
import { addVectorizerOptions } from '../options.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';

interface AdvantagesOptions {
  estimator: string;
  corpus?: string;
  corpusField: string;
  vectorizer?: string;
  input: string;
  output: string;
}

/** The batch fields a row may give, by library name: row field `group` is the batch's `groupIds`. */
const ROW_FIELDS = { rewards: 'reward', prompts: 'prompt', groupIds: 'group', features: 'features' } as const;

/**
 * A field is given on every row or on none: a batch with prompts for some rollouts only has no
 * meaning, so the first row without it is the error.
 */
function allOrNone(rows: readonly Row[], field: string): boolean {
  const first = rows.find((r) => r.has(field));
  if (first === undefined) return false;
  const missing = rows.find((r) => !r.has(field));
  if (missing !== undefined) {
    throw missing.error(field, `is missing, but line ${first.line} gives one; give "${field}" on every row or on none`);
  }
  return true;
}

/**
 * Reads input rows `{prompt?, reward, group?, features?}` into one batch. Other fields, and the
 * fields of that list the estimator does not read (`uses`, default all), are ignored.
 */
export function batchFromRows(rows: readonly Row[], uses: ReadonlySet<BatchField> = fieldsUsed('')): Batch {
  const rewards = rows.map((r) => r.number('reward', 'each row needs its reward, a finite number'));
  const batch: { -readonly [K in keyof Batch]: Batch[K] } = { rewards };
  if (uses.has('prompts') && allOrNone(rows, 'prompt')) batch.prompts = rows.map((r) => r.string('prompt'));
  if (uses.has('groupIds') && allOrNone(rows, 'group')) batch.groupIds = rows.map((r) => r.id('group'));
  if (uses.has('features') && allOrNone(rows, 'features')) batch.features = rows.map((r) => r.numbers('features'));
  return batch;
}

/**
 * Creates the named estimator, fitting or loading the vectorizer when one is given; a bad name or a
 * missing vectorizer is reported before the input is read.
 */
export async function estimatorFor(
  name: string,
  options: VectorizerOptions,
  io: CliIo,
  command: string,
): Promise<Estimator> {
  const hasSource = options.corpus !== undefined || options.vectorizer !== undefined;
  try {
    // Without a source this also reports a prompt-kernel estimator's missing vectorizer.
    if (!hasSource) return cliEstimator(name, undefined, command);
    parseEstimatorName(name);
  } catch (error) {
    if (error instanceof RlAdvantagesError) throw new CliUsageError(`--estimator ${name}: ${error.message}`);
    throw error;
  }
  return cliEstimator(name, await loadVectorizer(options, io), command);
}

async function run(options: AdvantagesOptions, io: CliIo): Promise<void> {
  // The name, and whether it needs a vectorizer, are checked before any file is read.
  const estimator = await estimatorFor(options.estimator, options, io, 'rl-adv advantages');
  const file = options.input;
  // Checked before anything is read or computed: nothing a user gave is overwritten.
  await refuseToOverwrite(file, '--input', options.output, '--output');
  const rows = await readJsonl(file, io, '--input');
  const batch = batchFromRows(rows, fieldsUsed(options.estimator));
  let result: EstimatorResult;
  try {
    result = estimator.compute(batch);
  } catch (error) {
    if (error instanceof RlAdvantagesError) throw atRow(error, file, ROW_FIELDS, (i) => rows[i]?.line);
    throw error;
  }
  const lines = new Array<string>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    lines[i] = JSON.stringify({
      advantage: result.advantages[i],
      baseline: result.baselines[i],
      loo_mean: result.looMean[i],
    });
  }
  await writeText(options.output, lines.join('\n') + '\n', io, '--output');
  if (options.output !== STDIO) {
    io.stderr.write(`rl-adv: wrote ${plural(rows.length, 'advantage')} (${options.estimator}) to ${displayName(options.output, 'out')}\n`);
  }
}

/** Registers `rl-adv advantages`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('advantages')
    .summary('compute the advantage of every rollout of one batch')
    .description(
      'Computes A_i = r_i - b_i for one batch of rollouts with a named estimator (docs/method.md section 2).\n' +
        'Input: JSON lines, one rollout a line, {"prompt": "...", "reward": 1, "group": "q7"} (group for the ' +
        'group estimators; "features": [..] for kernel_loo; other fields are ignored). The whole input is one batch.\n' +
        'Output: JSON lines {"advantage", "baseline", "loo_mean"} in input order.',
    )
    .requiredOption('--estimator <name>', `the estimator: ${ESTIMATOR_NAMES.join(', ')}`);
  addVectorizerOptions(command)
    .option('--input <file>', 'the rollouts, JSON lines ("-" for standard input)', STDIO)
    .option('--output <file>', 'where to write the advantages ("-" for standard output)', STDIO)
    .action(async (options: AdvantagesOptions) => run(options, io));
  withExamples(command, [
    'rl-adv advantages --estimator group_mean --input rollouts.jsonl',
    'rl-adv advantages --estimator tfidf_kernel_loo_T0.1 --corpus train.jsonl --input rollouts.jsonl --output adv.jsonl',
  ]);
}
