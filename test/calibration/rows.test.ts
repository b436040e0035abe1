import { describe, expect, it } from 'vitest';
import { groupCalibrationRows } from '../../src/calibration/rows.js';
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
