// The user feature vectors of tuneKernel's `features` option (the `embedding` family, docs/method.md section 2.4):
// rows keyed by task_id or prompt, validated in one place and resolved to a vector per prompt.
import { RlAdvantagesError } from '../errors.js';
import { describe } from '../internal/validate.js';
import type { CalibrationTask } from '../calibration/rows.js';

/** One user feature vector: keyed by `task_id` (a task of the input rows) or by `prompt` (exactly one of them). */
export interface FeatureRow {
  readonly task_id?: string;
  readonly prompt?: string;
  readonly features: readonly number[];
}

function bad(index: number, field: string, message: string, code = 'bad_features'): never {
  throw new RlAdvantagesError(`features[${index}].${field} ${message}`, { code, field, index });
}

/**
 * The vector of every prompt: rows keyed by task_id resolve to that input task's prompt (a task_id that is not an
 * input task is skipped: its prompt is unknown); rows keyed by prompt are kept as given.
 *
 * @throws `RlAdvantagesError` (code `bad_features`, field the row's field, index the row) for a row that is not
 *   an object, gives neither or both keys, a `features` that is not an array of finite numbers, of another length than
 *   the first row's, or a key (task or prompt) given twice; (code `missing_features`, field `features`) when an input
 *   task has no vector, naming the first such task id.
 */
export function resolveFeatureRows(rows: readonly FeatureRow[], tasks: readonly CalibrationTask[]): Map<string, readonly number[]> {
  if (!Array.isArray(rows) || rows.length === 0) {
    throw new RlAdvantagesError('features must be a non-empty array of {task_id | prompt, features}', { code: 'bad_features', field: 'features' });
  }
  const promptOf = new Map(tasks.map((t) => [t.taskId, t.prompt]));
  const out = new Map<string, readonly number[]>();
  const seen = new Map<string, number>();
  let dimension = -1;
  rows.forEach((row: unknown, i) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) bad(i, 'features', `row must be an object {task_id | prompt, features}, got ${describe(row)}`);
    const r = row as Record<string, unknown>;
    const hasId = r.task_id !== undefined;
    const hasPrompt = r.prompt !== undefined;
    if (hasId === hasPrompt) bad(i, hasId ? 'prompt' : 'task_id', 'exactly one of task_id and prompt must key the row');
    const keyField = hasId ? 'task_id' : 'prompt';
    const key = r[keyField];
    if (typeof key !== 'string') bad(i, keyField, `must be a string, got ${describe(key)}`);
    const v = r.features;
    if (!Array.isArray(v) || v.length === 0) bad(i, 'features', `must be a non-empty array of finite numbers, got ${describe(v)}`);
    v.forEach((x: unknown, k) => {
      if (typeof x !== 'number' || !Number.isFinite(x)) bad(i, 'features', `entry [${k}] must be a finite number, got ${describe(x)}`);
    });
    if (dimension < 0) dimension = v.length;
    else if (v.length !== dimension) bad(i, 'features', `has ${v.length} entries at index ${i}, the first row has ${dimension}`);
    const seenKey = `${keyField}\u0000${key}`;
    const previous = seen.get(seenKey);
    if (previous !== undefined) bad(i, keyField, `${JSON.stringify(key)} is given twice (rows ${previous} and ${i})`);
    seen.set(seenKey, i);
    const prompt = hasId ? promptOf.get(key) : key;
    if (prompt === undefined) return;
    if (out.has(prompt)) bad(i, keyField, `${JSON.stringify(key)}: its prompt already has a vector from an earlier row`);
    out.set(prompt, Object.freeze([...(v as number[])]));
  });
  const missing = tasks.find((t) => !out.has(t.prompt));
  if (missing !== undefined) {
    throw new RlAdvantagesError(`task ${JSON.stringify(missing.taskId)} has no feature vector: every input task needs one (by task_id or prompt)`, {
      code: 'missing_features',
      field: 'features',
    });
  }
  return out;
}
