// Shared input validation. Every check throws RlAdvantagesError naming the field and index.
import { RlAdvantagesError } from '../errors.js';

/** A 1-D ndarray as scijs/ndarray defines it; accepted wherever a numeric vector is. */
export interface NdArrayLike {
  readonly shape: readonly number[];
  get(...indices: number[]): number;
}

export function isNdArray(value: unknown): value is NdArrayLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    Array.isArray((value as { shape?: unknown }).shape) &&
    typeof (value as { get?: unknown }).get === 'function'
  );
}

export function describe(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (Array.isArray(value)) return 'an array';
  return typeof value;
}

/**
 * Copies a numeric vector (array, typed array, or 1-D ndarray) into a fresh Float64Array,
 * throwing on any element that is not a finite number.
 */
export function toFiniteFloat64(field: string, values: unknown): Float64Array {
  if (values === null || values === undefined) {
    throw new RlAdvantagesError(`${field} is required`, { code: 'missing_field', field });
  }
  if (isNdArray(values)) {
    if (values.shape.length !== 1) {
      throw new RlAdvantagesError(`${field} must be a 1-D ndarray, got shape [${values.shape.join(', ')}]`, {
        code: 'bad_shape',
        field,
      });
    }
    const n = values.shape[0] ?? 0;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = checkFinite(field, i, values.get(i));
    return out;
  }
  if (typeof values !== 'object' || typeof (values as { length?: unknown }).length !== 'number') {
    throw new RlAdvantagesError(`${field} must be an array of numbers, got ${describe(values)}`, {
      code: 'bad_type',
      field,
    });
  }
  const list = values as ArrayLike<unknown>;
  const out = new Float64Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = checkFinite(field, i, list[i]);
  return out;
}

export function checkFinite(field: string, index: number, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new RlAdvantagesError(`${field}[${index}] must be a finite number, got ${describe(value)}`, {
      code: 'non_finite',
      field,
      index,
    });
  }
  return value;
}

/** Checks that an optional parallel array has exactly `expected` elements. */
export function checkLength(field: string, actual: number, expected: number, against = 'rewards'): void {
  if (actual !== expected) {
    throw new RlAdvantagesError(
      `${field} has ${actual} elements but ${against} has ${expected}; they must be the same length`,
      { code: 'length_mismatch', field },
    );
  }
}

/** Validates an array of strings, returning it unchanged. */
export function checkStrings(field: string, values: unknown): readonly string[] {
  if (!Array.isArray(values)) {
    throw new RlAdvantagesError(`${field} must be an array of strings, got ${describe(values)}`, {
      code: 'bad_type',
      field,
    });
  }
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] !== 'string') {
      throw new RlAdvantagesError(`${field}[${i}] must be a string, got ${describe(values[i])}`, {
        code: 'bad_type',
        field,
        index: i,
      });
    }
  }
  return values as readonly string[];
}

/** A temperature must be a finite number > 0. */
export function checkTemperature(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new RlAdvantagesError(`${field} must be a finite number > 0, got ${describe(value)}`, {
      code: 'bad_temperature',
      field,
    });
  }
  return value;
}

export function checkPositiveInteger(field: string, value: unknown, min = 1): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new RlAdvantagesError(`${field} must be an integer >= ${min}, got ${describe(value)}`, {
      code: 'bad_integer',
      field,
    });
  }
  return value;
}
