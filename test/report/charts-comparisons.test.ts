// The comparisons' forest chart, read back from its SVG: a row per comparison, each seed's point, each margin's tick.
import { describe, expect, it } from 'vitest';
import { comparisonsChartSpec } from '../../src/report/charts/comparisons.js';
import { renderChartSvg } from '../../src/report/charts/render.js';
import { axisTitles, markLabels, texts } from './svg.js';

describe('comparisons forest', () => {
  it('draws each comparison (interval, estimate, margin tick) and each seed, with whole labels', async () => {
    const rows = [
      { label: 'gs1_vs_grpo (validated)', estimate: 0.0016, lower: -0.0185, upper: 0.0217, margin: -0.05, verdict: 'validated', seeds: [0.01, -0.011, 0.002].map((estimate, seed) => ({ seed, estimate })) },
      { label: 'gs1_vs_batchmean (inconclusive)', estimate: -0.0118, lower: -0.024, upper: 0.0004, margin: 0, verdict: 'inconclusive', seeds: [-0.009, -0.023, 0.002].map((estimate, seed) => ({ seed, estimate })) },
    ];
    const svg = await renderChartSvg(comparisonsChartSpec(rows, 'seed_item_t, holm'), 'comparisons');
    expect(texts(svg)).toEqual(expect.arrayContaining(['gs1_vs_grpo (validated)', 'gs1_vs_batchmean (inconclusive)']));
    expect(axisTitles(svg)).toEqual(expect.arrayContaining(['Difference in accuracy, treatment − reference']));
    // 6 seeds' hollow points and 2 estimates.
    const points = markLabels(svg, 'point');
    expect(points).toHaveLength(8);
    expect(points.filter((p) => p.includes('seed'))).toHaveLength(6);
    expect(markLabels(svg, 'tick')).toHaveLength(2);
  });
});
