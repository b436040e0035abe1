// The normalisation step (docs/method.md section 2.6): centre, scale, whiten, clip, with the rules for
// groups of one and zero-variance groups, on the unmasked rows of a batch.
import { RlAdvantagesError } from '../../errors.js';
import { readGroups, readLengths } from '../batch.js';
import { readMask } from '../mask.js';
import { checkLength, toFiniteFloat64, type NdArrayLike } from '../../internal/validate.js';
import { INITIAL_RUNNING_STATE, runningStd, updateRunning, type RunningState } from './running.js';
import { denominator, isRunning, needsGroups, needsLengths, readNormalization, type NormalizationSettings, type NormalizationSpec } from './spec.js';
import { isConstant, leaveOneOutMeans, totalWeight, weightedMean, weightedVariance } from './stats.js';

/** What the step reads: the values to normalise (rewards, or an estimator's advantages) and their rows' facts. */
export interface NormalizationBatch {
  /** x_i, one finite value per rollout (any magnitude: the step scales by a power of two before squaring). */
  readonly values: ArrayLike<number> | NdArrayLike;
  /** g_i, for group centres and scales, the singleton and zero-variance rules. */
  readonly groupIds?: ArrayLike<string | number>;
  /** L_i > 0 (tokens), for token weights. */
  readonly lengths?: ArrayLike<number>;
  /** `true` = masked: the row enters no statistic and gets A = 0 (its value may be non-finite). */
  readonly mask?: ArrayLike<boolean>;
}

/** What the step did, in counts (docs/method.md section 2.6). */
export interface NormalizationDiagnostics {
  readonly rows: number;
  readonly masked: number;
  readonly groups: number;
  readonly groupsOfOne: number;
  /** Groups of >= 2 unmasked rows whose values are all equal. */
  readonly zeroVarianceGroups: number;
  /** Rows left out of the loss: masked zero-variance groups and groups of one under `singleton: 'drop'`. */
  readonly rowsDropped: number;
  /** Rows whose std was exactly 0 and left undivided (`zeroStd: 'skip'`). */
  readonly rowsUndivided: number;
  readonly rowsClippedLow: number;
  readonly rowsClippedHigh: number;
}

export interface NormalizationResult {
  /** A_i; 0 for masked and dropped rows. */
  readonly advantages: Float64Array;
  /** m_i, what was subtracted from x_i (0 for masked and dropped rows). */
  readonly centres: Float64Array;
  /** 1 where the row should be left out of the loss and its denominator (masked or dropped), else 0. */
  readonly dropped: Uint8Array;
  readonly diagnostics: NormalizationDiagnostics;
  /** The running moments after this batch (running settings only). */
  readonly state: RunningState | undefined;
}

interface Rows {
  x: Float64Array;
  w: Float64Array;
  ww: Float64Array;
  groups: Int32Array[] | undefined;
}

function readRows(batch: NormalizationBatch, s: NormalizationSettings, keep: number[], size: number): Rows {
  const x = toFiniteFloat64Masked(batch.values, keep);
  const sub = { rewards: x } as { rewards: Float64Array; groupIds?: (string | number)[]; lengths?: number[] };
  if (batch.groupIds !== undefined && batch.groupIds !== null && typeof batch.groupIds === 'object') {
    checkLength('groupIds', batch.groupIds.length, size, 'values');
    sub.groupIds = keep.map((i) => (batch.groupIds as ArrayLike<string | number>)[i] as string | number);
  }
  if (batch.lengths !== undefined && batch.lengths !== null && typeof batch.lengths === 'object') {
    checkLength('lengths', batch.lengths.length, size, 'values');
    sub.lengths = keep.map((i) => (batch.lengths as ArrayLike<number>)[i] as number);
  }
  const remapped = <T>(read: () => T): T => {
    try {
      return read();
    } catch (error) {
      throw remapIndex(error, keep);
    }
  };
  const lengths = needsLengths(s) ? remapped(() => readLengths(sub, keep.length, 'the token-weighted normalisation')) : undefined;
  const ones = new Float64Array(keep.length).fill(1);
  const groups = needsGroups(s) ? remapped(() => readGroups(sub, keep.length, 'the group normalisation').members) : undefined;
  return {
    x,
    w: s.weights === 'tokens' ? (lengths as Float64Array) : ones,
    ww: s.whiten && s.whitenWeights === 'tokens' ? (lengths as Float64Array) : ones,
    groups,
  };
}

