// The learning-curve and per-seed charts, read back from their SVG.
import { describe, expect, it } from 'vitest';
import { curvePoints, curvesChartSpec } from '../../src/report/charts/curves.js';
import { renderChartSvg } from '../../src/report/charts/render.js';
import { seedsChartSpec } from '../../src/report/charts/seeds.js';
import { axisTitles, markLabels, texts } from './svg.js';

describe('learning curves', () => {
  const curves = [
    { arm: 'grpo', seed: 0, rewardPerStep: [0, 1, 1], curve: [{ step: 0, accuracy: 0.3 }, { step: 2, accuracy: 0.5 }] },
    { arm: 'grpo', seed: 1, rewardPerStep: [1, 1], curve: [{ step: 0, accuracy: 0.3 }, { step: 2, accuracy: 0.7 }] },
    { arm: 'gs1', seed: 0, rewardPerStep: [0.5], curve: [{ step: 0, accuracy: 0.3 }] },
  ];

  it('running means per seed and the mean over the seeds present at each step', () => {
    const { reward, accuracy } = curvePoints(curves);
    const grpoMean = reward.filter((p) => p.arm === 'grpo' && p.series === 'mean over seeds');
    // seed 0: 0, 0.5, 2/3; seed 1: 1, 1; step 3 has seed 0 only.
    expect(grpoMean.map((p) => p.step)).toEqual([1, 2, 3]);
    expect(grpoMean.map((p) => p.value)).toEqual([0.5, 0.75, 2 / 3]);
    const accMean = accuracy.filter((p) => p.arm === 'grpo' && p.series === 'mean over seeds');
    expect(accMean.map((p) => [p.step, p.value])).toEqual([[0, 0.3], [2, (0.5 + 0.7) / 2]]);
    expect(accuracy.filter((p) => p.arm === 'gs1')).toHaveLength(2);
  });

  it('draws a thin line per seed and a thick line with points for each arm mean, with titled axes', async () => {
    const svg = await renderChartSvg(curvesChartSpec(curves, 200), 'curves');
    expect(texts(svg)).toEqual(expect.arrayContaining(['Greedy accuracy on the first 200 test items during training (thin: each seed; thick: mean)']));
    expect(axisTitles(svg)).toEqual(expect.arrayContaining(['Training step', 'Accuracy', 'Running mean reward']));
    // 2 panels x (3 seed lines + 2 mean lines).
    expect(markLabels(svg, 'line mark').length).toBe(10);
    // Points on the mean lines: accuracy grpo 2 + gs1 1; reward grpo 3 + gs1 1.
    expect(markLabels(svg, 'point')).toHaveLength(7);
  });

  it("names a sampled curve (Tinker: the recipe's evaluator) as sampled", async () => {
    const svg = await renderChartSvg(curvesChartSpec(curves, 20, 'sampled'), 'curves');
    expect(texts(svg)).toEqual(expect.arrayContaining(['Sampled accuracy on the first 20 test items during training (thin: each seed; thick: mean)']));
  });
});

describe('per-seed forest', () => {
  it('draws each seed and the pooled row, with the margin rule', async () => {
    const rows = [
      { label: 'seed 0', estimate: 0.01, lower: -0.03, upper: 0.05, verdict: 'validated', pooled: false },
      { label: 'seed 1', estimate: -0.02, lower: -0.06, upper: 0.02, verdict: 'inconclusive', pooled: false },
      { label: 'across seeds', estimate: -0.005, lower: -0.04, upper: 0.03, verdict: 'validated', pooled: true },
    ];
    const svg = await renderChartSvg(seedsChartSpec(rows, -0.05, 'seed_t'), 'seeds');
    const points = markLabels(svg, 'point');
    expect(points).toHaveLength(3);
    expect(points[2]).toContain('across seeds');
    expect(markLabels(svg, 'rule mark').some((r) => r.includes('margin -0.05'))).toBe(true);
  });
});
