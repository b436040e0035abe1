// rl-adv advantages: one batch of rollouts in (JSON lines), one advantage per rollout out.
import type { Command } from 'commander';
import { RlAdvantagesError } from '../../errors.js';
import { isStatefulEstimator } from '../../estimators/registry.js';
import type { Batch, Estimator, EstimatorDiagnostics, EstimatorResult } from '../../estimators/types.js';
import { plural } from '../format.js';
import { cliEstimator, fieldsUsed, type BatchField, type CliEstimatorOptions, type CliEstimatorSpec } from '../estimator.js';
import { addEstimatorModuleOption, loadEstimatorModules } from '../estimator-modules.js';
import { addEstimatorJsonOption, estimatorLabel, estimatorMessage, estimatorSpecOf } from '../estimator-json.js';
import { atRow, displayName, loadVectorizer, readJsonl, STDIO, type Row, type VectorizerOptions } from '../io.js';
import { forceOption, inputOption, kernelFiles, outputOption, writeOutput } from '../outputs.js';
import { addNormalizeOptions, addVectorizerOptions, normalizeContext, OPTION_FLAGS } from '../options.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';

interface AdvantagesOptions {
  estimator?: string;
  estimatorJson?: string;
  estimatorModule?: string[];
  corpus?: string;
  corpusField: string;
  vectorizer?: string;
  input: string;
  output: string;
  force?: boolean;
  normalize?: string;
  epsilon?: number;
  stdFloor?: number;
  singleton?: string;
}

/** The batch fields a row may give, by library name: row field `group` is the batch's `groupIds`. */
const ROW_FIELDS = {
  rewards: 'reward',
  prompts: 'prompt',
  groupIds: 'group',
  features: 'features',
  lengths: 'length',
  greedyRewards: 'greedy_reward',
  rewardComponents: 'reward_components',
  mask: 'masked',
} as const;

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
 * Reads input rows `{prompt?, reward, group?, features?, length?, greedy_reward?, reward_components?, masked?}` into one
 * batch. Other fields, and the fields of that list the estimator does not read (`uses`, default all), are
 * ignored. A row with `"masked": true` may give its reward as null (or not at all).
 */
export function batchFromRows(rows: readonly Row[], uses: ReadonlySet<BatchField> = fieldsUsed('')): Batch {
  const masked = rows.map((r) => (r.has('masked') ? r.boolean('masked') : false));
  const rewards = rows.map((r, i) =>
    masked[i] && (!r.has('reward') || r.value.reward === null) ? Number.NaN : r.number('reward', 'each row needs its reward, a finite number'),
  );
  const batch: { -readonly [K in keyof Batch]: Batch[K] } = { rewards };
  if (uses.has('prompts') && allOrNone(rows, 'prompt')) batch.prompts = rows.map((r) => r.string('prompt'));
  // Groups given on every row are read even when the estimator ignores them: the diagnostics count them.
  const groups = uses.has('groupIds') ? allOrNone(rows, 'group') : rows.every((r) => r.has('group'));
  if (groups) batch.groupIds = rows.map((r) => r.id('group'));
  if (uses.has('features') && allOrNone(rows, 'features')) batch.features = rows.map((r) => r.numbers('features'));
  if (uses.has('lengths') && allOrNone(rows, 'length')) batch.lengths = rows.map((r) => r.number('length'));
  if (uses.has('greedyRewards') && allOrNone(rows, 'greedy_reward')) batch.greedyRewards = rows.map((r) => r.number('greedy_reward'));
  if (uses.has('rewardComponents') && allOrNone(rows, 'reward_components')) batch.rewardComponents = rows.map((r) => r.numbers('reward_components'));
  if (masked.includes(true)) batch.mask = masked;
  return batch;
}

/**
 * One line of diagnostics, for stderr: `4 groups (1 of one, 0 zero-variance), 25% of advantages exactly 0`. When
 * every group is of one and the estimator's baseline comes from across the batch (`acrossBatch`, e.g. GS1's
 * kernel), the line says that this is the design, not a fault.
 */
export function diagnosticsLine(d: EstimatorDiagnostics, acrossBatch = false): string {
  const percent = Math.round(d.zeroAdvantageFraction * 1000) / 10;
  const design =
    acrossBatch && d.groups > 1 && d.groupsOfOne === d.groups
      ? '; every rollout is a group of one (no "group" field, or one rollout a prompt: GS1\'s design), and this estimator ' +
        "takes each rollout's baseline from the other prompts of the batch, so groups of one are expected"
      : '';
  return (
    `${d.groups} group${d.groups === 1 ? '' : 's'} (${d.groupsOfOne} of one, ${d.zeroVarianceGroups} zero-variance), ` +
    `${percent}% of advantages exactly 0${d.masked > 0 ? `, ${d.masked} masked` : ''}${design}`
  );
}

