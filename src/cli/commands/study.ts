// rl-adv study: the whole protocol (docs/method.md section 8) as one resumable command. Exit 0 when the study reaches its
// decision, 1 when the activation gate (or the preflight) stops it, 2 for bad input.
import cliProgress from 'cli-progress';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { ensureGsm8kDir } from '../../data/ensure.js';
import { createTinkerBackend } from '../../study/backends/tinker.js';
import { createTrlBackend } from '../../study/backends/trl.js';
import { specArithSection } from '../../study/load-questions.js';
import type { StudyBackend } from '../../study/backends/types.js';
import type { PhaseEvent } from '../../study/options.js';
import { runStudyWithReports } from '../../report/write.js';
import { createSimBackend } from '../../study/sim/backend.js';
import type { SimQuestionSet } from '../../study/sim/questions.js';
import { SIM_DEFAULTS, simDefaults } from '../../study/sim/world.js';
import { CliExit, CliUsageError, EXIT_CODES, withExamples, type CliIo } from '../core.js';
import { downloadReporter } from '../download-progress.js';
import { integerOption } from '../options.js';
import { formatFigure } from '../../internal/figures.js';
import { readSpec, refuseUnknownGateMetrics } from '../spec.js';
import { SHIPPED_SPEC, shippedSpecPath, specOption } from '../shipped-spec.js';
import { TUNING_TASKS } from '../../study/summary.js';
import { registerRevise } from './study-revise.js';
import { couplingOption, questionSetOption } from './study-options.js';
import { addExecutorOptions, checkExecutorFlags, executorOf, formatJobGraph, registerStudyJob, type ExecutorCliOptions } from './study-executor.js';
import { planStudy } from '../../study/study-job.js';
import type { StudyOptions } from '../../study/options.js';

interface StudyCliOptions extends ExecutorCliOptions {
  spec?: string;
  out?: string;
  backend: string;
  seed: number;
  resume?: boolean;
  simCoupling?: number;
  simQuestions?: SimQuestionSet;
  dataDir?: string;
  steps?: number;
  evalLimit?: number;
  jobs?: number;
  calibrationBatches?: number;
  calibrationInterval?: 'jackknife' | 'none';
  tuneKernel?: boolean;
  tuningTasks?: number;
  tuningBatches?: number;
  python?: string;
  model?: string;
}


/** Progress bars on a terminal; one plain line per phase otherwise. */
function progressPrinter(io: CliIo): (event: PhaseEvent) => void {
  const tty = (io.stderr as { isTTY?: boolean }).isTTY === true;
  let bar: cliProgress.SingleBar | undefined;
  let barLabel = '';
  const stopBar = (): void => {
    bar?.stop();
    bar = undefined;
  };
  return (event) => {
    if (event.kind === 'note') {
      stopBar();
      io.stderr.write(`rl-adv study: ${event.line}\n`);
    } else if (event.kind === 'end') {
      stopBar();
      io.stderr.write(`rl-adv study: ${event.phase}: ${event.line} (${event.seconds.toFixed(1)} s)\n`);
    } else if (event.kind === 'start') {
      stopBar();
      if (!tty && event.label === event.phase) io.stderr.write(`rl-adv study: ${event.phase}...\n`);
      barLabel = event.label;
    } else if (tty && event.total > 1) {
      if (bar === undefined) {
        bar = new cliProgress.SingleBar(
          { stream: io.stderr, format: `${barLabel} [{bar}] {value}/{total}`, hideCursor: true, clearOnComplete: true },
          cliProgress.Presets.shades_classic,
        );
        bar.start(event.total, 0);
      }
      bar.update(event.done);
    }
  };
}

