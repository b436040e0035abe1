// The study's task ranges: the arms' tasks, the gate's calibration set (on both backends' orders) and the tuning
// phase's tasks are disjoint, derived from the spec.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadGsm8k } from '../../src/data/gsm8k.js';
import { loadStudySpec } from '../../src/study/spec.js';
import { numpyPermutation } from '../../src/study/numpy-order.js';
import { shuffledOrder } from '../../src/study/sim/random.js';
import { gateCalibrationTasks, studyOrder, studyTaskRanges, tuningTaskRows } from '../../src/study/task-sets.js';
import { gsm8kDir, specPath } from '../helpers/paths.js';

const spec = loadStudySpec(readFileSync(specPath, 'utf8'));
const train = loadGsm8k(gsm8kDir, 'train');

describe('study task sets', () => {
  it('the shipped spec: the arms read 60 x 32 tasks, the gate the last 64, 5489 are free', () => {
    expect(studyTaskRanges(spec, 7473)).toEqual({ armTasks: 1920, calibrationStart: 7409, free: 5489 });
    // --steps above the spec's counts; below, the spec's own steps still bound the arms.
    expect(studyTaskRanges(spec, 7473, 100).armTasks).toBe(3200);
    expect(studyTaskRanges(spec, 7473, 5).armTasks).toBe(1920);
    expect(() => studyTaskRanges(spec, 1000)).toThrow(/the arms read 1920 training tasks but only 936/);
  });

  it('the gate set is the last 64 of the sim order and of the tinker (numpy) order', () => {
    const gate = new Set(gateCalibrationTasks(spec, train).map((t) => t.index));
    const sim = Array.from(shuffledOrder(train.length, 0).slice(-64));
    const tinker = Array.from(numpyPermutation(train.length, 0).slice(-64));
    expect(gate).toEqual(new Set([...sim, ...tinker]));
    expect(studyOrder('sim', 10, 3)).toEqual(shuffledOrder(10, 3));
    expect(studyOrder('tinker', 10, 3)).toEqual(numpyPermutation(10, 3));
  });

  it.each(['sim', 'tinker'] as const)('%s: 1000 tuning tasks after the arms, none in either gate set', (backend) => {
    const order = studyOrder(backend, train.length, 0);
    const { rows, first, end } = tuningTaskRows(spec, train, order, 1000);
    expect(first).toBe(1920);
    expect(new Set(rows).size).toBe(1000);
    const arms = new Set(Array.from(order.slice(0, 1920)));
    const gate = new Set(gateCalibrationTasks(spec, train).map((t) => t.index));
    expect(rows.filter((q) => arms.has(q) || gate.has(q))).toEqual([]);
    // In data order, skipping only the other order's gate tasks.
    const range = Array.from(order.slice(first, end));
    expect(range.filter((q) => !gate.has(q))).toEqual(rows);
    expect(end - first - rows.length).toBeLessThanOrEqual(64);
    expect(() => tuningTaskRows(spec, train, order, 5489)).toThrow(/--tuning-tasks 5489 is more than the \d+ train tasks/);
  });
});