/**
 * Creates the named estimator, fitting or loading the vectorizer when one is given; a bad name or a
 * missing vectorizer is reported before the input is read.
 */
export async function estimatorFor(
  spec: CliEstimatorSpec,
  options: VectorizerOptions,
  io: CliIo,
  command: string,
  estimatorOptions: CliEstimatorOptions = {},
): Promise<Estimator> {
  const hasSource = options.corpus !== undefined || options.vectorizer !== undefined;
  const label = estimatorLabel(spec);
  const create = (vectorizer: Parameters<typeof cliEstimator>[1]): Estimator => {
    try {
      return cliEstimator(spec, vectorizer, command, estimatorOptions);
    } catch (error) {
      if (error instanceof RlAdvantagesError) {
        const flag = typeof spec !== 'string' || error.field === undefined ? undefined : OPTION_FLAGS[error.field];
        throw new CliUsageError(`${flag ?? label}: ${estimatorMessage(spec, error.message)}`);
      }
      throw error;
    }
  };
  if (isStatefulEstimator(spec)) {
    throw new CliUsageError(`${label}: ${typeof spec === 'string' ? spec : spec.name} keeps state across training steps (a per-prompt value, or running moments); one batch has no history: use rl-adv serve with a "session" id`);
  }
  // Without a source this also reports a prompt-kernel estimator's missing vectorizer.
  if (!hasSource) return create(undefined);
  return create(await loadVectorizer(options, io));
}

async function run(options: AdvantagesOptions, io: CliIo): Promise<void> {
  // The name, and whether it needs a vectorizer, are checked before any file is read.
  await loadEstimatorModules(options.estimatorModule);
  const spec = estimatorSpecOf(options);
  const estimator = await estimatorFor(spec, options, io, 'rl-adv advantages', normalizeContext(options));
  const file = options.input;
  const rows = await readJsonl(file, io, '--input');
  const batch = batchFromRows(rows, fieldsUsed(spec));
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
      ...(result.dropped === undefined ? {} : { dropped: result.dropped[i] === 1 }),
    });
  }
  await writeOutput(options.output, lines.join('\n') + '\n', io, '--output', options.force === true);
  if (options.output !== STDIO) {
    io.stderr.write(`rl-adv: wrote ${plural(rows.length, 'advantage')} (${estimator.name}) to ${displayName(options.output, 'out')}\n`);
  }
  io.stderr.write(`rl-adv: ${diagnosticsLine(result.diagnostics, !fieldsUsed(spec).has('groupIds'))}\n`);
}

/** Registers `rl-adv advantages`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('advantages')
    .summary('compute the advantage of every rollout of one batch')
    .description(
      'Computes A_i = r_i - b_i for one batch of rollouts with a named estimator (docs/method.md section 2).\n' +
        'Input: JSON lines, one rollout a line, {"prompt": "...", "reward": 1, "group": "q7"} (group for the ' +
        'group estimators; "features": [..] for kernel_loo; "length" for opo and reinforce_plus_plus_baseline; ' +
        '"greedy_reward" for remax; "reward_components": [..] for gdpo; "masked": true leaves a rollout out of every baseline (its reward may be null); ' +
        'other fields are ignored). The whole input is one batch.\n' +
        'Output: JSON lines {"advantage", "baseline", "loo_mean", "dropped"? (normalisation presets)} in input order; on stderr one line of diagnostics ' +
        '(groups, groups of one, zero-variance groups, the share of advantages exactly 0; docs/method.md section 2.1).',
    )
    .addOption(inputOption('--estimator <name>', 'the estimator, e.g. group_mean or tfidf_kernel_loo_T0.1 (rl-adv estimators lists them)', kernelFiles));
  addEstimatorJsonOption(command);
  addEstimatorModuleOption(command);
  addNormalizeOptions(command);
  addVectorizerOptions(command)
    .addOption(inputOption('--input <file>', 'the rollouts, JSON lines ("-" for standard input)').default(STDIO))
    .addOption(outputOption('--output <file>', 'where to write the advantages ("-" for standard output)').default(STDIO))
    .addOption(forceOption())
    .action(async (options: AdvantagesOptions) => run(options, io));
  withExamples(command, [
    'rl-adv advantages --estimator group_mean --input rollouts.jsonl',
    'rl-adv advantages --estimator tfidf_kernel_loo_T0.1 --corpus train.jsonl --input rollouts.jsonl --output adv.jsonl',
    `rl-adv advantages --estimator-json '{"name": "group_mean_std", "epsilon": 1e-4}' --input rollouts.jsonl`,
  ]);
}