/** The backend --backend names, with its own options checked; the TRL backend probes what the spec needs first. */
function chooseBackend(options: StudyCliOptions, specFile: string): StudyBackend {
  if (options.backend !== 'sim') {
    if (options.simCoupling !== undefined) throw new CliUsageError('--sim-coupling applies to --backend sim only');
    if (options.simQuestions !== undefined) {
      throw new CliUsageError(`--sim-questions applies to --backend sim only (--backend ${options.backend} trains on the spec's data)`);
    }
  }
  if (options.backend !== 'trl') {
    if (options.python !== undefined) throw new CliUsageError('--python applies to --backend trl only');
    if (options.model !== undefined) throw new CliUsageError('--model applies to --backend trl only');
  }
  if (options.backend === 'sim') {
    // Each question set has its own sim defaults (docs/sim.md); --sim-coupling overrides the coupling of either.
    const defaults = simDefaults(options.simQuestions ?? 'gsm8k');
    return createSimBackend({ ...defaults, coupling: options.simCoupling ?? defaults.coupling });
  }
  if (options.backend === 'tinker') return createTinkerBackend();
  if (options.backend === 'trl') {
    return createTrlBackend({
      specPath: specFile,
      ...(options.python !== undefined ? { python: options.python } : {}),
      ...(options.model !== undefined ? { model: options.model } : {}),
    });
  }
  throw new CliUsageError(`--backend must be "sim", "tinker" or "trl", got ${JSON.stringify(options.backend)}`);
}

async function run(options: StudyCliOptions & { out: string }, io: CliIo): Promise<void> {
  // A gate check on a metric rl-adv never computes could only ever be `missing`: refuse it by name, before any work.
  const specFile = options.spec ?? shippedSpecPath();
  const spec = await readSpec(specFile, io);
  await refuseUnknownGateMetrics(specFile, spec, io);
  const backend = chooseBackend(options, specFile);
  // GSM8K questions: --data-dir, GSM8K_DIR or the cache, downloaded into the cache on first use (not for a spec whose
  // world is generated in code, nor for the sim's built-in set).
  let dataDir = options.dataDir;
  if ((options.simQuestions ?? 'gsm8k') === 'gsm8k' && specArithSection(spec) === undefined) {
    const reporter = downloadReporter(io, 'rl-adv study');
    try {
      dataDir = await ensureGsm8kDir(options.dataDir, reporter);
    } finally {
      reporter.stop();
    }
  }
  const studyOptions: StudyOptions = {
    specPath: specFile,
    dir: options.out,
    backend,
    seed: options.seed,
    resume: options.resume === true,
    ...(options.simQuestions !== undefined ? { questions: options.simQuestions } : {}),
    ...(dataDir !== undefined ? { dataDir } : {}),
    ...(options.steps !== undefined ? { steps: options.steps } : {}),
    ...(options.evalLimit !== undefined ? { evalLimit: options.evalLimit } : {}),
    ...(options.jobs !== undefined ? { jobs: options.jobs } : {}),
    ...(options.calibrationBatches !== undefined ? { calibrationBatches: options.calibrationBatches } : {}),
    // run.json keeps its field calibration_bootstrap (0: no interval, else the jackknife) so old runs still resume.
    ...(options.calibrationInterval === 'none' ? { calibrationBootstrap: 0 } : {}),
    ...(options.tuneKernel === true ? { tuneKernel: true } : {}),
    ...(options.tuningTasks !== undefined ? { tuningTasks: options.tuningTasks } : {}),
    ...(options.tuningBatches !== undefined ? { tuningBatches: options.tuningBatches } : {}),
    ...(options.jobRetries !== undefined ? { jobRetries: options.jobRetries } : {}),
    ...(options.jobGpus !== undefined ? { jobGpus: options.jobGpus } : {}),
    ...(options.jobCpus !== undefined ? { jobCpus: options.jobCpus } : {}),
    onPhase: progressPrinter(io),
  };
  // The executor's flags are checked (and a cluster joined) only for a real run; --dry-run runs nothing.
  if (options.dryRun === true) {
    checkExecutorFlags(options);
    io.stdout.write(formatJobGraph(await planStudy(studyOptions)));
    return;
  }
  const executor = await executorOf(options);
  // Ctrl-C: every running job is cancelled (the run resumes with --resume), exit 130. A sim computing its jobs in
  // this process keeps the default (it stops at once): its synchronous steps would hold a handler back.
  const interrupt = new AbortController();
  const onSigint = (): void => {
    io.stderr.write('rl-adv study: interrupted: cancelling the running jobs (continue with --resume)\n');
    interrupt.abort();
    process.removeListener('SIGINT', onSigint);
  };
  const jobsAreProcesses = backend.name !== 'sim' || executor?.name === 'ray';
  if (jobsAreProcesses) process.on('SIGINT', onSigint);
  let outcome: Awaited<ReturnType<typeof runStudyWithReports>>;
  try {
    outcome = await runStudyWithReports({ ...studyOptions, ...(executor !== undefined ? { executor } : {}), signal: interrupt.signal });
  } catch (error) {
    if (interrupt.signal.aborted) throw new CliExit(130, `interrupted; continue with: rl-adv study --out ${options.out} --resume (and the same options)`);
    throw error;
  } finally {
    process.removeListener('SIGINT', onSigint);
    await executor?.close();
  }
  const { exitCode, summary } = outcome;
  const comparisons = summary.comparisons?.map((c) => `${c.id} ${c.verdict}`).join(', ');
  const verdict = summary.decision
    ? `decision ${summary.decision.verdict}`
    : comparisons !== undefined
      ? `comparisons (${summary.multiplicity?.procedure ?? '?'}): ${comparisons}`
      : summary.gate && !summary.gate.passed
        ? 'activation gate FAILED (run stopped)'
        : 'stopped';
  io.stdout.write(`${verdict}; summary ${options.out}/summary.json, report ${options.out}/report.md and report.html${backend.simulation ? ' (simulation)' : ''}\n`);
  const learning = summary.learning;
  if (learning !== undefined) {
    for (const [arm, c] of Object.entries(learning.arms)) {
      io.stdout.write(`${arm}: change from the starting policy ${formatFigure(c.estimate)} in [${formatFigure(c.interval[0])}, ${formatFigure(c.interval[1])}] (${learning.method})${c.improved ? '' : ', not an improvement'}\n`);
    }
    if (learning.no_arm_improved) io.stdout.write('WARNING: no arm improved on the starting policy; the verdict compares arms that did not learn\n');
  }
  if (exitCode !== 0) throw new CliExit(EXIT_CODES.gateFailed);
}