function remapIndex(error: unknown, keep: number[]): unknown {
  if (!(error instanceof RlAdvantagesError) || error.index === undefined || keep[error.index] === undefined) return error;
  const original = keep[error.index] as number;
  const options: { code: string; field?: string; index: number } = { code: error.code, index: original };
  if (error.field !== undefined) options.field = error.field;
  return new RlAdvantagesError(error.message.split(`[${error.index}]`).join(`[${original}]`), options);
}

/** values[keep[k]] as finite float64, error indices those of the full batch. */
function toFiniteFloat64Masked(values: unknown, keep: number[]): Float64Array {
  const picked = isNd(values) ? keep.map((i) => values.get(i)) : Array.isArray(values) || ArrayBuffer.isView(values) ? keep.map((i) => (values as ArrayLike<number>)[i] as number) : values;
  try {
    return toFiniteFloat64('values', picked);
  } catch (error) {
    throw remapIndex(error, keep);
  }
}

function isNd(v: unknown): v is NdArrayLike {
  return typeof v === 'object' && v !== null && Array.isArray((v as NdArrayLike).shape) && typeof (v as NdArrayLike).get === 'function';
}

/** Per-row centre and scale, before the division. */
interface Plan {
  centre: Float64Array;
  std: Float64Array; // NaN: no division; -1: no std (A = 0)
  variance: Float64Array;
  kept: Uint8Array; // 0: dropped (A = 0)
  raw: Uint8Array; // 1: a group of one under singleton 'raw'; 2: under 'zero'
}

function planGroups(r: Rows, s: NormalizationSettings, plan: Plan, counts: { ones: number; zeroVar: number }): void {
  const byGroup = s.centre === 'group' || s.scale === 'group' || s.scale === 'loo';
  for (const group of r.groups ?? []) {
    if (group.length === 1) {
      counts.ones++;
      if (!byGroup) continue;
      const i = group[0] as number;
      if (s.singleton === 'error') {
        throw new RlAdvantagesError(`groupIds[${i}] is a group of one rollout; this normalisation centres or scales by group (use singleton: 'zero' or 'raw')`, {
          code: 'group_too_small',
          field: 'groupIds',
          index: i,
        });
      }
      if (s.singleton === 'drop') plan.kept[i] = 0;
      else if (s.singleton === 'zero') plan.raw[i] = 2;
      else plan.raw[i] = 1;
      continue;
    }
    if (isConstant(r.x, group)) {
      counts.zeroVar++;
      if (s.zeroVariance === 'mask') for (const i of group) plan.kept[i] = 0;
    }
  }
}

function centreRows(r: Rows, s: NormalizationSettings, plan: Plan, kept: number[], state: RunningState | undefined): void {
  if (s.centre === 'group') {
    for (const group of r.groups as Int32Array[]) {
      if (group.length < 2 || plan.kept[group[0] as number] === 0) continue;
      if (s.leaveOneOut) {
        const loo = leaveOneOutMeans(r.x, r.w, group);
        group.forEach((i, k) => (plan.centre[i] = loo[k] as number));
      } else {
        const mean = weightedMean(r.x, r.w, group);
        for (const i of group) plan.centre[i] = mean;
      }
    }
  } else if (s.centre === 'batch' && kept.length > 0) {
    if (s.leaveOneOut && kept.length > 1) {
      const loo = leaveOneOutMeans(r.x, r.w, kept);
      kept.forEach((i, k) => (plan.centre[i] = loo[k] as number));
    } else if (!s.leaveOneOut) {
      const mean = weightedMean(r.x, r.w, kept);
      for (const i of kept) plan.centre[i] = mean;
    }
  } else if (s.centre === 'running') {
    for (const i of kept) plan.centre[i] = (state as RunningState).mean;
  }
}

