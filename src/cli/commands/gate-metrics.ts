// rl-adv gate-metrics: the activation gate's metrics from a calibration and the pilot's advantage logs,
// printed as the JSON object `rl-adv gate --metrics` reads.
import type { Command } from 'commander';
import type { BeffCalibration } from '../../calibration/beff.js';
import { parseCalibrationJson } from '../../calibration/json.js';
import { RlAdvantagesError } from '../../errors.js';
import { GATE_METRIC_NAMES, gateMetrics, parseAdvantageLog, type AdvantageLogRow, type GateMetricName, type GateMetrics } from '../../study/gate-metrics.js';
import { missingGateMetricReasons } from '../../study/gate-metrics-missing.js';
import { num, table } from '../format.js';
import { inputError, lineOfPath, parseJson, readText } from '../io.js';
import { CliUsageError, withExamples, type CliIo } from '../core.js';
import { forceOption, inputOption, outputOption, writeOutput } from '../outputs.js';
import { readSpec, refuseUnknownGateMetrics } from '../spec.js';

interface GateMetricsOptions {
  spec: string;
  calibration?: string;
  pilotLog: string[];
  json?: boolean;
  output: string;
  force?: boolean;
}

/**
 * Reads the calibration JSON (`rl-adv calibrate --json`, or a study's `calibration/beff.json`) with
 * parseCalibrationJson; a bad field is reported with its file, line and JSON path.
 */
async function readCalibration(file: string, io: CliIo): Promise<BeffCalibration> {
  const text = await readText(file, io, '--calibration');
  const value = parseJson(text, file);
  try {
    return parseCalibrationJson(value);
  } catch (error) {
    if (!(error instanceof RlAdvantagesError) || error.field === undefined) throw error;
    const path = error.field;
    const message = error.message.startsWith(`${path} `) ? error.message.slice(path.length + 1) : error.message;
    // An estimator's name may hold dots (tfidf_kernel_loo_T0.1): split off the section and the figure's key only.
    let keys: string[] = [path];
    if (path.startsWith('estimators.')) {
      const rest = path.slice('estimators.'.length);
      const m = /^(.*)\.(mse_raw|mse_corrected|beff|ratio|ratio_se|ratio_task_se|ratio_ci95)(\[\d\])?$/.exec(rest);
      keys = m === null ? ['estimators', rest] : ['estimators', m[1] as string, m[2] as string];
    } else if (path === 'calibration') {
      throw inputError(file, undefined, undefined, message);
    }
    throw inputError(file, lineOfPath(text, keys), path, message);
  }
}

/** `ARM=FILE` (the file's rows are that arm's; each row's `arm` must agree) or `FILE` (rows grouped by `arm`). */
function splitPilotLog(value: string): { arm?: string; file: string } {
  const m = /^([^=/\\]+)=(.+)$/.exec(value);
  return m === null ? { file: value } : { arm: m[1] as string, file: m[2] as string };
}

async function readPilotLogs(values: readonly string[], io: CliIo): Promise<Record<string, AdvantageLogRow[]>> {
  const logs: Record<string, AdvantageLogRow[]> = {};
  for (const value of values) {
    const { arm, file } = splitPilotLog(value);
    const text = await readText(file, io, '--pilot-log');
    let rows: AdvantageLogRow[];
    try {
      rows = parseAdvantageLog(text, file);
    } catch (error) {
      // parseAdvantageLog already names the file, line and field.
      if (error instanceof RlAdvantagesError) throw new CliUsageError(error.message);
      throw error;
    }
    if (rows.length === 0) throw inputError(file, undefined, undefined, 'holds no log rows (one JSON object a training step)');
    const lines = text.split('\n');
    let row = 0;
    for (let i = 0; i < lines.length; i++) {
      if ((lines[i] as string).trim() === '') continue;
      const r = rows[row++] as AdvantageLogRow;
      if (arm !== undefined && r.arm !== arm) {
        throw inputError(file, i + 1, 'arm', `is ${JSON.stringify(r.arm)}, but --pilot-log ${arm}=${file} says the file is arm ${JSON.stringify(arm)}`);
      }
      (logs[r.arm] ??= []).push(r);
    }
  }
  return logs;
}

