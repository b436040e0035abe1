// Chart 5: what a design can conclude: P(validated) and P(failed) against the true difference, per decision method.
import { paddedDomain } from './domain.js';
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One point of a power curve (`plan --json` `power[]`). */
export interface PowerRow {
  readonly method: string;
  readonly difference: number;
  readonly p_validated: number;
  readonly p_failed: number;
}

/** A mid-tone every legend symbol of the verdict is drawn in, readable on the light and the dark page. */
const VERDICT_INK = '#8a96a3';

/** Ticks every `step` from the first multiple at or above `lo` to `hi`, so 0 is a tick whenever it is in range. */
function ticks(lo: number, hi: number, count = 6): number[] {
  const raw = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? raw;
  const out: number[] = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + 1e-9; k++) out.push(Math.round(k * step * 1e9) / 1e9);
  return out;
}

/**
 * Vega-Lite spec of chart 5: for each decision method (colour), the probability that the study validates (solid
 * line, filled circles) or fails (dashed line, hollow triangles) against the true difference in accuracy; the margin
 * as a labelled red rule and 0 (no difference) as a labelled grey rule, both inside the plot; 0 is an axis tick.
 *
 * @param rows - the power table (one row per method and true difference).
 * @param margin - the criterion's margin, or null for none.
 */
export function powerChartSpec(rows: readonly PowerRow[], margin: number | null): VegaLiteSpec {
  const values = rows.flatMap((r) => [
    { method: r.method, difference: r.difference, outcome: 'validated', p: r.p_validated },
    { method: r.method, difference: r.difference, outcome: 'failed', p: r.p_failed },
  ]);
  const domain = paddedDomain([...rows.map((r) => r.difference), 0, ...(margin === null ? [] : [margin])], 0.1, 0.01);
  const x = {
    field: 'difference',
    type: 'quantitative',
    title: 'True difference in accuracy, treatment − baseline',
    scale: { domain, nice: false, zero: false },
    axis: { values: ticks(domain[0], domain[1]), labelExpr: "datum.value === 0 ? '0' : format(datum.value, '+.2f')" },
  };
  const y = { field: 'p', type: 'quantitative', title: 'Probability of the verdict', scale: { domain: [0, 1] }, axis: { format: '.1f' } };
  const color = { field: 'method', type: 'nominal', title: 'Decision method' };
  const outcomes = ['validated', 'failed'];
  const rules = [
    { x: 0, label: 'no difference', color: '#7f8c8d', dash: [2, 2] },
    ...(margin === null ? [] : [{ x: margin, label: `margin ${margin > 0 ? '+' : ''}${margin}`, color: '#d9534f', dash: [6, 3] }]),
  ];
  return {
    title: 'What this design can conclude: probability of each verdict',
    width: CHART_WIDTH,
    height: 240,
    layer: [
      // The reference lines first, so the curves lie over them; each labelled at the top of the plot.
      ...rules.flatMap((r) => [
        { data: { values: [r] }, mark: { type: 'rule', strokeWidth: 2, color: r.color, strokeDash: r.dash }, encoding: { x: { field: 'x', type: 'quantitative', scale: x.scale } } },
        {
          data: { values: [r] },
          mark: { type: 'text', color: r.color, align: 'left', dx: 4, baseline: 'top', y: r.x === 0 ? 16 : 2, fontSize: 11, fontWeight: 600 },
          encoding: { x: { field: 'x', type: 'quantitative', scale: x.scale }, text: { field: 'label' } },
        },
      ]),
      {
        data: { values },
        mark: { type: 'line', strokeWidth: 2 },
        encoding: {
          x,
          y,
          color,
          detail: { field: 'outcome' },
          strokeDash: {
            field: 'outcome',
            type: 'nominal',
            title: 'Verdict (line)',
            scale: { domain: outcomes, range: [[1, 0], [6, 4]] },
            legend: { symbolType: 'stroke', symbolStrokeColor: VERDICT_INK, symbolStrokeWidth: 3, symbolSize: 500 },
          },
        },
      },
      ...(['validated', 'failed'] as const).map((outcome) => ({
        data: { values },
        transform: [{ filter: `datum.outcome === '${outcome}'` }],
        mark: { type: 'point', size: 40, strokeWidth: 1.5, filled: outcome === 'validated', shape: outcome === 'validated' ? 'circle' : 'triangle-down' },
        encoding: {
          x,
          y,
          color,
          tooltip: [{ field: 'method' }, { field: 'outcome' }, { field: 'difference', format: '+.2f' }, { field: 'p', format: '.4f' }],
        },
      })),
    ],
  };
}
