// Chart: the decision across seeds: each seed's paired difference with its own interval, and the across-seeds
// estimate with the seed-level interval, against the margin (a forest plot).
import { paddedDomain } from './domain.js';
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One row of the forest: a seed's paired decision, or the across-seeds one. */
export interface SeedIntervalRow {
  /** `seed 3`, or the across-seeds row's label. */
  readonly label: string;
  readonly estimate: number;
  readonly lower: number;
  readonly upper: number;
  readonly verdict: string;
  /** True for the across-seeds row (drawn thicker, last). */
  readonly pooled: boolean;
}

/**
 * Vega-Lite spec of the forest plot: one row per seed (its exact paired interval at the rule's method), then the
 * across-seeds row (the seed-level method's interval), the estimate as a point, the margin and 0 as rules.
 *
 * @param rows - the seeds' rows then the pooled row (at least one row).
 * @param margin - the criterion's margin.
 * @param method - the seed-level method's name, for the title.
 */
export function seedsChartSpec(rows: readonly SeedIntervalRow[], margin: number, method: string): VegaLiteSpec {
  const [lo, hi] = paddedDomain([0, margin, ...rows.flatMap((r) => [r.lower, r.upper])], 0.15);
  const x = { type: 'quantitative', scale: { domain: [lo, hi], nice: false, zero: false } };
  const y = { field: 'label', type: 'nominal', title: null, sort: rows.map((r) => r.label) };
  return {
    title: `Treatment − baseline per seed (exact paired intervals) and across seeds (${method})`,
    width: CHART_WIDTH,
    height: { step: 30 },
    layer: [
      { data: { values: [{ at: margin, what: `margin ${margin}` }, { at: 0, what: '0' }] }, mark: { type: 'rule', strokeDash: [4, 3] }, encoding: { x: { ...x, field: 'at' }, tooltip: [{ field: 'what' }] } },
      {
        data: { values: rows },
        layer: [
          // The seeds' intervals thin, the across-seeds one thick.
          { transform: [{ filter: '!datum.pooled' }], mark: { type: 'rule', strokeWidth: 2 }, encoding: { y, x: { ...x, field: 'lower' }, x2: { field: 'upper' } } },
          { transform: [{ filter: 'datum.pooled' }], mark: { type: 'rule', strokeWidth: 6 }, encoding: { y, x: { ...x, field: 'lower' }, x2: { field: 'upper' } } },
          {
            mark: { type: 'point', filled: true, size: 70 },
            encoding: {
              y,
              x: { ...x, field: 'estimate', title: 'Difference in accuracy, treatment − baseline', axis: { format: '.3f' } },
              tooltip: [{ field: 'label' }, { field: 'estimate', format: '.4f' }, { field: 'lower', format: '.4f' }, { field: 'upper', format: '.4f' }, { field: 'verdict' }],
            },
          },
        ],
      },
    ],
  };
}