/** The library's `pilotLogs` (an object keyed by arm) in the words of --pilot-log files. */
function pilotLogWords(message: string): string {
  return message
    .replace(/^pilotLogs has arm/, 'a log row has arm')
    .replace(/\bpilotLogs\.([^\s[.]+)(\[\d+\])?/g, (_, arm: string) => `the log of arm ${JSON.stringify(arm)}`);
}

/** The readable form: each gate metric and its value, or why it is missing (`reasons`, by metric). */
export function metricsText(metrics: GateMetrics, reasons: Readonly<Partial<Record<GateMetricName, string>>> = {}): string {
  const missing = (name: GateMetricName): string => (reasons[name] === undefined ? 'missing' : `missing: ${reasons[name]}`);
  const rows = GATE_METRIC_NAMES.map((name) => [name, metrics[name] === undefined ? missing(name) : num(metrics[name], 6)]);
  return table(['metric', 'value'], rows) + '\n(a missing metric fails its gate check; --json prints the object rl-adv gate --metrics reads)\n';
}

async function run(options: GateMetricsOptions, io: CliIo): Promise<void> {
  const spec = await readSpec(options.spec, io);
  if (options.pilotLog.length === 0) {
    throw new CliUsageError('give the pilot advantage logs with --pilot-log ARM=FILE (once per arm)');
  }
  // A gate check on a metric no one computes would only ever show "missing": say so now, by name.
  await refuseUnknownGateMetrics(options.spec, spec, io);
  const calibration = options.calibration === undefined ? null : await readCalibration(options.calibration, io);
  const pilotLogs = await readPilotLogs(options.pilotLog, io);
  const input = { calibration, pilotLogs, arms: spec.arms };
  let metrics: GateMetrics;
  let reasons: Partial<Record<GateMetricName, string>>;
  try {
    metrics = gateMetrics(input);
    reasons = missingGateMetricReasons(input, metrics);
  } catch (error) {
    if (error instanceof RlAdvantagesError) throw new CliUsageError(`--pilot-log: ${pilotLogWords(error.message)}`);
    throw error;
  }
  if (options.calibration === undefined) reasons.offline_beff_ratio_tfidf_vs_loo_mean = 'no calibration given (--calibration FILE)';
  if (options.json === true) {
    // stdout is the object rl-adv gate reads; why a metric is missing goes to stderr.
    for (const [name, why] of Object.entries(reasons)) io.stderr.write(`rl-adv: note: ${name} is missing: ${why}\n`);
    await writeOutput(options.output, JSON.stringify(metrics, null, 2) + '\n', io, '--output', options.force === true);
  } else await writeOutput(options.output, metricsText(metrics, reasons), io, '--output', options.force === true);
}

/** Registers `rl-adv gate-metrics`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('gate-metrics')
    .summary("compute the activation gate's metrics from a calibration and pilot logs")
    .description(
      "Computes every metric of the spec's activation_gate (docs/method.md section 6): the offline B_eff ratio from " +
        'the calibration (the output of rl-adv calibrate --json) and the pilot metrics from the per-step ' +
        'advantage logs (advantages.jsonl, one training step of one arm a line). A metric that cannot be ' +
        'computed is left out, and rl-adv gate then fails its check as missing.',
    )
    .addOption(inputOption('--spec <file>', 'the study spec (JSON): which arm is GS1 and which GRPO').makeOptionMandatory())
    .addOption(inputOption('--calibration <file>', 'the output of rl-adv calibrate --json (without it the offline B_eff ratio is missing)'))
    .addOption(
      inputOption(
        '--pilot-log <arm=file>',
        "a pilot's advantage log; ARM=FILE checks that every row is that arm's, FILE alone groups rows by their arm (repeatable)",
        (values) => (values as string[]).map((v) => splitPilotLog(v).file),
      )
        .argParser((value: string, previous: string[]) => [...previous, value])
        .default([] as string[]),
    )
    .option('--json', 'print the metrics object (the input of rl-adv gate --metrics)')
    .addOption(outputOption('--output <file>', 'where to write the metrics (the table, or with --json the object; "-" for standard output)').default('-'))
    .addOption(forceOption())
    .action(async (options: GateMetricsOptions) => run(options, io));
  withExamples(command, [
    'rl-adv gate-metrics --spec gs1-vs-grpo.spec.json --calibration calibration.json \\\n' +
      '    --pilot-log grpo_g8=pilot/grpo_g8/advantages.jsonl --pilot-log gs1_tfidf_g1=pilot/gs1_tfidf_g1/advantages.jsonl --json > metrics.json',
    'rl-adv gate --spec gs1-vs-grpo.spec.json --metrics metrics.json',
  ]);
}
