// Chart 5: what a design can conclude: P(validated) and P(failed) against the true difference, per decision method.
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One point of a power curve (`plan --json` `power[]`). */
export interface PowerRow {
  readonly method: string;
  readonly difference: number;
  readonly p_validated: number;
  readonly p_failed: number;
}

/**
 * Vega-Lite spec of chart 5: for each decision method, the probability that the study validates (solid) or fails
 * (dashed) against the true difference in accuracy, with the margin as a vertical rule.
 *
 * @param rows - the power table (one row per method and true difference).
 * @param margin - the criterion's margin, or null for none.
 */
export function powerChartSpec(rows: readonly PowerRow[], margin: number | null): VegaLiteSpec {
  const values = rows.flatMap((r) => [
    { method: r.method, difference: r.difference, outcome: 'validated', p: r.p_validated },
    { method: r.method, difference: r.difference, outcome: 'failed', p: r.p_failed },
  ]);
  const layers: VegaLiteSpec[] = [
    {
      data: { values },
      mark: { type: 'line', point: true },
      encoding: {
        x: { field: 'difference', type: 'quantitative', title: 'True difference in accuracy, treatment − baseline', axis: { format: '+.2f' } },
        y: { field: 'p', type: 'quantitative', title: 'Probability of the verdict', scale: { domain: [0, 1] }, axis: { format: '.1f' } },
        color: { field: 'method', type: 'nominal', title: 'Decision method' },
        strokeDash: { field: 'outcome', type: 'nominal', title: 'Verdict', scale: { domain: ['validated', 'failed'], range: [[1, 0], [5, 4]] } },
        tooltip: [{ field: 'method' }, { field: 'outcome' }, { field: 'difference', format: '+.2f' }, { field: 'p', format: '.4f' }],
      },
    },
  ];
  if (margin !== null) {
    layers.push({ data: { values: [{ margin }] }, mark: { type: 'rule', color: '#555', strokeDash: [2, 2] }, encoding: { x: { field: 'margin', type: 'quantitative' } } });
  }
  return { title: 'What this design can conclude: probability of each verdict', width: CHART_WIDTH, height: 240, layer: layers };
}
