// Validation of kernel.json fields: every error names the field's path (e.g. `kernel.params.bandwidth`).
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';

/** A plain JSON object (not null, not an array). */
export type JsonObject = Readonly<Record<string, unknown>>;

export function fail(path: string, message: string, code = 'bad_kernel'): never {
  throw new RlAdvantagesError(`${path} ${message}`, { code, field: path });
}

export function readObject(value: unknown, path: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(path, `must be an object, got ${describe(value)}`);
  return value as JsonObject;
}

export function readNumber(value: unknown, path: string, positive = false): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || (positive && !(value > 0))) {
    fail(path, `must be a finite number${positive ? ' > 0' : ''}, got ${describe(value)}`);
  }
  return value;
}

export function readBoolean(value: unknown, path: string): boolean {
  if (typeof value !== 'boolean') fail(path, `must be true or false, got ${describe(value)}`);
  return value;
}

export function readChoice<T extends string>(value: unknown, path: string, choices: readonly T[]): T {
  if (typeof value !== 'string' || !(choices as readonly string[]).includes(value)) {
    fail(path, `must be one of ${choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describe(value)}`);
  }
  return value as T;
}

export function readNumbers(value: unknown, path: string, length?: number, positive = false): number[] {
  if (!Array.isArray(value)) fail(path, `must be an array of numbers, got ${describe(value)}`);
  if (length !== undefined && value.length !== length) fail(path, `must have ${length} entries, got ${value.length}`);
  return value.map((v, i) => readNumber(v, `${path}[${i}]`, positive));
}

/** Deep-freezes a JSON value (objects and arrays), returning it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value as object)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
