// Chart: the comparisons of a K-arm study (a forest plot): each comparison's interval across seeds with its estimate,
// each seed's own difference as a point on the same row, and each comparison's margin as a tick on its row.
import { paddedDomain } from './domain.js';
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One comparison's row of the forest. */
export interface ComparisonRow {
  /** `gs1_vs_grpo (validated)`: the row's label. */
  readonly label: string;
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  readonly margin: number;
  readonly verdict: string;
  /** Each seed's difference (treatment − reference on that seed's items). */
  readonly seeds: readonly { readonly seed: number; readonly estimate: number }[];
}

/**
 * Vega-Lite spec of the comparisons' forest plot: per comparison a thick rule from its interval's lower to upper end,
 * its estimate as a filled point, each seed's difference as a hollow point, its margin as a vertical tick, and 0 as a
 * dashed rule.
 *
 * @param rows - the comparisons in the spec's order (at least one).
 * @param method - the interval's method and procedure, for the title.
 */
export function comparisonsChartSpec(rows: readonly ComparisonRow[], method: string): VegaLiteSpec {
  const [lo, hi] = paddedDomain([0, ...rows.flatMap((r) => [r.lower, r.upper, r.margin, ...r.seeds.map((s) => s.estimate)])], 0.12);
  const x = { type: 'quantitative', scale: { domain: [lo, hi], nice: false, zero: false } };
  // Long labels (an id and its verdict) are kept whole.
  const y = { field: 'label', type: 'nominal', title: null, sort: rows.map((r) => r.label), axis: { labelLimit: 400 } };
  const seeds = rows.flatMap((r) => r.seeds.map((s) => ({ label: r.label, seed: `seed ${s.seed}`, estimate: s.estimate })));
  return {
    title: `Each comparison across seeds (${method}); hollow points: each seed`,
    width: CHART_WIDTH,
    height: { step: 44 },
    layer: [
      { data: { values: [{ at: 0 }] }, mark: { type: 'rule', strokeDash: [4, 3] }, encoding: { x: { ...x, field: 'at' } } },
      { data: { values: rows }, mark: { type: 'rule', strokeWidth: 6, opacity: 0.6 }, encoding: { y, x: { ...x, field: 'lower' }, x2: { field: 'upper' } } },
      {
        data: { values: rows },
        mark: { type: 'tick', thickness: 2, color: '#b00' },
        encoding: { y, x: { ...x, field: 'margin' }, tooltip: [{ field: 'label' }, { field: 'margin', title: 'margin' }] },
      },
      { data: { values: seeds }, mark: { type: 'point', filled: false, size: 40 }, encoding: { y, x: { ...x, field: 'estimate' }, tooltip: [{ field: 'seed' }, { field: 'estimate', format: '.4f' }] } },
      {
        data: { values: rows },
        mark: { type: 'point', filled: true, size: 90 },
        encoding: {
          y,
          x: { ...x, field: 'estimate', title: 'Difference in accuracy, treatment − reference', axis: { format: '.3f' } },
          tooltip: [{ field: 'label' }, { field: 'estimate', format: '.4f' }, { field: 'lower', format: '.4f' }, { field: 'upper', format: '.4f' }, { field: 'verdict' }],
        },
      },
    ],
  };
}
