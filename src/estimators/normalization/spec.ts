// The options of the normalisation step (docs/method.md section 2.6), validated once into settings.
import { RlAdvantagesError } from '../../errors.js';
import { describe } from '../../internal/validate.js';

/** What is subtracted: nothing, the group's mean, the batch's mean, or the running mean (ROLL). */
export type Centre = 'none' | 'group' | 'batch' | 'running';
/** What is divided by: nothing, the group's std, the batch's std, the std of the group's other rollouts (NeMo-RL), or the running std (ROLL). */
export type Scale = 'none' | 'group' | 'batch' | 'loo' | 'running';
/** Where epsilon enters: s + eps, max(s, eps), sqrt(v + eps) or sqrt(max(v, eps)). */
export type EpsilonMode = 'add_std' | 'floor_std' | 'add_variance' | 'floor_variance';
/** Unbiased (W - 1) or biased (W) variance, W the total weight. */
export type Variance = 'unbiased' | 'biased';
/** Each rollout weighs 1, or its length in tokens (`lengths`). */
export type Weights = 'rollout' | 'tokens';
/**
 * A group of one: an error; A = 0 (`'zero'`, the row still takes part in the whitening with its 0, as NeMo-RL);
 * A = 0 and the row dropped (`'drop'`: left out of every statistic and of the loss, as TRL's NaN); or verl's mean 0
 * and std 1 (`'raw'`).
 */
export type Singleton = 'error' | 'zero' | 'drop' | 'raw';

/**
 * The normalisation step's options (docs/method.md section 2.6). Every field is optional; the defaults make the
 * step verl's GRPO normalisation: centre 'group', scale 'group', unbiased, epsilon 1e-6 added to the std.
 */
export interface NormalizationSpec {
  /** What is subtracted. Default `'group'`. */
  centre?: Centre;
  /** Leave the rollout itself out of the centre's mean (AReaL `mean_leave1out`; RLOO). Default false. */
  leaveOneOut?: boolean;
  /** What is divided by. Default `'group'`. */
  scale?: Scale;
  /** Default `'unbiased'`. */
  variance?: Variance;
  /** Default 1e-6. */
  epsilon?: number;
  /** Default `'add_std'`. */
  epsilonMode?: EpsilonMode;
  /** A minimum std: s is replaced by max(s, minStd) before epsilon. Default 0. */
  minStd?: number;
  /** `'skip'`: a std of exactly 0 leaves the centred value undivided (NeMo-RL's `std > 0` guard). Default `'divide'`. */
  zeroStd?: 'divide' | 'skip';
  /** The std measures deviations from the plain mean (`'mean'`, default) or from each row's centre (`'centre'`, AReaL). */
  stdAround?: 'mean' | 'centre';
  /** Default `'rollout'`. */
  weights?: Weights;
  /** A group of one. Default `'zero'`. */
  singleton?: Singleton;
  /** A group of >= 2 equal values: `'keep'` (A = 0 from the arithmetic) or `'mask'` (A = 0 and the rows dropped). Default `'keep'`. */
  zeroVariance?: 'keep' | 'mask';
  /** Whiten the advantages over the batch after centring and scaling. Default false. */
  whiten?: boolean;
  /** Variance of the whitening. Default `'unbiased'`. */
  whitenVariance?: Variance;
  /** Epsilon of the whitening. Default 1e-8. */
  whitenEpsilon?: number;
  /** Default `'add_variance'` (verl's `masked_whiten`). */
  whitenEpsilonMode?: EpsilonMode;
  /** Default `'rollout'`. */
  whitenWeights?: Weights;
  /** Default `'divide'`. */
  whitenZeroStd?: 'divide' | 'skip';
  /** Added to the token count in the whitening's mean and variance denominators (verl's `masked_mean` uses 1e-8). Default 0. */
  whitenCountEpsilon?: number;
  /** Clip the final advantages below at this value (NeMo-RL `advantage_clip_low`). */
  clipLow?: number;
  /** Clip the final advantages above at this value (NeMo-RL `advantage_clip_high`). */
  clipHigh?: number;
}

