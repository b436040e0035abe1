// Turning calibration.jsonl rows (one rollout a line) into tasks with their rewards.
import { RlAdvantagesError } from '../errors.js';
import { checkFinite, describe } from '../internal/validate.js';
import { checkRewardInBound } from '../estimators/batch.js';

/** One calibration task: its prompt and the rewards of its G rollouts from the starting policy. */
export interface CalibrationTask {
  readonly taskId: string;
  readonly prompt: string;
  readonly rewards: readonly number[];
}

/** One line of `calibration.jsonl` (docs/method.md section 9): one rollout of one task. */
export interface CalibrationRow {
  readonly task_id: string;
  readonly prompt: string;
  readonly reward: number;
}

/**
 * Groups calibration rows (one rollout each, `{task_id, prompt, reward}`) into tasks, in order of
 * each task's first appearance; a task's rewards keep the rows' order.
 *
 * @param rows - parsed `calibration.jsonl` rows.
 * @returns one {@link CalibrationTask} per distinct `task_id`.
 * @throws `RlAdvantagesError` if `rows` is not an array, a row is not an object, `task_id` is
 *   not a non-empty string, `prompt` is not a string, `reward` is not a finite number, or a row's
 *   prompt differs from the prompt of an earlier row of the same task (the message names both rows,
 *   e.g. `rows[5].prompt differs from rows[0].prompt of task "gsm8k_train_7"`).
 * @example
 * ```ts
 * groupCalibrationRows([
 *   { task_id: 'a', prompt: 'What is 2+2?', reward: 1 },
 *   { task_id: 'b', prompt: 'What is 3*3?', reward: 0 },
 *   { task_id: 'a', prompt: 'What is 2+2?', reward: 0 },
 * ]);
 * // [{ taskId: 'a', prompt: 'What is 2+2?', rewards: [1, 0] }, { taskId: 'b', prompt: 'What is 3*3?', rewards: [0] }]
 * ```
 */
export function groupCalibrationRows(rows: readonly CalibrationRow[]): CalibrationTask[] {
  if (!Array.isArray(rows)) {
    throw new RlAdvantagesError(`rows must be an array of {task_id, prompt, reward}, got ${describe(rows)}`, {
      code: 'bad_type',
      field: 'rows',
    });
  }
  const byId = new Map<string, { first: number; prompt: string; rewards: number[] }>();
  rows.forEach((row: unknown, i) => {
    if (typeof row !== 'object' || row === null || Array.isArray(row)) {
      throw new RlAdvantagesError(`rows[${i}] must be an object {task_id, prompt, reward}, got ${describe(row)}`, {
        code: 'bad_type',
        field: 'rows',
        index: i,
      });
    }
    const { task_id: id, prompt, reward } = row as Record<string, unknown>;
    if (typeof id !== 'string' || id === '') {
      throw new RlAdvantagesError(`rows[${i}].task_id must be a non-empty string, got ${describe(id)}`, {
        code: 'bad_type',
        field: 'task_id',
        index: i,
      });
    }
    if (typeof prompt !== 'string') {
      throw new RlAdvantagesError(`rows[${i}].prompt must be a string, got ${describe(prompt)}`, {
        code: 'bad_type',
        field: 'prompt',
        index: i,
      });
    }
    if (typeof reward !== 'number' || !Number.isFinite(reward)) {
      throw new RlAdvantagesError(`rows[${i}].reward must be a finite number, got ${describe(reward)}`, {
        code: 'non_finite',
        field: 'reward',
        index: i,
      });
    }
    checkRewardInBound('reward', i, reward, `rows[${i}].reward`);
    const task = byId.get(id);
    if (task === undefined) {
      byId.set(id, { first: i, prompt, rewards: [reward] });
      return;
    }
    if (task.prompt !== prompt) {
      throw new RlAdvantagesError(
        `rows[${i}].prompt differs from rows[${task.first}].prompt of task ${JSON.stringify(id)}; every rollout of a task must have the same prompt`,
        { code: 'inconsistent_prompt', field: 'prompt', index: i },
      );
    }
    task.rewards.push(reward);
  });
  return [...byId].map(([taskId, task]) => ({ taskId, prompt: task.prompt, rewards: task.rewards }));
}

