// The Tinker backend's checks on what its drivers report and the flags it hands run_arm.py (docs/reproduce.md).
import { existsSync } from 'node:fs';
import { RlAdvantagesError } from '../../errors.js';
import type { ArmRunRequest } from './types.js';
import { readRunBytes } from './files.js';

/** What the study reads of `preflight_tinker.json` (examples/tinker-cookbook/preflight.py) or `preflight_trl.json`. */
export interface PreflightReport {
  readonly passed?: unknown;
  readonly checks?: Record<string, { readonly passed?: unknown; readonly max_abs_error?: unknown; readonly max_self_weight?: unknown }>;
}

/** True when `file` holds a whole preflight report that says it failed (the driver's exit 1 after writing it). */
export function completedFailedReport(file: string): boolean {
  if (!existsSync(file)) return false;
  try {
    const report = JSON.parse(readRunBytes(file).toString('utf8')) as PreflightReport;
    return report.passed === false && typeof report.checks === 'object' && report.checks !== null;
  } catch {
    return false;
  }
}

/**
 * The study's checks from the driver's report: one per driver check (its max abs error or self-weight in the detail),
 * ids prefixed `<backend>:`, and a failing `<backend>:preflight` check whenever the report as a whole did not pass but no single check says so.
 */
export function preflightChecks(
  report: PreflightReport,
  backend = 'tinker',
  driver = 'examples/tinker-cookbook/preflight.py',
): { id: string; passed: boolean; detail: string }[] {
  const checks = Object.entries(report.checks ?? {}).map(([id, check]) => {
    const figure =
      typeof check.max_abs_error === 'number'
        ? `max abs error ${check.max_abs_error.toExponential(3)}`
        : typeof check.max_self_weight === 'number'
          ? `max self-weight ${check.max_self_weight}`
          : 'no figure';
    return { id: `${backend}:${id}`, passed: check.passed === true, detail: `${driver}: ${figure}` };
  });
  if (report.passed !== true && checks.every((c) => c.passed)) {
    checks.push({ id: `${backend}:preflight`, passed: false, detail: `${driver.split('/').at(-1) ?? driver} reported passed = ${JSON.stringify(report.passed ?? null)}` });
  }
  return checks;
}

/**
 * run_arm.py's flags for a replicate and a learning curve: `--seed S` (the recipe's data-order seed and the LoRA
 * seed; the driver takes the cookbook's own order of that seed, not `request.order`) and `--curve-items K
 * --curve-every N` (the recipe's test-set evaluator on the first K GSM8K test items, which must be the curve's items).
 *
 * @throws {RlAdvantagesError} `bad_option` (field `eval.curve_items`) when the curve's items are not the first K of the
 *   GSM8K test split, the only slice the recipe's evaluator can take.
 * @example
 * ```ts
 * replicateArgs({ ...request, seed: 3 }); // ['--seed', '3']
 * ```
 */
export function replicateArgs(request: ArmRunRequest): string[] {
  const args = request.seed === undefined ? [] : ['--seed', String(request.seed)];
  if (request.curve === undefined) return args;
  const stray = request.curve.items.findIndex((item, i) => item.id !== `gsm8k_test_${i}`);
  if (stray >= 0) {
    throw new RlAdvantagesError(
      `eval.curve_items: the tinker backend's curve is the recipe's evaluator on the first items of the GSM8K test split; item ${stray} is ${request.curve.items[stray]?.id ?? '?'}`,
      { code: 'bad_option', field: 'eval.curve_items' },
    );
  }
  return [...args, '--curve-items', String(request.curve.items.length), '--curve-every', String(request.curve.every)];
}
