// Chart 4: the paired decision: each criterion's interval for the difference against its margin, verdict regions shaded.
import { paddedDomain } from './domain.js';
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One criterion of a decision (summary.json `decision.criteria[]`, `decide --json`). */
export interface DecisionCriterionRow {
  readonly id: string;
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  readonly margin: number;
  readonly verdict: string;
}

/** The x range of the decision chart: every interval end, margin and 0, padded by 15% of the span. */
export function decisionDomain(rows: readonly DecisionCriterionRow[]): [number, number] {
  return paddedDomain([0, ...rows.flatMap((r) => [r.lower, r.upper, r.margin])], 0.15);
}

/**
 * Vega-Lite spec of chart 4: for each criterion, the interval [lower, upper] (a bar) and the estimate (a point) on
 * the difference axis (treatment minus baseline), the margin as a rule, and two shaded regions: left of the margin
 * ("failed" when the whole interval lies there) and right of it ("validated" when the whole interval lies there); an
 * interval that straddles the margin is inconclusive.
 *
 * @param rows - the criteria (at least one).
 * @param method - the decision method's name, for the title (e.g. `paired_hoeffding`).
 */
export function decisionChartSpec(rows: readonly DecisionCriterionRow[], method: string): VegaLiteSpec {
  const [lo, hi] = decisionDomain(rows);
  const x = { type: 'quantitative', scale: { domain: [lo, hi], nice: false, zero: false } };
  const regions = rows.flatMap((r) => [
    { id: r.id, from: lo, to: r.margin, region: 'failed if the interval lies here' },
    { id: r.id, from: r.margin, to: hi, region: 'validated if the interval lies here' },
  ]);
  const y = { field: 'id', type: 'nominal', title: 'Criterion' };
  return {
    title: `Paired decision (${method}): interval for treatment − baseline against the margin`,
    width: CHART_WIDTH,
    height: { step: 46 },
    layer: [
      {
        data: { values: regions },
        mark: { type: 'rect', opacity: 0.16 },
        encoding: {
          y,
          x: { ...x, field: 'from' },
          x2: { field: 'to' },
          color: {
            field: 'region',
            type: 'nominal',
            title: 'Verdict region',
            scale: { domain: ['failed if the interval lies here', 'validated if the interval lies here'], range: ['#c0392b', '#27ae60'] },
          },
        },
      },
      {
        data: { values: rows },
        layer: [
          { mark: { type: 'rule', strokeWidth: 4 }, encoding: { y, x: { ...x, field: 'lower' }, x2: { field: 'upper' } } },
          {
            mark: { type: 'point', filled: true, size: 90 },
            encoding: {
              y,
              x: { ...x, field: 'estimate', title: 'Difference in accuracy, treatment − baseline (proportion of items)', axis: { format: '.3f' } },
              tooltip: [{ field: 'id' }, { field: 'estimate', format: '.4f' }, { field: 'lower', format: '.4f' }, { field: 'upper', format: '.4f' }, { field: 'verdict' }],
            },
          },
          { mark: { type: 'tick', thickness: 2, color: '#555', size: 34 }, encoding: { y, x: { ...x, field: 'margin' }, tooltip: [{ field: 'margin', title: 'margin' }] } },
          {
            mark: { type: 'text', dy: -16, fontSize: 11, fontWeight: 600 },
            encoding: { y, x: { ...x, field: 'estimate' }, text: { field: 'verdict' } },
          },
        ],
      },
    ],
  };
}