/** Validated, flattened tasks: what the calibration engine works on. */
export interface TaskTable {
  readonly count: number;
  readonly ids: readonly string[];
  readonly prompts: readonly string[];
  /** Rollout g of task k is rewards[offsets[k] + g]. */
  readonly offsets: Int32Array;
  readonly rewards: Float64Array;
  /** G_k. */
  readonly sizes: Int32Array;
}

/** Validates `tasks` (each a {taskId, prompt, rewards}) and flattens them. Internal. */
export function readTasks(tasks: readonly CalibrationTask[]): TaskTable {
  if (!Array.isArray(tasks)) {
    throw new RlAdvantagesError(`tasks must be an array of {taskId, prompt, rewards}, got ${describe(tasks)}`, {
      code: 'bad_type',
      field: 'tasks',
    });
  }
  const ids: string[] = [];
  const prompts: string[] = [];
  const seen = new Map<string, number>();
  const offsets = new Int32Array(tasks.length + 1);
  const sizes = new Int32Array(tasks.length);
  const all: number[] = [];
  tasks.forEach((task: unknown, k) => {
    if (typeof task !== 'object' || task === null || Array.isArray(task)) {
      throw new RlAdvantagesError(`tasks[${k}] must be an object {taskId, prompt, rewards}, got ${describe(task)}`, {
        code: 'bad_type',
        field: 'tasks',
        index: k,
      });
    }
    const { taskId, prompt, rewards } = task as Record<string, unknown>;
    if (typeof taskId !== 'string' || taskId === '') {
      throw new RlAdvantagesError(`tasks[${k}].taskId must be a non-empty string, got ${describe(taskId)}`, {
        code: 'bad_type',
        field: 'taskId',
        index: k,
      });
    }
    const first = seen.get(taskId);
    if (first !== undefined) {
      throw new RlAdvantagesError(`tasks[${k}].taskId ${JSON.stringify(taskId)} repeats tasks[${first}].taskId`, {
        code: 'duplicate_task',
        field: 'taskId',
        index: k,
      });
    }
    seen.set(taskId, k);
    if (typeof prompt !== 'string') {
      throw new RlAdvantagesError(`tasks[${k}].prompt must be a string, got ${describe(prompt)}`, {
        code: 'bad_type',
        field: 'prompt',
        index: k,
      });
    }
    if (!Array.isArray(rewards) || rewards.length === 0) {
      throw new RlAdvantagesError(`tasks[${k}].rewards must be a non-empty array of numbers, got ${describe(rewards)}`, {
        code: 'bad_type',
        field: 'rewards',
        index: k,
      });
    }
    for (let g = 0; g < rewards.length; g++) all.push(checkRewardInBound('rewards', g, checkFinite(`tasks[${k}].rewards`, g, rewards[g]), `tasks[${k}].rewards[${g}]`));
    ids.push(taskId);
    prompts.push(prompt);
    sizes[k] = rewards.length;
    offsets[k + 1] = all.length;
  });
  return { count: tasks.length, ids, prompts, offsets, rewards: Float64Array.from(all), sizes };
}

/**
 * One step of a partial Fisher-Yates shuffle of the task positions, then one rollout of the drawn task: swaps a
 * uniformly chosen position of i..size-1 into i (so positions[0..i] is an ordered sample without replacement,
 * from any starting arrangement), draws rollout g uniformly among task k's G_k, and returns its index
 * offsets[k] + g in the table's rewards. Two `rng.quick()` draws, in that order: every caller that draws batches
 * this way sees the same batches for the same seed (common random numbers). Internal.
 */
export function drawRollout(rng: { quick(): number }, positions: Int32Array, i: number, size: number, table: TaskTable): number {
  const j = i + Math.floor(rng.quick() * (size - i));
  const k = positions[j] as number;
  positions[j] = positions[i] as number;
  positions[i] = k;
  return (table.offsets[k] as number) + Math.floor(rng.quick() * (table.sizes[k] as number));
}
