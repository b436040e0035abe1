// Collecting a spec's problems: every problem with its JSON path, reported at once (StudySpecError), and the
// small checks the spec's sections share. src/study/spec.ts validates the sections with them.
import { RlAdvantagesError } from '../errors.js';
import { pathPartProblem } from './path-parts.js';
import { describe } from './validate.js';

/** One problem found in a spec: where it is (a JSON path such as `arms[1].advantage`) and what is wrong. */
export interface SpecProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * Thrown when a study spec (or one of its sections) is invalid. It lists every problem at once,
 * each with its JSON path, so a user fixes the spec in one pass. Always `instanceof RlAdvantagesError`
 * with `code === 'invalid_spec'`; `field` is the path of the first problem.
 *
 * @example
 * ```ts
 * import { loadStudySpec } from 'rl-advantages/study';
 * import { StudySpecError } from 'rl-advantages/stats';
 * try {
 *   loadStudySpec({ decision_rule: {}, activation_gate: {}, arms: [] });
 * } catch (error) {
 *   if (error instanceof StudySpecError) for (const p of error.problems) console.log(p.path, p.message);
 * }
 * ```
 */
export class StudySpecError extends RlAdvantagesError {
  /** Every problem found, in document order. Never empty. */
  readonly problems: readonly SpecProblem[];

  constructor(problems: readonly SpecProblem[], what = 'study spec') {
    const lines = problems.map((p) => `  - ${p.path ? p.path + ' ' : ''}${p.message}`);
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`invalid ${what} (${count}):\n${lines.join('\n')}`, {
      code: 'invalid_spec',
      ...(problems[0]?.path ? { field: problems[0].path } : {}),
    });
    this.name = 'StudySpecError';
    this.problems = problems;
  }
}


/** A JSON object. */
export type Obj = Record<string, unknown>;


/** True for a JSON object (not null, not an array). */
export function isObject(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `path.name`, or `name` at the top level. */
export function key(path: string, name: string): string {
  return path ? `${path}.${name}` : name;
}

/** Collects problems instead of throwing, so one pass reports all of them. */
export class Problems {
  readonly list: SpecProblem[] = [];
  add(path: string, message: string): void {
    this.list.push({ path, message });
  }
  throwIfAny(what?: string): void {
    if (this.list.length > 0) throw new StudySpecError(this.list, what);
  }
}

/** The value if it is a non-empty string, else a problem at `path`. */
export function nonEmptyString(p: Problems, path: string, value: unknown): string | undefined {
  if (typeof value !== 'string' || value.trim() === '') {
    p.add(path, `must be a non-empty string, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

/** The value if it is a finite number, else a problem at `path`. */
export function finiteNumber(p: Problems, path: string, value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    p.add(path, `must be a finite number, got ${describe(value)}`);
    return undefined;
  }
  return value;
}

/** A problem at `path` unless the value is absent or an integer >= `min`. */
export function optionalInteger(p: Problems, path: string, value: unknown, min: number): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    p.add(path, `must be an integer >= ${min}, got ${describe(value)}`);
  }
}

/**
 * The value if it is a string that can be one part of a path (an arm name, a comparison id: they name folders and
 * files of a run; {@link pathPartProblem}), else a problem at `path`.
 */
export function pathPartName(p: Problems, path: string, value: unknown): string | undefined {
  const name = nonEmptyString(p, path, value);
  if (name === undefined) return undefined;
  const problem = pathPartProblem(name);
  if (problem === undefined) return name;
  p.add(path, problem);
  return undefined;
}
