// The activation gate's metrics (docs/method.md sections 6 and 9), computed from a B_eff
// calibration and the timing pilot's per-step advantage logs.
import type { BeffCalibration } from '../calibration/beff.js';
import { RlAdvantagesError } from '../errors.js';
import { parseName } from '../estimators/spec.js';
import { describe } from '../internal/validate.js';
import type { StudyArm } from './spec.js';

/**
 * One line of the per-step advantage log (`advantages.jsonl`), written by the Tinker driver and the sim
 * backend: one training step of one arm. Arrays have `rollouts` elements, in rollout order.
 */
export interface AdvantageLogRow {
  readonly arm: string;
  readonly step: number;
  readonly estimator: string;
  readonly rollouts: number;
  readonly group_size: number;
  readonly groups: number;
  readonly rewards: readonly number[];
  readonly baselines: readonly number[];
  readonly loo_mean: readonly number[];
  readonly advantages: readonly number[];
  /** Largest normalised self-weight w_ii / sum_j w_ij used in the step (0 for leave-one-out estimators). */
  readonly max_self_weight: number;
  /** Fraction of the step's rollouts with |A| > 1e-6. */
  readonly nonzero_advantage_fraction: number;
  /** Mean over the step's rollouts of |b_i - loo_mean_i|. */
  readonly mean_abs_baseline_minus_loo_mean: number;
}

/** The metric names the study spec's `activation_gate` checks, all computed by {@link gateMetrics}. */
export const GATE_METRIC_NAMES = Object.freeze([
  'offline_beff_ratio_tfidf_vs_loo_mean',
  'pilot_mean_abs_gs1_minus_batchmean_baseline',
  'self_weight_max',
  'executed_rollouts_per_step',
  'executed_group_size_gs1',
  'executed_group_size_grpo',
  'nonzero_advantage_fraction_gs1',
] as const);

/** A gate metric name. */
export type GateMetricName = (typeof GATE_METRIC_NAMES)[number];

/** Measured gate metrics; a metric that cannot be computed is absent (the gate reports it `missing`). */
export type GateMetrics = Partial<Record<GateMetricName, number>>;

/** |A| above this counts as a non-zero advantage (docs/method.md section 9). */
export const NONZERO_ADVANTAGE_THRESHOLD = 1e-6;

/** Steps of the GS1 arm the baseline-difference metric averages over (the spec's "first 3 pilot steps"). */
export const PILOT_BASELINE_STEPS = 3;

const ARRAY_FIELDS = ['rewards', 'baselines', 'loo_mean', 'advantages'] as const;

function logError(file: string, line: number, field: string, message: string): RlAdvantagesError {
  return new RlAdvantagesError(`${file}:${line}: ${field} ${message}`, { code: 'bad_log', field, index: line });
}

/**
 * Parses the per-step advantage log (`advantages.jsonl`, one JSON object a line, blank lines skipped) into
 * typed rows, checking every field of {@link AdvantageLogRow}.
 *
 * @param text - the file's content.
 * @param file - the file name, used in error messages.
 * @returns the rows in file order (any extra keys are kept).
 * @throws `RlAdvantagesError` (code `bad_log`, `index` the 1-based line) naming file, line and field,
 *   e.g. `pilot/advantages.jsonl:3: rollouts must be an integer >= 1, got 0`, for a line that is not a JSON
 *   object, a missing or mistyped field, a non-finite number, or an array whose length is not `rollouts`.
 * @example
 * ```ts
 * const rows = parseAdvantageLog(readFileSync('advantages.jsonl', 'utf8'), 'advantages.jsonl');
 * rows[0]?.arm; // "gs1_tfidf_g1"
 * ```
 */
export function parseAdvantageLog(text: string, file: string): AdvantageLogRow[] {
  if (typeof text !== 'string') {
    throw new RlAdvantagesError(`text must be a string, got ${describe(text)}`, { code: 'bad_type', field: 'text' });
  }
  const rows: AdvantageLogRow[] = [];
  const lines = text.split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw) as unknown;
    } catch (error) {
      throw new RlAdvantagesError(`${file}:${line}: not valid JSON (${(error as Error).message})`, {
        code: 'bad_log',
        index: line,
      });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new RlAdvantagesError(`${file}:${line}: must be a JSON object, got ${describe(value)}`, { code: 'bad_log', index: line });
    }
    rows.push(readRow(value as Record<string, unknown>, file, line));
  });
  return rows;
}