function setStd(plan: Plan, rows: ArrayLike<number>, variance: number | undefined): void {
  for (let k = 0; k < rows.length; k++) {
    const i = rows[k] as number;
    plan.variance[i] = variance ?? 0;
    plan.std[i] = variance === undefined ? -1 : Math.sqrt(variance);
  }
}

function scaleRows(r: Rows, s: NormalizationSettings, plan: Plan, kept: number[], state: RunningState | undefined): void {
  const around = (mean: number) => (s.stdAround === 'centre' ? (i: number) => plan.centre[i] as number : () => mean);
  if (s.scale === 'none') {
    plan.std.fill(Number.NaN);
    return;
  }
  if (s.scale === 'group') {
    for (const group of r.groups as Int32Array[]) {
      if (group.length < 2 || plan.kept[group[0] as number] === 0) continue;
      setStd(plan, group, weightedVariance(r.x, r.w, group, around(weightedMean(r.x, r.w, group)), s.variance));
    }
  } else if (s.scale === 'batch') {
    setStd(plan, kept, kept.length < 2 ? undefined : weightedVariance(r.x, r.w, kept, around(weightedMean(r.x, r.w, kept)), s.variance));
  } else if (s.scale === 'loo') {
    for (const group of r.groups as Int32Array[]) {
      if (group.length < 2 || plan.kept[group[0] as number] === 0) continue;
      group.forEach((i, k) => {
        const others = group.filter((_, j) => j !== k);
        const v = others.length < 2 ? 0 : weightedVariance(r.x, r.w, others, around(weightedMean(r.x, r.w, others)), s.variance);
        // NeMo-RL: the std of fewer than two others is 0 (its nan_to_num(0)).
        setStd(plan, [i], v ?? 0);
      });
    }
  } else {
    const std = runningStd(state as RunningState);
    setStd(plan, kept, std === undefined ? undefined : std * std);
    if (std !== undefined) for (const i of kept) plan.std[i] = std;
  }
}

function divide(c: number, std: number, variance: number, s: NormalizationSettings, i: number, undivided: { n: number }, sigma: number): number {
  if (Number.isNaN(std)) return c / sigma; // no scale (c is in the scaled units)
  if (std < 0) return 0; // no std exists: A = 0
  if (c === 0) return 0;
  if (std === 0 && s.zeroStd === 'skip') {
    undivided.n++;
    return c / sigma;
  }
  const d = denominator(std, variance, s.minStd, s.epsilon, s.epsilonMode);
  if (!(d > 0)) {
    throw new RlAdvantagesError(`values[${i}]: the std is 0 and epsilon = minStd = 0, so x - m = ${c} cannot be scaled; give epsilon or minStd > 0, or zeroStd: 'skip'`, {
      code: 'zero_std',
      field: 'values',
      index: i,
    });
  }
  return c / d;
}

function whitenRows(input: Float64Array, ww: Float64Array, kept: number[], s: NormalizationSettings): void {
  if (kept.length === 0) return;
  // Whitening is scale-free but for epsilon: scale by a power of two (epsilon with it) so nothing overflows.
  const sigma = downscale(Float64Array.from(kept, (i) => input[i] as number));
  const a = sigma === 1 ? input : input.map((v) => v * sigma);
  const byVariance = s.whitenEpsilonMode === 'add_variance' || s.whitenEpsilonMode === 'floor_variance';
  const epsilon = s.whitenEpsilon * (sigma === 1 ? 1 : byVariance ? sigma * sigma : sigma);
  const weight = totalWeight(ww, kept);
  if (kept.length < 2 || (s.whitenVariance === 'unbiased' && !(weight > 1))) {
    for (const i of kept) input[i] = 0; // no std of one row (TRL: NaN, then 0)
    return;
  }
  let sum = 0;
  for (const i of kept) sum += (ww[i] as number) * (a[i] as number);
  const constant = isConstant(a, kept) && s.whitenCountEpsilon === 0;
  const mean = constant ? (a[kept[0] as number] as number) : sum / (weight + s.whitenCountEpsilon);
  const variance = weightedVariance(a, ww, kept, () => mean, s.whitenVariance, s.whitenCountEpsilon) as number;
  const std = Math.sqrt(variance);
  for (const i of kept) {
    const c = (a[i] as number) - mean;
    if (c === 0) input[i] = 0;
    else if (std === 0 && s.whitenZeroStd === 'skip') input[i] = c / sigma;
    else {
      const d = denominator(std, variance, 0, epsilon, s.whitenEpsilonMode);
      if (!(d > 0)) {
        throw new RlAdvantagesError(`values[${i}]: the whitening std is 0 and whitenEpsilon = 0; give whitenEpsilon > 0 or whitenZeroStd: 'skip'`, {
          code: 'zero_std',
          field: 'values',
          index: i,
        });
      }
      input[i] = c / d;
    }
  }
}

