// Normalisation of centred advantages as its own step (docs/method.md section 2.1): none, group std or
// batch std, with epsilon and a std floor; two-pass variance.
import { RlAdvantagesError } from '../errors.js';
import type { Normalize, NormalizeOptions } from './types.js';
import { describe } from '../internal/validate.js';

/** A group of one: an error, A = 0, or verl's baseline 0 (and std 1) so that A = r (`'raw'`). */
export type Singleton = 'error' | 'zero' | 'raw';

/**
 * Reads the `singleton` option of a group estimator (docs/method.md section 2.2).
 *
 * @throws {@link RlAdvantagesError} (code `bad_option`) for anything but 'error', 'zero' or 'raw'.
 */
export function readSingleton(value: unknown, fallback: Singleton): Singleton {
  const v = value ?? fallback;
  if (v !== 'error' && v !== 'zero' && v !== 'raw') {
    throw new RlAdvantagesError(`singleton must be 'error', 'zero' or 'raw', got ${describe(v)}`, { code: 'bad_option', field: 'singleton' });
  }
  return v;
}

/** The error for a group of one under singleton 'error'. */
export function singletonError(index: number, estimator: string): RlAdvantagesError {
  return new RlAdvantagesError(
    `groupIds[${index}] is a group of one rollout; ${estimator} needs at least 2 rollouts in every group with singleton: 'error' (use singleton: 'zero' for A = 0, or 'raw' for verl's A = r)`,
    { code: 'group_too_small', field: 'groupIds', index },
  );
}

export interface NormalizeSettings {
  readonly normalize: Normalize;
  readonly epsilon: number;
  readonly stdFloor: number;
}

const MODES: readonly Normalize[] = ['none', 'group', 'batch'];

function nonNegative(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RlAdvantagesError(`${field} must be a finite number >= 0, got ${describe(value)}`, {
      code: 'bad_option',
      field,
    });
  }
  return value;
}

/** Validates the normalisation options, filling the estimator's defaults. */
export function readNormalize(
  options: NormalizeOptions | undefined,
  defaults: { normalize: Normalize; epsilon: number },
  allowed: readonly Normalize[] = MODES,
): NormalizeSettings {
  const o = options ?? {};
  const normalize = o.normalize ?? defaults.normalize;
  if (!allowed.includes(normalize)) {
    throw new RlAdvantagesError(`normalize must be one of ${allowed.map((m) => `'${m}'`).join(', ')}, got ${describe(normalize)}`, {
      code: 'bad_option',
      field: 'normalize',
    });
  }
  return {
    normalize,
    epsilon: nonNegative('epsilon', o.epsilon ?? defaults.epsilon),
    stdFloor: nonNegative('stdFloor', o.stdFloor ?? 0),
  };
}

/** Bessel (n - 1) standard deviation of rewards[members], two-pass; undefined for fewer than 2. */
export function twoPassStd(rewards: Float64Array, members: ArrayLike<number>): number | undefined {
  const n = members.length;
  if (n < 2) return undefined;
  let sum = 0;
  for (let k = 0; k < n; k++) sum += rewards[members[k] as number] as number;
  const mean = sum / n;
  let squares = 0;
  for (let k = 0; k < n; k++) squares += ((rewards[members[k] as number] as number) - mean) ** 2;
  return Math.sqrt(squares / (n - 1));
}

/**
 * A_i = c_i / (max(s, stdFloor) + epsilon) over `members` (one group, or the whole batch), written
 * into `out`. No std (fewer than 2 members) gives A = 0; c_i = 0 gives A = 0 exactly.
 */
function scaleInto(
  centred: Float64Array,
  rewards: Float64Array,
  members: ArrayLike<number>,
  settings: NormalizeSettings,
  out: Float64Array,
  where: string,
  raw = false,
): void {
  // A group of one under singleton 'raw' divides by a std of 1, as verl sets it (docs/method.md section 2.2).
  const std = raw && members.length === 1 ? 1 : twoPassStd(rewards, members);
  const denominator = std === undefined ? undefined : Math.max(std, settings.stdFloor) + settings.epsilon;
  for (let k = 0; k < members.length; k++) {
    const i = members[k] as number;
    const c = centred[i] as number;
    if (c === 0 || denominator === undefined) {
      out[i] = 0;
      continue;
    }
    if (denominator === 0) {
      throw new RlAdvantagesError(
        `rewards[${i}]: ${where} has std 0 and epsilon = stdFloor = 0, so r - b = ${c} cannot be normalised; give epsilon or stdFloor > 0`,
        { code: 'zero_std', field: 'rewards', index: i },
      );
    }
    out[i] = c / denominator;
  }
}

/**
 * The normalisation step: centred advantages c (r - b) scaled as `settings` says. `members` are the
 * groups (needed for 'group'; the caller reads them from groupIds).
 */
export function normalizeAdvantages(
  centred: Float64Array,
  rewards: Float64Array,
  members: readonly Int32Array[] | undefined,
  settings: NormalizeSettings,
  singleton: Singleton = 'zero',
): Float64Array {
  if (settings.normalize === 'none') return centred;
  const out = new Float64Array(centred.length);
  if (settings.normalize === 'batch') {
    const all = new Int32Array(centred.length);
    for (let i = 0; i < all.length; i++) all[i] = i;
    scaleInto(centred, rewards, all, settings, out, 'the batch');
    return out;
  }
  if (members === undefined) {
    throw new RlAdvantagesError("groupIds is required: normalize 'group' divides by each group's std", {
      code: 'missing_field',
      field: 'groupIds',
    });
  }
  for (const group of members) scaleInto(centred, rewards, group, settings, out, `the group of rollout ${group[0] as number}`, singleton === 'raw');
  return out;
}
