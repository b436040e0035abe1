// Names a spec or a user's file turns into parts of a path (arm names, comparison ids), and paths built from them:
// a name is one safe path part or it is refused where the spec is read, and every path the study builds from user
// input is checked to stay under the run folder before anything is written there.
import path from 'node:path';
import { RlAdvantagesError } from '../errors.js';

/** The longest name that becomes a path part (an arm name, a comparison id). */
export const PATH_PART_MAX_LENGTH = 64;

/** A safe path part: letters, digits, `_`, `-` and `.`, not starting with `.` (so never `.`, `..` or hidden). */
const SAFE_PART = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/**
 * Why `name` cannot be one part of a path, or undefined when it can: it must be 1 to {@link PATH_PART_MAX_LENGTH}
 * characters of `A-Z a-z 0-9 _ - .`, not starting with `.` (so no `.`, `..`, hidden name or separator).
 *
 * @example
 * ```ts
 * pathPartProblem('gs1_tfidf_g1'); // undefined
 * pathPartProblem('../../X'); // 'must be a safe name (...)'
 * ```
 */
export function pathPartProblem(name: string): string | undefined {
  const rule = `1 to ${PATH_PART_MAX_LENGTH} characters of A-Z a-z 0-9 _ - ., not starting with "." (it names a folder or file of the run)`;
  if (name.length > PATH_PART_MAX_LENGTH) return `must be at most ${PATH_PART_MAX_LENGTH} characters (${rule}), got ${name.length}`;
  if (!SAFE_PART.test(name)) return `must be a safe name: ${rule}, got ${JSON.stringify(name)}`;
  return undefined;
}

/**
 * `path.join(root, ...parts)`, checked to stay inside `root` (the run folder): refused when any part is absolute or
 * the joined path leaves `root` (a `..` part, a separator in a part that climbs). The check is on the path's text;
 * the names that reach here were checked where the spec was read ({@link pathPartProblem}), so this is the second
 * line.
 *
 * @throws {RlAdvantagesError} `path_outside_run` naming the part and the folder.
 * @example
 * ```ts
 * pathUnder('runs/a', 'arms', 'grpo_g8'); // 'runs/a/arms/grpo_g8'
 * pathUnder('runs/a', 'arms', '../../X'); // throws path_outside_run
 * ```
 */
export function pathUnder(root: string, ...parts: string[]): string {
  const joined = path.join(root, ...parts);
  const relative = path.relative(path.resolve(root), path.resolve(joined));
  const outside = parts.some((p) => path.isAbsolute(p)) || path.isAbsolute(relative) || relative === '..' || relative.startsWith(`..${path.sep}`);
  if (outside) {
    throw new RlAdvantagesError(`the path ${JSON.stringify(parts.join('/'))} leaves the run folder ${root}: refusing to write outside it`, { code: 'path_outside_run', field: parts.join('/') });
  }
  return joined;
}
