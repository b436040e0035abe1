// A kernel file as tune-kernel writes it (hand-written fitted parts, provenance naming the tasks it saw), for the
// study revise and kernel-arm tests.
import { createHash } from 'node:crypto';
import type { Gsm8kItem } from '../../src/data/gsm8k.js';
import { handKernels } from './kernels.js';

const sha = (text: string): string => createHash('sha256').update(text).digest('hex');

/** A `length` kernel (or `family` of handKernels) whose provenance says it was tuned on `tasks`. */
export function kernelTunedOn(tasks: readonly Pick<Gsm8kItem, 'id' | 'question'>[], family = 'length'): Record<string, unknown> {
  const kernel = handKernels()[family] as Record<string, unknown>;
  return {
    ...kernel,
    provenance: {
      library_version: '0.1.0',
      seed: 0,
      holdout: 0.5,
      batch_size: 32,
      cross_fit: true,
      refit_on_all_tasks: true,
      families: [family],
      candidates: 12,
      batches: 100,
      inputs: [{ role: 'input', path: 'tuning.jsonl', sha256: sha('rows'), rows: tasks.length }],
      tuning_tasks: tasks.map((t) => ({ task_id: t.id, prompt_sha256: sha(t.question) })),
      tuning: { ratio: 1.05 },
      held_out: { ratio: 1.031, ratio_ci95: [1.002, 1.06], interval_method: 'jackknife' },
      selection_bias: 0.019,
      per_family: [{ family, tuning: 1.05, held_out: 1.031 }],
    },
  };
}
