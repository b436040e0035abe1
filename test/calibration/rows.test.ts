import { describe, expect, it } from 'vitest';
import { groupCalibrationRows, readTasks } from '../../src/calibration/rows.js';
import { RlAdvantagesError } from '../../src/errors.js';

describe('groupCalibrationRows', () => {
  it('groups rollouts by task in order of first appearance, keeping the rows order within a task', () => {
    const tasks = groupCalibrationRows([
      { task_id: 'b', prompt: 'second?', reward: 0 },
      { task_id: 'a', prompt: 'first?', reward: 1 },
      { task_id: 'b', prompt: 'second?', reward: 0.9 },
      { task_id: 'a', prompt: 'first?', reward: -0.1 },
    ]);
    expect(tasks).toEqual([
      { taskId: 'b', prompt: 'second?', rewards: [0, 0.9] },
      { taskId: 'a', prompt: 'first?', rewards: [1, -0.1] },
    ]);
  });

  it('names the row index when a task has two prompts', () => {
    const rows = [
      { task_id: 'x', prompt: 'p', reward: 1 },
      { task_id: 'y', prompt: 'q', reward: 1 },
      { task_id: 'x', prompt: 'p ', reward: 0 },
    ];
    expect(() => groupCalibrationRows(rows)).toThrow('rows[2].prompt differs from rows[0].prompt of task "x"');
    try {
      groupCalibrationRows(rows);
    } catch (error) {
      expect(error).toBeInstanceOf(RlAdvantagesError);
      expect((error as RlAdvantagesError).index).toBe(2);
    }
  });

  it('names the row and field of a bad value', () => {
    expect(() => groupCalibrationRows([{ task_id: 'x', prompt: 'p', reward: Number.NaN }])).toThrow(
      'rows[0].reward must be a finite number, got NaN',
    );
    expect(() => groupCalibrationRows([{ task_id: 'x', prompt: 'p', reward: 1 }, { task_id: 3, prompt: 'p', reward: 1 } as never])).toThrow(
      'rows[1].task_id must be a non-empty string, got 3',
    );
    expect(() => groupCalibrationRows([{ task_id: 'x', reward: 1 } as never])).toThrow('rows[0].prompt must be a string');
    expect(() => groupCalibrationRows('rows' as never)).toThrow(/rows must be an array/);
  });
});

describe('rewards out of range', () => {
  it('groupCalibrationRows and readTasks refuse |reward| > 1e100 with the estimators check (out_of_range, field, index)', () => {
    const rows = [
      { task_id: 'a', prompt: 'p', reward: 1 },
      { task_id: 'a', prompt: 'p', reward: -1e308 },
    ];
    expect(() => groupCalibrationRows(rows)).toThrow(
      expect.objectContaining({ code: 'out_of_range', field: 'reward', index: 1, message: expect.stringMatching(/^rows\[1\]\.reward is -1e\+308; rewards must lie in \[-1e100, 1e100\]/) }),
    );
    expect(() => readTasks([{ taskId: 'a', prompt: 'p', rewards: [0, 1e101] }])).toThrow(
      expect.objectContaining({ code: 'out_of_range', field: 'rewards', index: 1, message: expect.stringMatching(/^tasks\[0\]\.rewards\[1\] is 1e\+101/) }),
    );
    expect(readTasks([{ taskId: 'a', prompt: 'p', rewards: [1e100, -1e100] }]).rewards).toEqual(Float64Array.of(1e100, -1e100));
  });
});