/** {@link NormalizationSpec} with every default filled in and every value checked. */
export interface NormalizationSettings {
  readonly centre: Centre;
  readonly leaveOneOut: boolean;
  readonly scale: Scale;
  readonly variance: Variance;
  readonly epsilon: number;
  readonly epsilonMode: EpsilonMode;
  readonly minStd: number;
  readonly zeroStd: 'divide' | 'skip';
  readonly stdAround: 'mean' | 'centre';
  readonly weights: Weights;
  readonly singleton: Singleton;
  readonly zeroVariance: 'keep' | 'mask';
  readonly whiten: boolean;
  readonly whitenVariance: Variance;
  readonly whitenEpsilon: number;
  readonly whitenEpsilonMode: EpsilonMode;
  readonly whitenWeights: Weights;
  readonly whitenZeroStd: 'divide' | 'skip';
  readonly whitenCountEpsilon: number;
  readonly clipLow: number | undefined;
  readonly clipHigh: number | undefined;
}

export const DEFAULT_NORMALIZATION: NormalizationSettings = Object.freeze({
  centre: 'group',
  leaveOneOut: false,
  scale: 'group',
  variance: 'unbiased',
  epsilon: 1e-6,
  epsilonMode: 'add_std',
  minStd: 0,
  zeroStd: 'divide',
  stdAround: 'mean',
  weights: 'rollout',
  singleton: 'zero',
  zeroVariance: 'keep',
  whiten: false,
  whitenVariance: 'unbiased',
  whitenEpsilon: 1e-8,
  whitenEpsilonMode: 'add_variance',
  whitenWeights: 'rollout',
  whitenZeroStd: 'divide',
  whitenCountEpsilon: 0,
  clipLow: undefined,
  clipHigh: undefined,
});

/** The allowed values of each string option, in the order the docs list them. */
export const NORMALIZATION_CHOICES = Object.freeze({
  centre: ['none', 'group', 'batch', 'running'],
  scale: ['none', 'group', 'batch', 'loo', 'running'],
  variance: ['unbiased', 'biased'],
  epsilonMode: ['add_std', 'floor_std', 'add_variance', 'floor_variance'],
  zeroStd: ['divide', 'skip'],
  stdAround: ['mean', 'centre'],
  weights: ['rollout', 'tokens'],
  singleton: ['error', 'zero', 'drop', 'raw'],
  zeroVariance: ['keep', 'mask'],
  whitenVariance: ['unbiased', 'biased'],
  whitenEpsilonMode: ['add_std', 'floor_std', 'add_variance', 'floor_variance'],
  whitenWeights: ['rollout', 'tokens'],
  whitenZeroStd: ['divide', 'skip'],
} as const);

const NUMBERS = ['epsilon', 'minStd', 'whitenEpsilon', 'whitenCountEpsilon'] as const;
const BOOLEANS = ['leaveOneOut', 'whiten'] as const;
const KNOWN = new Set<string>([...Object.keys(DEFAULT_NORMALIZATION)]);

function choice(field: string, value: unknown, allowed: readonly string[]): void {
  if (typeof value !== 'string' || !allowed.includes(value)) {
    throw new RlAdvantagesError(`${field} must be one of ${allowed.map((m) => `'${m}'`).join(', ')}, got ${describe(value)}`, {
      code: 'bad_option',
      field,
    });
  }
}

/**
 * Checks a {@link NormalizationSpec} and fills its defaults. Unknown keys are errors.
 *
 * @throws {@link RlAdvantagesError} (code `bad_option`) naming the field: an unknown key, a string option not
 *   among its choices, a negative or non-finite number, clipLow > clipHigh, or a running centre or scale with
 *   leaveOneOut.
 * @example
 * ```ts
 * readNormalization({ centre: 'group', scale: 'none' }).epsilon; // 1e-6
 * ```
 */