function readRow(o: Record<string, unknown>, file: string, line: number): AdvantageLogRow {
  const string = (field: string): string => {
    const v = o[field];
    if (typeof v !== 'string' || v === '') throw logError(file, line, field, `must be a non-empty string, got ${describe(v)}`);
    return v;
  };
  const integer = (field: string, min: number): number => {
    const v = o[field];
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min) {
      throw logError(file, line, field, `must be an integer >= ${min}, got ${describe(v)}`);
    }
    return v;
  };
  const number = (field: string, min: number, max: number): number => {
    const v = o[field];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > max) {
      throw logError(file, line, field, `must be a finite number in [${min}, ${max}], got ${describe(v)}`);
    }
    return v;
  };
  const rollouts = integer('rollouts', 1);
  const arrays = {} as Record<(typeof ARRAY_FIELDS)[number], number[]>;
  for (const field of ARRAY_FIELDS) {
    const v = o[field];
    if (!Array.isArray(v)) throw logError(file, line, field, `must be an array of ${rollouts} numbers, got ${describe(v)}`);
    if (v.length !== rollouts) {
      throw logError(file, line, field, `has ${v.length} elements but rollouts is ${rollouts}`);
    }
    v.forEach((x: unknown, k) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw logError(file, line, `${field}[${k}]`, `must be a finite number, got ${describe(x)}`);
      }
    });
    arrays[field] = v as number[];
  }
  return {
    ...o,
    arm: string('arm'),
    step: integer('step', 0),
    estimator: string('estimator'),
    rollouts,
    group_size: integer('group_size', 1),
    groups: integer('groups', 1),
    ...arrays,
    max_self_weight: number('max_self_weight', 0, 1),
    nonzero_advantage_fraction: number('nonzero_advantage_fraction', 0, 1),
    mean_abs_baseline_minus_loo_mean: number('mean_abs_baseline_minus_loo_mean', 0, Infinity),
  };
}

/**
 * Groups log rows by their `arm`, keeping file order within an arm: the `pilotLogs` shape
 * {@link gateMetrics} takes.
 *
 * @example
 * ```ts
 * groupAdvantageLogByArm(parseAdvantageLog(text, 'advantages.jsonl')); // { grpo_g8: [...], gs1_tfidf_g1: [...] }
 * ```
 */
export function groupAdvantageLogByArm(rows: readonly AdvantageLogRow[]): Record<string, AdvantageLogRow[]> {
  const out: Record<string, AdvantageLogRow[]> = {};
  for (const row of rows) {
    if (!Object.hasOwn(out, row.arm)) out[row.arm] = [];
    (out[row.arm] as AdvantageLogRow[]).push(row);
  }
  return out;
}

/**
 * Whether the estimator is of the catalogue's `kernel` family (its baseline weighs other rollouts by prompt; the GS1
 * arm uses one; a kernel file `kernel:PATH` is one).
 *
 * @example
 * ```ts
 * isKernelAdvantage('tfidf_kernel_loo_T0.1'); // true
 * isKernelAdvantage('loo_batch_mean'); // false
 * ```
 */
export function isKernelAdvantage(advantage: string): boolean {
  return isKernel(advantage);
}

function isKernel(advantage: string): boolean {
  try {
    return parseName(advantage).descriptor.family === 'kernel';
  } catch {
    return false;
  }
}

/** The one arm matching `test`, or undefined; two matching arms are an error (the metric would be ambiguous). */
function findArm(arms: readonly StudyArm[], test: (arm: StudyArm) => boolean, role: string): StudyArm | undefined {
  const found = arms.filter(test);
  if (found.length > 1) {
    throw new RlAdvantagesError(
      `arms has ${found.length} ${role} arms (${found.map((a) => JSON.stringify(a.name)).join(', ')}); the gate metrics need exactly one`,
      { code: 'ambiguous_arm', field: 'arms' },
    );
  }
  return found[0];
}

/**
 * The spec arms the gate metrics are about: the GS1 arm (its `advantage` a kernel estimator) and the GRPO
 * arm (`group_mean`); either is undefined when the spec has none.
 *
 * @throws `RlAdvantagesError` (code `ambiguous_arm`) when two arms qualify for one role.
 * @example
 * ```ts
 * gateArms(loadStudySpec(json).arms).gs1?.name; // "gs1_tfidf_g1"
 * ```
 */
export function gateArms(arms: readonly StudyArm[]): { gs1: StudyArm | undefined; grpo: StudyArm | undefined } {
  return {
    gs1: findArm(arms, (arm) => isKernel(arm.advantage), 'kernel-estimator (GS1)'),
    grpo: findArm(arms, (arm) => arm.advantage === 'group_mean', 'group_mean (GRPO)'),
  };
}

