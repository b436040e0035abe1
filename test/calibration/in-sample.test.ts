// A calibration of a kernel file on tasks it was tuned on (by task id or by prompt) warns and marks the figure in-sample.
import { createHash } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { calibrateBeff, type CalibrationTask } from '../../src/calibration/beff.js';
import { inSampleTasks } from '../../src/calibration/in-sample.js';
import { calibrationJson, parseCalibrationJson } from '../../src/calibration/json.js';
import { loadKernel } from '../../src/kernels/kernel-file.js';

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const tasks: CalibrationTask[] = Array.from({ length: 6 }, (_, k) => ({ taskId: `t${k}`, prompt: `question number ${k}`, rewards: [k % 2, 1, 0] }));

function kernel(tuning: { task_id: string; prompt_sha256: string }[]) {
  return loadKernel({ format: 'rl-advantages/kernel', version: 1, family: 'loo_batch_mean', params: {}, fitted: {}, provenance: { tuning_tasks: tuning } });
}

describe('in-sample calibration of a kernel file', () => {
  const seen = kernel([
    { task_id: 't0', prompt_sha256: sha('another prompt') },
    { task_id: 'other', prompt_sha256: sha('question number 3') },
    { task_id: 'far', prompt_sha256: sha('never scored') },
  ]);

  it('finds the shared tasks by id and by prompt', () => {
    expect(inSampleTasks(tasks, { 'kernel:k.json': seen })).toEqual({ 'kernel:k.json': { tasks: 2, of: 6, examples: ['t0', 't3 (same prompt as other)'] } });
    expect(inSampleTasks(tasks, { 'kernel:k.json': kernel([{ task_id: 'x', prompt_sha256: sha('y') }]) })).toEqual({});
  });

  it('calibrateBeff warns, records inSample, and the JSON carries it back', () => {
    const warnings: string[] = [];
    const result = calibrateBeff(tasks, { estimators: ['kernel:k.json'], kernels: { 'kernel:k.json': seen }, batchSize: 2, batches: 20, onWarning: (m) => warnings.push(m) });
    expect(warnings).toEqual([expect.stringMatching(/^kernel:k\.json was tuned on 2 of the 6 tasks scored here \(by task id or prompt: t0, t3 \(same prompt as other\)\): its ratio is in-sample and optimistic/)]);
    expect(result.inSample).toEqual({ 'kernel:k.json': { tasks: 2, of: 6, examples: ['t0', 't3 (same prompt as other)'] } });
    const json = calibrationJson(result);
    expect(json.in_sample).toEqual({ 'kernel:k.json': { tasks: 2, of: 6, examples: ['t0', 't3 (same prompt as other)'] } });
    expect(parseCalibrationJson(JSON.parse(JSON.stringify(json))).inSample).toEqual(result.inSample);
  });

  it('without onWarning it is a Node process warning; a kernel that saw none of the tasks is silent', () => {
    const emit = vi.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
    try {
      calibrateBeff(tasks, { estimators: ['kernel:k.json'], kernels: { 'kernel:k.json': seen }, batchSize: 2, batches: 20 });
      expect(emit).toHaveBeenCalledWith(expect.stringMatching(/in-sample/), { code: 'RL_ADV_IN_SAMPLE' });
      emit.mockClear();
      const unseen = kernel([{ task_id: 'x', prompt_sha256: sha('y') }]);
      const result = calibrateBeff(tasks, { estimators: ['kernel:k.json'], kernels: { 'kernel:k.json': unseen }, batchSize: 2, batches: 20 });
      expect(emit).not.toHaveBeenCalled();
      expect('inSample' in result).toBe(false);
      expect('in_sample' in calibrationJson(result)).toBe(false);
    } finally {
      emit.mockRestore();
    }
  });
});