/**
 * The normalisation step on one batch (docs/method.md section 2.6): A_i = (x_i - m_i) / d(s_i), then whitened
 * over the batch and clipped, as `spec` says. A group of one follows `singleton`; a zero-variance group
 * `zeroVariance`; masked rows get A = 0. `state` is the running moments (running settings only; default
 * ROLL's start), updated with this batch before use; the result carries the new state.
 *
 * @throws {@link RlAdvantagesError} for a bad option (see {@link readNormalization}); a value not finite or
 *   beyond 1e100; missing `groupIds` or `lengths` when the settings read them; a group of one under
 *   `singleton: 'error'`; a zero denominator for a nonzero centred value (`zero_std`); a non-finite result.
 * @example
 * ```ts
 * normalizeStep({ values: [1, 0, 1, 1], groupIds: [0, 0, 1, 1] }, { scale: 'none' }).advantages; // [0.5, -0.5, 0, 0]
 * ```
 */
export function normalizeStep(batch: NormalizationBatch, spec?: NormalizationSpec, state?: RunningState): NormalizationResult {
  const s = readNormalization(spec);
  return normalizeWith(batch, s, state);
}

/** {@link normalizeStep} with settings already read. */
export function normalizeWith(batch: NormalizationBatch, settings: NormalizationSettings, state?: RunningState): NormalizationResult {
  let s = settings;
  if (typeof batch !== 'object' || batch === null) {
    throw new RlAdvantagesError('batch must be an object with values', { code: 'bad_type', field: 'batch' });
  }
  const size = isNd(batch.values) ? (batch.values.shape[0] ?? 0) : toFiniteLength(batch.values);
  const mask = readMask({ rewards: batch.values as ArrayLike<number>, ...(batch.mask === undefined ? {} : { mask: batch.mask }) });
  const keep: number[] = [];
  for (let i = 0; i < size; i++) if (mask === undefined || !mask[i]) keep.push(i);
  const r = readRows(batch, s, keep, size);
  const n = keep.length;
  const plan: Plan = { centre: new Float64Array(n), std: new Float64Array(n), variance: new Float64Array(n), kept: new Uint8Array(n).fill(1), raw: new Uint8Array(n) };
  const counts = { ones: 0, zeroVar: 0 };
  if (r.groups !== undefined) planGroups(r, s, plan, counts);
  const kept: number[] = [];
  for (let k = 0; k < n; k++) if (plan.kept[k] === 1 && plan.raw[k] === 0) kept.push(k);
  // Scale by a power of two (exact) so that no square or sum can overflow; epsilon and minStd scale with it.
  const sigma = isRunning(s) ? 1 : downscale(r.x);
  const unscaled = r.x;
  if (sigma !== 1) {
    r.x = r.x.map((v) => v * sigma);
    s = scaledSettings(s, sigma);
  }
  let next = state;
  if (isRunning(s)) {
    const start = state ?? INITIAL_RUNNING_STATE;
    const mean = kept.length > 0 ? weightedMean(r.x, r.w, kept) : 0;
    const weight = totalWeight(r.w, kept);
    next = kept.length > 0 ? updateRunning(start, mean, weightedVariance(r.x, r.w, kept, () => mean, 'biased') as number, weight) : start;
  }
  centreRows(r, s, plan, kept, next);
  scaleRows(r, s, plan, kept, next);
  const a = new Float64Array(n);
  const undivided = { n: 0 };
  for (let k = 0; k < n; k++) {
    if (plan.kept[k] === 0) continue;
    if (plan.raw[k] === 2) continue; // singleton 'zero': A = 0, kept for the whitening
    if (plan.raw[k] === 1) a[k] = divide(r.x[k] as number, s.scale === 'none' ? Number.NaN : sigma, sigma * sigma, s, keep[k] as number, undivided, sigma);
    else a[k] = divide((r.x[k] as number) - (plan.centre[k] as number), plan.std[k] as number, plan.variance[k] as number, s, keep[k] as number, undivided, sigma);
  }
  if (s.whiten) {
    const whitened: number[] = [];
    for (let k = 0; k < n; k++) if (plan.kept[k] === 1) whitened.push(k);
    whitenRows(a, r.ww, whitened, s);
  }
  if (sigma !== 1) for (let k = 0; k < n; k++) plan.centre[k] = (plan.centre[k] as number) / sigma;
  return finish(a, plan, unscaled, keep, size, s, { ...counts, groups: r.groups?.length ?? 0, undivided: undivided.n }, next);
}

