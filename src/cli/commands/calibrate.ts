// rl-adv calibrate: the B_eff calibration of docs/method.md section 4 on calibration.jsonl rows.
import cliProgress from 'cli-progress';
import { Option, type Command } from 'commander';
import { calibrateBeff, groupCalibrationRows, type BeffCalibration, type CalibrationRow, type CalibrateBeffOptions } from '../../calibration/beff.js';
import { calibrationJson, type VectorizerSource } from '../../calibration/json.js';
import { RlAdvantagesError } from '../../errors.js';
import { checkRewardInBound } from '../../estimators/batch.js';
import { isStatefulEstimator, parseEstimatorName } from '../../estimators/registry.js';
import { needsVectorizer } from '../estimator.js';
import { addEstimatorModuleOption, loadEstimatorModules } from '../estimator-modules.js';
import type { LoadedKernel } from '../../kernels/kernel-file.js';
import { resolveKernelEstimatorName } from '../../kernels/resolve.js';
import { num, plural, table } from '../format.js';
import { calibrationPage } from '../../report/pages.js';
import { atRow, displayName, inputError, loadVectorizer, readJsonl, type Row } from '../io.js';
import { forceOption, inputOption, kernelFiles, outputOption, writeOutput } from '../outputs.js';
import { addVectorizerOptions, flagNames, integerOption, listOption, nonNegativeOption } from '../options.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';

interface CalibrateOptions {
  input: string;
  corpus?: string;
  corpusField: string;
  vectorizer?: string;
  batchSize: number;
  estimators: string[];
  reference: string;
  batches: number;
  interval: 'jackknife' | 'none';
  noise: 'pooled' | 'per-task';
  bootstrap?: number;
  seed: string;
  json?: boolean;
  html?: string;
  output: string;
  force?: boolean;
  bar: number;
  estimatorModule?: string[];
}

/** The library's option names, as the command line spells them. */
const OPTION_NAMES: Readonly<Record<string, string>> = {
  batchSize: '--batch-size',
  batches: '--batches',
  interval: '--interval',
  noise: '--noise',
  estimators: '--estimators',
  estimator: '--estimators',
  reference: '--reference',
  seed: '--seed',
  vectorizer: '--corpus/--vectorizer',
};

/** The readable form: the set-up, then one row per estimator. */
export function calibrationText(c: BeffCalibration): string {
  const mode =
    c.mode === 'corrected'
      ? `corrected mode (every task has G >= 2 rollouts), sigma_eps^2 = ${num(c.sigmaEps2)}`
      : 'single-rollout mode (one rollout a task: the target is r itself, no sigma_eps^2, no B_eff)';
  const interval = c.intervalMethod === 'jackknife' ? 'delete-one-task jackknife 95% intervals' : 'no interval';
  const noise = c.mode === 'corrected' ? `, ${c.noise} noise` : '';
  const rows = Object.entries(c.estimators).map(([name, e]) => [
    name,
    num(e.mseRaw),
    num(e.mseCorrected),
    num(e.beff, 2),
    num(e.ratio),
    num(e.ratioSe),
    e.ratioCi95 === null ? '-' : `[${num(e.ratioCi95[0])}, ${num(e.ratioCi95[1])}]`,
    num(e.explainedVariance ?? null),
  ]);
  return (
    `B_eff calibration (docs/method.md section 4): ${plural(c.tasks, 'task')}, ${plural(c.rollouts, 'rollout')}, ${mode}\n` +
    `B = ${c.batchSize}, ${c.batches} batches${noise}, ${interval}, seed ${JSON.stringify(c.seed)}\n\n` +
    table(['estimator', 'MSE raw', 'MSE corrected', 'B_eff', `ratio vs ${c.reference}`, 'MC SE', '95% CI (tasks)', 'EV'], rows) +
    '\nratio = B_eff(estimator) / B_eff(reference) = Var(A_reference) / Var(A_estimator); above 1 the estimator is better.\n' +
    'EV = 1 - sum (r - b)^2 / sum (r - rbar)^2 (the explained variance of EVPO, > 0 when b beats no baseline); ratio ~ (1 - EV_ref) / (1 - EV) (docs/method.md section 4.4).\n' +
    Object.entries(c.inSample ?? {})
      .map(([name, s]) => `IN-SAMPLE: ${name} was tuned on ${s.tasks} of these ${s.of} tasks; its ratio is not what to expect on new tasks.\n`)
      .join('')
  );
}