/** A log's steps sorted by step number; a step logged twice is an error. */
function stepsOf(logs: Readonly<Record<string, readonly AdvantageLogRow[]>>, arm: StudyArm | undefined): AdvantageLogRow[] {
  if (arm === undefined || !Object.hasOwn(logs, arm.name)) return [];
  const rows = [...(logs[arm.name] as readonly AdvantageLogRow[])].sort((a, b) => a.step - b.step);
  for (let i = 1; i < rows.length; i++) {
    if ((rows[i] as AdvantageLogRow).step === (rows[i - 1] as AdvantageLogRow).step) {
      throw new RlAdvantagesError(`pilotLogs.${arm.name} logs step ${(rows[i] as AdvantageLogRow).step} twice`, {
        code: 'duplicate_step',
        field: `pilotLogs.${arm.name}`,
      });
    }
  }
  return rows;
}

/** The common value of `field` over the rows, or the first value that differs from the first row's. */
function executed(rows: readonly AdvantageLogRow[], field: 'rollouts' | 'group_size'): number | undefined {
  const first = rows[0]?.[field];
  if (first === undefined) return undefined;
  for (const row of rows) if (row[field] !== first) return row[field];
  return first;
}

/**
 * Computes every metric the study spec's `activation_gate` checks (docs/method.md section 6; definitions in
 * docs/method.md section 9). The GS1 arm is the spec arm whose `advantage` is a kernel estimator
 * (`tfidf_kernel_loo_T<T>`, `kernel_loo`, `length_bucket_loo`); the GRPO arm the one whose advantage is
 * `group_mean`.
 *
 * - `offline_beff_ratio_tfidf_vs_loo_mean`: the calibration's B_eff ratio of the GS1 arm's estimator to
 *   `loo_batch_mean` (its `ratio` when `loo_batch_mean` is the reference, else
 *   (sigma_eps^2 + MSEc(loo)) / (sigma_eps^2 + MSEc(gs1)) from the figures).
 * - `pilot_mean_abs_gs1_minus_batchmean_baseline`: mean of |b_i - loo_mean_i| over every rollout of the GS1
 *   arm's first 3 steps (by step number); absent with fewer than 3 logged steps.
 * - `self_weight_max`: max of `max_self_weight` over the GS1 arm's steps.
 * - `executed_rollouts_per_step`: over every step of the GRPO and then the GS1 arm (each sorted by step), the
 *   common `rollouts`, or the first value that differs from the first step's (so a gate needing exactly 32
 *   fails); absent unless both arms logged a step.
 * - `executed_group_size_gs1` / `executed_group_size_grpo`: the same for `group_size` within that arm.
 * - `nonzero_advantage_fraction_gs1`: the fraction of all GS1 rollouts with |A| > 1e-6.
 *
 * A metric that cannot be computed (no calibration, an arm missing from the spec or the logs) is absent, and
 * `evaluateGate` then reports it `missing`: the gate fails rather than being relaxed.
 *
 * @param input.calibration - a `calibrateBeff` result, or null/undefined if none was run.
 * @param input.pilotLogs - the pilot's log rows keyed by arm name (see {@link parseAdvantageLog}).
 * @param input.arms - the spec's arms (`loadStudySpec(json).arms`).
 * @returns the measured metrics, keyed by gate metric name.
 * @throws `RlAdvantagesError` if `pilotLogs` names an arm the spec lacks, a row's `arm` differs from its
 *   key, an arm logs a step twice, or two arms both qualify as the GS1 (or the GRPO) arm.
 * @example
 * ```ts
 * const spec = loadStudySpec(readFileSync('gs1-vs-grpo.spec.json', 'utf8'));
 * const rows = parseAdvantageLog(readFileSync('advantages.jsonl', 'utf8'), 'advantages.jsonl');
 * const pilotLogs = groupAdvantageLogByArm(rows);
 * const metrics = gateMetrics({ calibration, pilotLogs, arms: spec.arms });
 * evaluateGate(spec.activationGate, metrics).passed; // false when the B_eff ratio is 0.976 < 1.03
 * ```
 */