/** Registers `rl-adv study`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('study')
    // `study --spec` and `study revise --spec` are different options: the study's own are read before `revise` only.
    .enablePositionalOptions()
    .summary('run the whole study (preflight, calibration, pilot, gate, arms, eval, decision) into a folder')
    .description(
      'Runs the protocol of docs/method.md section 8 for a spec, phase by phase, writing every artifact atomically\n' +
        'into --out with summary.json, report.md and report.html. --backend sim (the default) is a SIMULATION on the real\n' +
        'GSM8K questions or, with --sim-questions clustered, on a built-in set of templated question families\n' +
        '(docs/sim.md); --backend tinker runs the Tinker drivers of examples/tinker-cookbook\n' +
        '(needs TINKER_API_KEY and python3 with the pinned cookbook); --backend trl trains for real with TRL through\n' +
        'the Python package (python -m rl_advantages.study; specs/arith-gs1-vs-grpo.json runs on a CPU, docs/trl.md).\n' +
        '--resume continues an interrupted run\n' +
        'with the same numbers as an uninterrupted one. Exit 0 when the study reaches its decision, 1 when\n' +
        'the activation gate fails (the length_bucket_loo fallback is scored and recorded; the gate is never\n' +
        'relaxed), 2 for bad input. --tune-kernel adds the tuning phase (a kernel tuned on train tasks the study\n' +
        'does not otherwise use); `rl-adv study revise` writes the revised spec that adopts it.',
    )
    .addOption(specOption(`the study spec (JSON; default: the shipped specs/${SHIPPED_SPEC}, see rl-adv spec print)`))
    .option('--out <dir>', 'the run folder (must be empty or absent unless --resume; required)')
    .option('--backend <name>', 'sim (a simulation), tinker, or trl (real training with TRL; docs/trl.md)', 'sim')
    .option('--python <path>', 'trl: the Python with the rl-advantages package and TRL (default: $RL_ADV_PYTHON, else python3)')
    .option('--model <dir>', "trl: a local starting policy (a transformers model folder) instead of the spec's base_model")
    .option('--seed <n>', 'the study seed', integerOption(0), 0)
    .option('--resume', 'continue the run in --out')
    .option('--sim-coupling <u>', `sim: how much difficulty follows prompt similarity, in [0, 1] (default ${SIM_DEFAULTS.coupling})`, couplingOption)
    .option(
      '--sim-questions <set>',
      'sim: gsm8k (the real GSM8K questions of --data-dir, the default) or clustered (a built-in set of templated ' +
        'question families, where the TF-IDF kernel can help; takes no --data-dir)',
      questionSetOption,
    )
    .option(
      '--data-dir <dir>',
      'GSM8K folder with train.jsonl and test.jsonl (default: $GSM8K_DIR, else the cache, downloaded there on first use: see rl-adv data gsm8k; not with --sim-questions clustered)',
    )
    .option('--steps <n>', "override every arm's steps (quick runs; recorded in the report)", integerOption(1))
    .option('--eval-limit <n>', 'evaluate only the first N test items (quick runs; recorded)', integerOption(1))
    .option('--jobs <n>', "the most arm x seed jobs (train, eval) at once, each single-threaded; the artifacts are the same for any value (default: the machine's cores)", integerOption(1))
    .option('--calibration-batches <n>', 'B_eff calibration batches (default 20000)', integerOption(2))
    .addOption(
      new Option('--calibration-interval <kind>', "the B_eff ratio's 95% interval: the delete-one-task jackknife, or none (default jackknife)").choices([
        'jackknife',
        'none',
      ]),
    )
    .addOption(
      new Option('--calibration-bootstrap <n>', 'removed: an error that names --calibration-interval')
        .argParser((value: string): never => {
          throw new InvalidArgumentError(
            `the percentile bootstrap was removed (it put a task twice in a batch; its intervals were about 5 times too wide, docs/method.md section 4.1); got ${JSON.stringify(value)}. The B_eff interval is the delete-one-task jackknife; give --calibration-interval none to leave it out`,
          );
        })
        .hideHelp(),
    )
    .option(
      '--tune-kernel',
      "add the tuning phase: the starting policy's rollouts (one per task) on train tasks neither arm reaches nor the gate uses " +
        '(tuning.jsonl), and a kernel tuned on them by tune-kernel (kernel.json). This run\'s arms never change: adopt the ' +
        'kernel with rl-adv study revise',
    )
    .option('--tuning-tasks <n>', `with --tune-kernel: tasks in the tuning phase (default ${TUNING_TASKS})`, integerOption(1))
    .option('--tuning-batches <n>', "with --tune-kernel: tune-kernel's scoring batches per candidate (default: tune-kernel's)", integerOption(1));
  addExecutorOptions(command);
  command.action(async (options: StudyCliOptions, self: Command) => {
      // Not a requiredOption: commander checks a parent's required options for its subcommands too (study revise).
      if (options.out === undefined) self.error("error: required option '--out <dir>' not specified");
      await run(options as StudyCliOptions & { out: string }, io);
    });
  withExamples(command, [
    "rl-adv study --out runs/sim   # the shipped spec, the record's regime: the gate fails (exit 1)",
    'rl-adv study --out runs/sim-clustered --sim-questions clustered --sim-coupling 0.9   # runs to a decision',
    'rl-adv study --spec my.spec.json --out runs/mine   # your copy of rl-adv spec print',
    'rl-adv study --out runs/sim --resume',
    'rl-adv study --backend trl --spec specs/arith-gs1-vs-grpo.json --out runs/trl --python .venv/bin/python   # real training on a CPU',
    'rl-adv study --out runs/sim-tuned --tune-kernel   # also tunes a kernel on 1000 free train tasks (not adopted)',
  ]);
  registerRevise(command, io);
  registerStudyJob(command, io);
}
