// rl-adv gate: the activation gate of a spec against measured metrics. Exit 1 when it fails.
import type { Command } from 'commander';
import { RlAdvantagesError } from '../../errors.js';
import { describe } from '../../internal/validate.js';
import { evaluateGate, gateJson, type GateResult } from '../../study/gate.js';
import { GATE_METRIC_NAMES } from '../../study/gate-metrics.js';
import { closestName, didYouMean } from '../suggest.js';
import { num, plural, table } from '../format.js';
import { displayName, inputError, lineOfPath, parseJson, readText } from '../io.js';
import { CliExit, EXIT_CODES, withExamples, type CliIo } from '../core.js';
import { readSpec } from '../spec.js';
import { shippedSpecPath, specOption } from '../shipped-spec.js';
import { inputOption } from '../outputs.js';

interface GateOptions {
  spec?: string;
  metrics: string;
  json?: boolean;
}

/**
 * Reads a metrics file: a JSON object of metric name -> number (null for a metric not measured,
 * which fails its check as missing). With `known`, a name outside it that is close to a known name is
 * an error naming that name (a misspelt metric would otherwise leave the real one missing); a name
 * unlike any known one gets a note on stderr and is ignored.
 */
export async function readMetrics(file: string, io: CliIo, known?: readonly string[]): Promise<Record<string, number | null>> {
  const text = await readText(file, io, '--metrics');
  const value = parseJson(text, file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw inputError(file, undefined, undefined, `must hold a JSON object of metric name -> number, got ${describe(value)}`);
  }
  const metrics: Record<string, number | null> = {};
  for (const [name, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== null && (typeof v !== 'number' || !Number.isFinite(v))) {
      throw inputError(file, lineOfPath(text, name), name, `must be a number (or null when not measured), got ${describe(v)}`);
    }
    // A misspelt name would leave the real metric "missing" and the gate failing for no visible reason:
    // a name close to a known one is an error; a name unlike any is reported and ignored.
    if (known !== undefined && !known.includes(name)) {
      const line = lineOfPath(text, [name]);
      if (closestName(name, known) !== undefined) {
        throw inputError(file, line, name, `is not a metric the gate checks${didYouMean(name, known)}; the gate checks ${known.join(', ')}`);
      }
      io.stderr.write(`rl-adv: note: ${displayName(file)}${line === undefined ? '' : `:${line}`}: ${JSON.stringify(name)} is not a metric the gate checks; ignored\n`);
    }
    metrics[name] = v;
  }
  return metrics;
}


/** The readable form: one row per check, then the verdict. */
export function gateText(result: GateResult): string {
  const known: readonly string[] = GATE_METRIC_NAMES;
  // A check on a metric rl-adv never computes is missing for that reason, not for want of a measurement.
  const reason = (c: GateResult['checks'][number]): string =>
    c.status === 'missing' && !known.includes(c.metric)
      ? `${c.reason}: not a gate metric rl-adv computes${didYouMean(c.metric, known)}`
      : c.reason;
  const rows = result.checks.map((c) => [c.metric, num(c.value), num(c.min), num(c.max), c.status, reason(c)]);
  const failed = result.checks.filter((c) => c.status !== 'pass');
  const verdict = result.passed
    ? `activation gate: PASSED (all ${plural(result.checks.length, 'check')})`
    : `activation gate: FAILED (${failed.length} of ${plural(result.checks.length, 'check')} did not pass: ${failed.map((c) => c.metric).join(', ')})`;
  const note = result.applicable ? '' : 'note: the spec marks the activation gate as not applicable\n';
  return table(['metric', 'value', 'min', 'max', 'status', 'reason'], rows) + '\n' + note + verdict + '\n';
}

async function run(options: GateOptions, io: CliIo): Promise<void> {
  const spec = await readSpec(options.spec ?? shippedSpecPath(), io);
  const checked = spec.activationGate.checks.map((c) => c.metric);
  const metrics = await readMetrics(options.metrics, io, [...new Set([...checked, ...GATE_METRIC_NAMES])]);
  let result: GateResult;
  try {
    result = evaluateGate(spec.activationGate, metrics);
  } catch (error) {
    if (error instanceof RlAdvantagesError) throw inputError(options.metrics, undefined, error.field, error.message);
    throw error;
  }
  io.stdout.write(options.json === true ? JSON.stringify(gateJson(result), null, 2) + '\n' : gateText(result));
  if (!result.passed) throw new CliExit(EXIT_CODES.gateFailed);
}

/** Registers `rl-adv gate`. */
export function register(program: Command, io: CliIo): void {
  const command = program
    .command('gate')
    .summary("check measured metrics against the spec's activation gate (exit 1 if it fails)")
    .description(
      "Evaluates the spec's activation_gate (docs/method.md section 6): every check's metric must be present, " +
        'finite and within its inclusive min/max. The gate is never relaxed. Exit 0 when it passes, 1 when ' +
        'it fails, 2 for bad input. --metrics is a JSON object of metric name -> number (as rl-adv ' +
        'gate-metrics prints it).',
    )
    .addOption(specOption())
    .addOption(inputOption('--metrics <file>', 'the measured metrics (JSON object)').makeOptionMandatory())
    .option('--json', 'print {passed, checks: [{metric, value, min, max, status}]}')
    .action(async (options: GateOptions) => run(options, io));
  withExamples(command, [
    'rl-adv gate --spec gs1-vs-grpo.spec.json --metrics metrics.json',
    "echo '{\"offline_beff_ratio_tfidf_vs_loo_mean\": 0.976}' > m.json && rl-adv gate --spec gs1-vs-grpo.spec.json --metrics m.json --json",
  ]);
}
