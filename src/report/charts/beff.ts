// Chart 2: the B_eff ratio of every estimator scored, with its interval, against the gate's bar and 1.
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';
import { paddedDomain } from './domain.js';

/** One scored estimator (summary.json `calibration.estimators[name]`, or a `calibrate --json` estimator). */
export interface BeffRatioRow {
  readonly estimator: string;
  readonly ratio: number;
  /** The 95% interval of the ratio, or null when none was computed. */
  readonly ci95: readonly [number, number] | null;
}

/**
 * Vega-Lite spec of chart 2: each estimator's B_eff ratio to the reference (a point) with its 95% interval (a bar),
 * a solid rule at 1 (no better than the reference) and a dashed rule at the gate's bar.
 *
 * @param rows - the scored estimators, in the order to show them.
 * @param options.bar - the gate's minimum ratio (the spec's `offline_beff_ratio_tfidf_vs_loo_mean` min; 1.03), or
 *   null to draw no bar.
 * @param options.reference - the reference estimator's name, for the axis title.
 * @param options.intervalMethod - how the interval was made, for the axis title (e.g. `jackknife`).
 */
export function beffChartSpec(
  rows: readonly BeffRatioRow[],
  options: { readonly bar: number | null; readonly reference: string; readonly intervalMethod?: string },
): VegaLiteSpec {
  const values = rows.map((r) => ({ estimator: r.estimator, ratio: r.ratio, lo: r.ci95?.[0] ?? null, hi: r.ci95?.[1] ?? null }));
  const rules = [{ x: 1, label: `1 (= ${options.reference})` }];
  if (options.bar !== null) rules.push({ x: options.bar, label: `gate bar ${options.bar}` });
  const domain = paddedDomain([...values.flatMap((v) => [v.ratio, v.lo, v.hi]), ...rules.map((r) => r.x)], 0.12);
  const scale = { domain, nice: false, zero: false };
  const y = { field: 'estimator', type: 'nominal', title: 'Estimator', sort: null };
  const how =
    options.intervalMethod === 'none' ? ', no interval' : options.intervalMethod ? `, 95% ${options.intervalMethod} interval` : ', 95% interval';
  return {
    title: `B_eff ratio to ${options.reference} (point${how})`,
    width: CHART_WIDTH,
    height: { step: 34 },
    layer: [
      {
        data: { values },
        layer: [
          {
            mark: { type: 'rule', strokeWidth: 3, opacity: 0.6 },
            transform: [{ filter: 'datum.lo !== null' }],
            encoding: { y, x: { field: 'lo', type: 'quantitative', scale }, x2: { field: 'hi' } },
          },
          {
            mark: { type: 'point', filled: true, size: 70 },
            encoding: {
              y,
              x: { field: 'ratio', type: 'quantitative', title: `B_eff ratio to ${options.reference} (1 = no better)`, scale, axis: { format: '.2f' } },
              tooltip: [{ field: 'estimator' }, { field: 'ratio', format: '.4f' }, { field: 'lo', format: '.4f' }, { field: 'hi', format: '.4f' }],
            },
          },
        ],
      },
      {
        data: { values: rules },
        mark: { type: 'rule', strokeWidth: 1.5 },
        encoding: {
          x: { field: 'x', type: 'quantitative', scale },
          color: { field: 'label', type: 'nominal', title: 'Reference line', scale: { range: ['#7f8c8d', '#c0392b'] }, legend: { orient: 'top' } },
          strokeDash: { field: 'label', type: 'nominal', scale: { range: [[1, 0], [5, 4]] } },
          tooltip: [{ field: 'label' }],
        },
      },
    ],
  };
}
