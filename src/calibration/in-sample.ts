// Whether a calibration scores a tuned kernel on the tasks it was tuned on: a kernel file records every task whose
// reward it saw (provenance.tuning_tasks: task id and prompt sha256); a calibration on those tasks measures how well
// the kernel fits them, not how it does on new ones (docs/method.md section 4.3, the held-out ratio).
import { createHash } from 'node:crypto';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import type { CalibrationTask } from './rows.js';

/** How many of a calibration's tasks a kernel was tuned on. */
export interface InSampleTasks {
  /** Calibration tasks the kernel saw, by task id or by prompt. */
  readonly tasks: number;
  /** The calibration's tasks. */
  readonly of: number;
  /** Up to 3 of them, e.g. `gsm8k_train_7` or `q9 (same prompt as gsm8k_train_7)`. */
  readonly examples: readonly string[];
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * The calibration tasks each kernel file was tuned on (its `provenance.tuning_tasks`), matched by task id or by
 * prompt (sha256); kernels without provenance, or that saw none of the tasks, are left out.
 *
 * @param tasks - the calibration's tasks (`groupCalibrationRows`).
 * @param kernels - loaded kernel files by estimator name (as `calibrateBeff`'s `kernels`).
 * @returns by estimator name, the tasks shared with the kernel's tuning data.
 * @example
 * ```ts
 * const shared = inSampleTasks(tasks, { 'kernel:kernel.json': kernel });
 * shared['kernel:kernel.json']?.tasks; // 330: the figure is in-sample
 * ```
 */
export function inSampleTasks(tasks: readonly CalibrationTask[], kernels: Readonly<Record<string, LoadedKernel>>): Record<string, InSampleTasks> {
  const out: Record<string, InSampleTasks> = {};
  for (const [name, kernel] of Object.entries(kernels)) {
    const seen = kernel.file.provenance?.tuning_tasks;
    if (!Array.isArray(seen) || seen.length === 0) continue;
    const ids = new Set<string>();
    const prompts = new Map<string, string>();
    for (const t of seen) {
      if (typeof t?.task_id === 'string') ids.add(t.task_id);
      if (typeof t?.prompt_sha256 === 'string') prompts.set(t.prompt_sha256, String(t.task_id));
    }
    const shared: string[] = [];
    for (const task of tasks) {
      if (ids.has(task.taskId)) shared.push(task.taskId);
      else {
        const other = prompts.get(sha256(task.prompt));
        if (other !== undefined) shared.push(`${task.taskId} (same prompt as ${other})`);
      }
    }
    if (shared.length > 0) out[name] = { tasks: shared.length, of: tasks.length, examples: shared.slice(0, 3) };
  }
  return out;
}

/** The warning for one kernel scored on tasks it was tuned on. */
export function inSampleWarning(name: string, shared: InSampleTasks): string {
  return (
    `${name} was tuned on ${shared.tasks} of the ${shared.of} tasks scored here (by task id or prompt: ${shared.examples.join(', ')}` +
    `${shared.tasks > shared.examples.length ? ', ...' : ''}): its ratio is in-sample and optimistic, not what to expect on new tasks; ` +
    "score it on tasks it never saw (the kernel file's held-out ratio is that figure)"
  );
}