/** Reads calibration rows `{task_id, prompt, reward}` (other fields ignored). */
export function readRows(rows: readonly Row[]): CalibrationRow[] {
  const what = 'each row is one rollout {task_id, prompt, reward}';
  const first = new Map<string, Row>();
  return rows.map((row) => {
    const taskId = row.string('task_id', what);
    const prompt = row.string('prompt', what);
    const reward = row.number('reward', what);
    try {
      checkRewardInBound('reward', 0, reward, 'reward'); // the check advantages makes, in the same words
    } catch (error) {
      throw error instanceof RlAdvantagesError ? atRow(error, row.file, {}, () => row.line) : error;
    }
    const earlier = first.get(taskId);
    if (earlier === undefined) first.set(taskId, row);
    else if (earlier.value.prompt !== prompt) {
      throw row.error(
        'prompt',
        `differs from the prompt of task ${JSON.stringify(taskId)} on line ${earlier.line}; every rollout of a task has the same prompt`,
      );
    }
    return { task_id: taskId, prompt, reward };
  });
}

/** A progress bar on stderr, only when stderr is a terminal (never in a pipe or a log file). */
function progress(io: CliIo): { onProgress?: (done: number, total: number) => void; stop(): void } {
  if ((io.stderr as { isTTY?: boolean }).isTTY !== true) return { stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: io.stderr, format: 'calibrating [{bar}] {percentage}% | {value}/{total} batches | ETA {eta}s', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress: (done, total) => {
      if (!started) {
        bar.start(total, done);
        started = true;
      } else bar.update(done);
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

/** Where the vectorizer came from, for the JSON form (what reproduces the calibration). */
function vectorizerSource(options: CalibrateOptions): VectorizerSource {
  if (options.corpus !== undefined) return { corpus: options.corpus, corpus_field: options.corpusField };
  if (options.vectorizer !== undefined) return { file: options.vectorizer };
  return null;
}

async function run(options: CalibrateOptions, io: CliIo): Promise<void> {
  await loadEstimatorModules(options.estimatorModule);
  // prompt_value learns across steps; a calibration scores one batch at a time: skipped, and said so.
  if (isStatefulEstimator(options.reference)) {
    throw new CliUsageError(`--reference ${options.reference}: a stateful estimator has no one-batch baseline; give a one-step estimator such as loo_batch_mean`);
  }
  for (const name of options.estimators.filter(isStatefulEstimator)) {
    io.stderr.write(`rl-adv: skipping ${name}: it keeps state across training steps (a per-prompt value, or running moments), and a calibration scores one batch at a time\n`);
  }
  options = { ...options, estimators: options.estimators.filter((name) => !isStatefulEstimator(name)) };
  if (options.bootstrap !== undefined) {
    throw new CliUsageError(
      `--bootstrap ${options.bootstrap}: the percentile bootstrap was removed (it put a task twice in a batch; its intervals were about 5 times too wide, docs/method.md section 4.1); the interval is now the delete-one-task jackknife (--interval jackknife, the default) or none (--interval none)`,
    );
  }
  const names = [options.reference, ...options.estimators];
  const kernelFiles: Record<string, LoadedKernel> = {};
  for (const name of names) {
    try {
      // kernel:PATH, the path relative to the current directory.
      const resolved = resolveKernelEstimatorName(name, process.cwd());
      if (resolved === null) parseEstimatorName(name);
      else kernelFiles[name] = resolved.kernel;
    } catch (error) {
      if (error instanceof RlAdvantagesError) {
        throw new CliUsageError(`${name === options.reference ? '--reference' : '--estimators'} ${name}: ${error.message}`);
      }
      throw error;
    }
  }
  // The input is read and checked first: a bad row or too few tasks is reported before a corpus is
  // asked for or fitted.
  const file = options.input;
  const rows = await readJsonl(file, io, '--input');
  const lineOf = (i: number) => rows[i]?.line;
  let tasks;
  try {
    tasks = groupCalibrationRows(readRows(rows));
  } catch (error) {
    if (error instanceof RlAdvantagesError) throw atRow(error, file, {}, lineOf);
    throw error;
  }
  // Task k's first row, for errors the calibration raises about task k.
  const firstLine = new Map<string, number>();
  for (const row of rows) if (!firstLine.has(row.value.task_id as string)) firstLine.set(row.value.task_id as string, row.line);
  if (options.batchSize > tasks.length) {
    throw new CliUsageError(
      `--batch-size ${options.batchSize} exceeds the number of tasks (${tasks.length}) in ${displayName(file)}; a batch holds ` +
        `B distinct tasks, so give --batch-size ${tasks.length} or less, or more tasks`,
    );
  }
  const kernels = names.filter(needsVectorizer);
  if (kernels.length > 0 && options.corpus === undefined && options.vectorizer === undefined) {
    throw new CliUsageError(
      `${kernels.join(', ')} weigh${kernels.length === 1 ? 's' : ''} rollouts by prompt similarity: give --corpus FILE (e.g. the GSM8K train questions) or --vectorizer FILE (saved by rl-adv tfidf fit)`,
    );
  }
  const vectorizer = await loadVectorizer(options, io);

  const bar = progress(io);
  const calibrateOptions: CalibrateBeffOptions = {
    batchSize: options.batchSize,
    batches: options.batches,
    interval: options.interval,
    noise: options.noise,
    estimators: options.estimators,
    reference: options.reference,
    kernels: kernelFiles,
    // An integer seed is the number (so `--seed 7` reproduces `calibrateBeff(tasks, { seed: 7 })`).
    seed: /^-?\d+$/.test(options.seed) ? Number(options.seed) : options.seed,
    ...(vectorizer === undefined ? {} : { vectorizer }),
    ...(bar.onProgress === undefined ? {} : { onProgress: bar.onProgress }),
    onWarning: (message) => io.stderr.write(`rl-adv: warning: ${message}\n`),
  };
  let result: BeffCalibration;
  try {
    result = calibrateBeff(tasks, calibrateOptions);
  } catch (error) {
    if (!(error instanceof RlAdvantagesError)) throw error;
    const option = error.field === undefined ? undefined : OPTION_NAMES[error.field];
    if (option !== undefined) {
      // The library's option names (batchSize) become the flags the user typed (--batch-size).
      const message = flagNames(error.message, OPTION_NAMES);
      throw new CliUsageError(message.startsWith(option) ? message : `${option}: ${message}`);
    }
    // Errors about a task (e.g. mixed group sizes) name it by its index among the tasks.
    const task = error.index === undefined ? undefined : tasks[error.index];
    throw inputError(file, task === undefined ? undefined : firstLine.get(task.taskId), undefined, error.message);
  } finally {
    bar.stop();
  }
  const json = calibrationJson(result, vectorizerSource(options));
  const force = options.force === true;
  if (options.html !== undefined) await writeOutput(options.html, await calibrationPage(json, options.bar), io, '--html', force);
  const text = options.json === true ? JSON.stringify(json, null, 2) + '\n' : calibrationText(result);
  await writeOutput(options.output, text, io, '--output', force);
}

/** Registers `rl-adv calibrate`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('calibrate')
    .summary('B_eff calibration of estimators on rollouts from the starting policy')
    .description(
      'Scores advantage estimators by their effective batch size B_eff (docs/method.md section 4) on common random ' +
        'batches of B distinct tasks, relative to a reference (default the LOO batch mean), with a Monte-Carlo ' +
        'standard error and a 95% delete-one-task jackknife interval per ratio (how much it could change with other ' +
        'tasks); one seed drives every draw.\n' +
        'Input: JSON lines, one rollout a line: {"task_id": "gsm8k_train_7400", "prompt": "...", "reward": 1}.\n' +
        'Every task has G >= 2 rollouts (corrected mode) or every task has exactly 1 (single-rollout mode).',
    )
    .addOption(inputOption('--input <file>', 'the calibration rollouts, JSON lines ("-" for standard input)').makeOptionMandatory());
  addVectorizerOptions(command)
    .option('--batch-size <n>', 'B, distinct tasks per batch', integerOption(2), 32)
    .addOption(inputOption('--estimators <names>', 'comma-separated estimators to score', kernelFiles).argParser(listOption).default(['tfidf_kernel_loo_T0.1']))
    .addOption(inputOption('--reference <name>', 'the estimator every ratio is relative to', kernelFiles).default('loo_batch_mean'))
    .option('--batches <n>', 'M, Monte-Carlo batches', integerOption(2), 20000)
    .addOption(
      new Option('--interval <method>', "each ratio's 95% interval over tasks (docs/method.md section 4.1)")
        .choices(['jackknife', 'none'])
        .default('jackknife'),
    )
    .addOption(
      new Option('--noise <model>', 'target noise: pooled sigma_eps^2 (the recipe) or per-task s_k^2, for unequal G (section 4.2)')
        .choices(['pooled', 'per-task'])
        .default('pooled'),
    )
    .addOption(new Option('--bootstrap <n>', 'removed: an error that names --interval').argParser(integerOption(0)).hideHelp())
    .option('--seed <seed>', 'seed of every random draw: the same seed gives the same numbers', '0')
    .option('--json', 'print the calibration JSON (figures and the settings that reproduce them, docs/method.md section 9)')
    .addOption(outputOption('--output <file>', 'where to write the table (or with --json the JSON; "-" for standard output)').default('-'))
    .addOption(outputOption('--html <file>', 'also write the B_eff chart and table as a self-contained HTML page'))
    .addOption(forceOption())
    .option('--bar <ratio>', "the gate's bar drawn on the --html chart (the shipped spec's minimum ratio)", nonNegativeOption, 1.03);
  addEstimatorModuleOption(command)
    .action(async (options: CalibrateOptions) => run(options, io));
  withExamples(command, [
    'rl-adv calibrate --input calibration.jsonl --corpus ~/.cache/rl-advantages/gsm8k/train.jsonl',
    'rl-adv calibrate --input calibration.jsonl --vectorizer gsm8k-train.tfidf.json --estimators tfidf_kernel_loo_T0.1,length_bucket_loo --json > calibration.json',
  ]);
}