export function gateMetrics(input: {
  readonly calibration?: Pick<BeffCalibration, 'reference' | 'sigmaEps2' | 'estimators'> | null;
  readonly pilotLogs?: Readonly<Record<string, readonly AdvantageLogRow[] | undefined>> | null;
  readonly arms: readonly StudyArm[];
}): GateMetrics {
  if (typeof input !== 'object' || input === null) {
    throw new RlAdvantagesError(`input must be an object {calibration, pilotLogs, arms}, got ${describe(input)}`, {
      code: 'bad_type',
      field: 'input',
    });
  }
  const { calibration, arms } = input;
  if (!Array.isArray(arms)) {
    throw new RlAdvantagesError(`arms must be the spec's arms array, got ${describe(arms)}`, { code: 'bad_type', field: 'arms' });
  }
  const logs: Record<string, readonly AdvantageLogRow[]> = {};
  for (const [name, rows] of Object.entries(input.pilotLogs ?? {})) {
    if (rows === undefined) continue;
    if (!arms.some((arm) => arm.name === name)) {
      throw new RlAdvantagesError(
        `pilotLogs has arm ${JSON.stringify(name)}, which the spec's arms do not define (${arms.map((a) => JSON.stringify(a.name)).join(', ')})`,
        { code: 'unknown_arm', field: 'pilotLogs' },
      );
    }
    if (!Array.isArray(rows)) {
      throw new RlAdvantagesError(`pilotLogs.${name} must be an array of log rows, got ${describe(rows)}`, {
        code: 'bad_type',
        field: `pilotLogs.${name}`,
      });
    }
    rows.forEach((row: AdvantageLogRow, i) => {
      if (row?.arm !== name) {
        throw new RlAdvantagesError(`pilotLogs.${name}[${i}].arm is ${describe(row?.arm)}, not ${JSON.stringify(name)}`, {
          code: 'bad_log',
          field: `pilotLogs.${name}`,
          index: i,
        });
      }
    });
    logs[name] = rows;
  }

  const { gs1, grpo } = gateArms(arms);
  const gs1Steps = stepsOf(logs, gs1);
  const grpoSteps = stepsOf(logs, grpo);
  const metrics: GateMetrics = {};

  if (calibration && gs1 !== undefined) {
    const ratio = calibrationRatio(calibration, gs1.advantage);
    if (ratio !== undefined) metrics.offline_beff_ratio_tfidf_vs_loo_mean = ratio;
  }

  if (gs1Steps.length >= PILOT_BASELINE_STEPS) {
    let total = 0;
    let count = 0;
    for (const row of gs1Steps.slice(0, PILOT_BASELINE_STEPS)) {
      for (let i = 0; i < row.rollouts; i++) total += Math.abs((row.baselines[i] as number) - (row.loo_mean[i] as number));
      count += row.rollouts;
    }
    metrics.pilot_mean_abs_gs1_minus_batchmean_baseline = total / count;
  }

  if (gs1Steps.length > 0) {
    metrics.self_weight_max = Math.max(...gs1Steps.map((row) => row.max_self_weight));
    let nonzero = 0;
    let count = 0;
    for (const row of gs1Steps) {
      for (const a of row.advantages) if (Math.abs(a) > NONZERO_ADVANTAGE_THRESHOLD) nonzero++;
      count += row.rollouts;
    }
    metrics.nonzero_advantage_fraction_gs1 = nonzero / count;
    metrics.executed_group_size_gs1 = executed(gs1Steps, 'group_size') as number;
  }
  if (grpoSteps.length > 0) metrics.executed_group_size_grpo = executed(grpoSteps, 'group_size') as number;
  if (gs1Steps.length > 0 && grpoSteps.length > 0) {
    metrics.executed_rollouts_per_step = executed([...grpoSteps, ...gs1Steps], 'rollouts') as number;
  }
  return metrics;
}

function calibrationRatio(
  calibration: Pick<BeffCalibration, 'reference' | 'sigmaEps2' | 'estimators'>,
  estimator: string,
): number | undefined {
  const estimators = calibration.estimators ?? {};
  const gs1 = Object.hasOwn(estimators, estimator) ? estimators[estimator] : undefined;
  if (gs1 === undefined) return undefined;
  if (calibration.reference === 'loo_batch_mean') return gs1.ratio;
  const loo = Object.hasOwn(estimators, 'loo_batch_mean') ? estimators['loo_batch_mean'] : undefined;
  if (loo === undefined) return undefined;
  // Single-rollout mode has no sigma_eps^2: there mseCorrected is already the advantage variance.
  const s2 = calibration.sigmaEps2 ?? 0;
  return (s2 + loo.mseCorrected) / (s2 + gs1.mseCorrected);
}