/** 2^-(e + 1) with 2^e <= max |x| < 2^(e + 1) when max |x| > 1 (so max |sigma x| < 1), else 1: only ever scales down. */
function downscale(x: Float64Array): number {
  let max = 0;
  for (const v of x) max = Math.max(max, Math.abs(v));
  if (!(max > 1)) return 1;
  return 2 ** -(Math.floor(Math.log2(max)) + 1);
}

/** The settings for values scaled by sigma: a std scales by sigma, a variance by sigma^2. */
function scaledSettings(s: NormalizationSettings, sigma: number): NormalizationSettings {
  const byVariance = s.epsilonMode === 'add_variance' || s.epsilonMode === 'floor_variance';
  return { ...s, epsilon: s.epsilon * (byVariance ? sigma * sigma : sigma), minStd: s.minStd * sigma };
}

function toFiniteLength(values: unknown): number {
  if (typeof values !== 'object' || values === null || typeof (values as ArrayLike<number>).length !== 'number') {
    toFiniteFloat64('values', values); // throws the usual message
  }
  return (values as ArrayLike<number>).length;
}

function finish(
  a: Float64Array,
  plan: Plan,
  x: Float64Array,
  keep: number[],
  size: number,
  s: NormalizationSettings,
  counts: { ones: number; zeroVar: number; groups: number; undivided: number },
  state: RunningState | undefined,
): NormalizationResult {
  const advantages = new Float64Array(size);
  const centres = new Float64Array(size);
  const dropped = new Uint8Array(size).fill(1);
  let low = 0;
  let high = 0;
  let rowsDropped = 0;
  keep.forEach((i, k) => {
    let v = a[k] as number;
    if (s.clipLow !== undefined && v < s.clipLow) {
      v = s.clipLow;
      low++;
    }
    if (s.clipHigh !== undefined && v > s.clipHigh) {
      v = s.clipHigh;
      high++;
    }
    if (!Number.isFinite(v)) {
      throw new RlAdvantagesError(`values[${i}]: the normalised advantage is not finite (${v}); raise epsilon or minStd`, { code: 'overflow', field: 'values', index: i });
    }
    advantages[i] = v;
    if (plan.kept[k] === 1) {
      dropped[i] = 0;
      centres[i] = plan.raw[k] === 1 ? 0 : plan.raw[k] === 2 ? (x[k] as number) : (plan.centre[k] as number);
    } else rowsDropped++;
  });
  const diagnostics: NormalizationDiagnostics = Object.freeze({
    rows: size,
    masked: size - keep.length,
    groups: counts.groups,
    groupsOfOne: counts.ones,
    zeroVarianceGroups: counts.zeroVar,
    rowsDropped,
    rowsUndivided: counts.undivided,
    rowsClippedLow: low,
    rowsClippedHigh: high,
  });
  return Object.freeze({ advantages, centres, dropped, diagnostics, state });
}