export function readNormalization(spec: NormalizationSpec | undefined): NormalizationSettings {
  const given = (spec ?? {}) as Record<string, unknown>;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    throw new RlAdvantagesError(`normalization must be an object of options, got ${describe(given)}`, { code: 'bad_option', field: 'normalization' });
  }
  for (const key of Object.keys(given)) {
    if (!KNOWN.has(key)) {
      throw new RlAdvantagesError(`unknown normalization option "${key}"; known: ${[...KNOWN].join(', ')}`, { code: 'bad_option', field: key });
    }
  }
  const out: Record<string, unknown> = { ...DEFAULT_NORMALIZATION };
  for (const [key, value] of Object.entries(given)) if (value !== undefined) out[key] = value;
  for (const [field, allowed] of Object.entries(NORMALIZATION_CHOICES)) choice(field, out[field], allowed);
  for (const field of NUMBERS) {
    const v = out[field];
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new RlAdvantagesError(`${field} must be a finite number >= 0, got ${describe(v)}`, { code: 'bad_option', field });
    }
  }
  for (const field of BOOLEANS) {
    if (typeof out[field] !== 'boolean') {
      throw new RlAdvantagesError(`${field} must be true or false, got ${describe(out[field])}`, { code: 'bad_option', field });
    }
  }
  for (const field of ['clipLow', 'clipHigh'] as const) {
    const v = out[field];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v))) {
      throw new RlAdvantagesError(`${field} must be a finite number, got ${describe(v)}`, { code: 'bad_option', field });
    }
  }
  if (out.clipLow !== undefined && out.clipHigh !== undefined && (out.clipLow as number) > (out.clipHigh as number)) {
    throw new RlAdvantagesError(`clipLow (${String(out.clipLow)}) must be <= clipHigh (${String(out.clipHigh)})`, { code: 'bad_option', field: 'clipLow' });
  }
  if (out.leaveOneOut === true && (out.centre === 'running' || out.centre === 'none')) {
    throw new RlAdvantagesError(`leaveOneOut needs centre 'group' or 'batch', got '${String(out.centre)}'`, { code: 'bad_option', field: 'leaveOneOut' });
  }
  return Object.freeze(out) as unknown as NormalizationSettings;
}

/** Whether the settings read groups (group centre or scale, a singleton or zero-variance rule). */
export function needsGroups(s: NormalizationSettings): boolean {
  return s.centre === 'group' || s.scale === 'group' || s.scale === 'loo' || s.zeroVariance === 'mask';
}

/** Whether the settings keep state across batches (a running centre or scale). */
export function isRunning(s: NormalizationSettings): boolean {
  return s.centre === 'running' || s.scale === 'running';
}

/** Whether the settings read `lengths`. */
export function needsLengths(s: NormalizationSettings): boolean {
  return s.weights === 'tokens' || (s.whiten && s.whitenWeights === 'tokens');
}

/**
 * The denominator for a std s (or a variance s^2) as `mode` says, after the minimum std:
 * add_std: max(s, m) + eps; floor_std: max(s, m, eps); add_variance: sqrt(max(s, m)^2 + eps);
 * floor_variance: sqrt(max(s^2, m^2, eps)).
 */
export function denominator(std: number, variance: number, minStd: number, epsilon: number, mode: EpsilonMode): number {
  const s = Math.max(std, minStd);
  const v = std >= minStd ? variance : minStd * minStd;
  switch (mode) {
    case 'add_std':
      return s + epsilon;
    case 'floor_std':
      return Math.max(s, epsilon);
    case 'add_variance':
      return Math.sqrt(v + epsilon);
    case 'floor_variance':
      return Math.sqrt(Math.max(v, epsilon));
  }
}
