// The activation gate (docs/method.md section 6): measured metrics against the spec's inclusive bounds.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import { parseActivationGate, type ActivationGate } from './spec.js';

/** `pass`: present, finite, within bounds; `fail`: non-finite or out of bounds; `missing`: not measured. */
export type GateCheckStatus = 'pass' | 'fail' | 'missing';

/** The outcome of one gate check. */
export interface GateCheckResult {
  readonly metric: string;
  /** The measured value, or null when the metric is missing. */
  readonly value: number | null;
  /** The inclusive lower bound, or null when the check has none. */
  readonly min: number | null;
  /** The inclusive upper bound, or null when the check has none. */
  readonly max: number | null;
  readonly status: GateCheckStatus;
  /** One line saying why, e.g. `0.976 < min 1.03`. */
  readonly reason: string;
}

/** The outcome of the whole gate. */
export interface GateResult {
  /** True only if every check passed. It does not consult `applicable`: an inapplicable gate is reported, never silently passed. */
  readonly passed: boolean;
  /** The spec's `applicable` flag (true when absent). */
  readonly applicable: boolean;
  readonly checks: readonly GateCheckResult[];
}

function checkOne(metric: string, value: number | null, min: number | null, max: number | null): GateCheckResult {
  const base = { metric, value, min, max };
  if (value === null) return { ...base, status: 'missing', reason: 'not measured' };
  if (!Number.isFinite(value)) return { ...base, status: 'fail', reason: `${value} is not finite` };
  if (min !== null && value < min) return { ...base, status: 'fail', reason: `${value} < min ${min}` };
  if (max !== null && value > max) return { ...base, status: 'fail', reason: `${value} > max ${max}` };
  const bounds = [min !== null ? `>= min ${min}` : '', max !== null ? `<= max ${max}` : ''].filter(Boolean);
  return { ...base, status: 'pass', reason: `${value} ${bounds.join(' and ')}` };
}

/**
 * Evaluates the activation gate (docs/method.md section 6). Each check names a metric with `min` and/or `max`, both
 * inclusive: it passes iff the metric is present, finite and min <= value <= max. A metric absent from `metrics`
 * (or null) fails its check with status `missing`; a non-finite value (NaN, +-Infinity) fails with status `fail`.
 * The gate passes only if every check passes. The gate is never relaxed: there is no tolerance and no override.
 *
 * @param activationGate - the spec's `activation_gate` (validated again here, so an unchecked object is caught).
 * @param metrics - measured values by metric name; names the gate does not check are ignored.
 * @returns `{ passed, applicable, checks: [{ metric, value, min, max, status, reason }] }`, one entry per check
 *   in spec order; `value` is null when missing, `min` / `max` null when the check has none.
 * @throws {StudySpecError} (`invalid_spec`) for an invalid gate; `RlAdvantagesError` `bad_type` when
 *   `metrics` is not an object or a value is neither a number nor null.
 * @example
 * ```ts
 * import { evaluateGate } from 'rl-advantages/study';
 * const gate = { checks: [{ metric: 'offline_beff_ratio_tfidf_vs_loo_mean', min: 1.03 }] };
 * const result = evaluateGate(gate, { offline_beff_ratio_tfidf_vs_loo_mean: 0.976 });
 * console.log(result.passed, result.checks[0]?.reason); // false "0.976 < min 1.03"
 * ```
 */
export function evaluateGate(
  activationGate: ActivationGate | { readonly checks: readonly unknown[]; readonly applicable?: boolean },
  metrics: Readonly<Record<string, number | null | undefined>>,
): GateResult {
  const gate = parseActivationGate(activationGate);
  if (typeof metrics !== 'object' || metrics === null || Array.isArray(metrics)) {
    throw new RlAdvantagesError(`metrics must be an object of metric values, got ${describe(metrics)}`, {
      code: 'bad_type',
      field: 'metrics',
    });
  }
  const checks = gate.checks.map((check) => {
    // Own properties only: a metric named e.g. "constructor" must not read Object.prototype.
    const raw: unknown = Object.hasOwn(metrics, check.metric) ? metrics[check.metric] : undefined;
    if (raw !== undefined && raw !== null && typeof raw !== 'number') {
      throw new RlAdvantagesError(`metrics.${check.metric} must be a number, got ${describe(raw)}`, {
        code: 'bad_type',
        field: `metrics.${check.metric}`,
      });
    }
    return checkOne(check.metric, raw ?? null, check.min ?? null, check.max ?? null);
  });
  return { passed: checks.every((c) => c.status === 'pass'), applicable: gate.applicable, checks };
}

/** The gate's plain JSON form, as `rl-adv gate --json` prints it and a study's summary.json holds it. */
export interface GateJson {
  passed: boolean;
  checks: { metric: string; value: number | null; min: number | null; max: number | null; status: GateCheckStatus }[];
}

/**
 * The plain JSON form of a gate result: `{passed, checks: [{metric, value, min, max, status}]}`
 * (the per-check `reason` and `applicable` are left out).
 *
 * @example
 * ```ts
 * const json = gateJson(evaluateGate(spec.activationGate, metrics));
 * console.log(JSON.stringify(json));
 * ```
 */
export function gateJson(result: GateResult): GateJson {
  return {
    passed: result.passed,
    checks: result.checks.map((c) => ({ metric: c.metric, value: c.value, min: c.min, max: c.max, status: c.status })),
  };
}
