// Chart 7: a kernel tuning run: the tuning and the held-out B_eff ratio per kernel family.
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';
import { paddedDomain } from './domain.js';

/**
 * The interval as drawn: [lo, hi] when both are > 0 (the jackknife on the log ratio always is, docs/method.md
 * section 4.3); a file from before that interval, with lo <= 0, has none drawn (a ratio of variances is never <= 0).
 */
function interval(ci: readonly [number, number] | null): { lo: number | null; hi: number | null } {
  return ci !== null && ci[0] > 0 && ci[1] > 0 ? { lo: ci[0], hi: ci[1] } : { lo: null, hi: null };
}

/** A log-scale axis range around the positive values, padded by 12% of their span in log units. */
function logDomain(values: readonly (number | null)[]): [number, number] {
  const logs = values.filter((v): v is number => typeof v === 'number' && v > 0 && Number.isFinite(v)).map(Math.log);
  const [lo, hi] = paddedDomain(logs, 0.12, 0.02);
  return [Math.exp(lo), Math.exp(hi)];
}

/** One family's best candidate in a tuning run (from `kernel.json` provenance). */
export interface KernelFamilyRow {
  readonly family: string;
  /** B_eff ratio on the tuning part (the figure that selected it). */
  readonly tuning: number;
  /** B_eff ratio on the held-out part, or null if the family was not scored held out. */
  readonly heldOut: number | null;
  readonly heldOutCi95: readonly [number, number] | null;
}

/**
 * Vega-Lite spec of chart 7: per family, the tuning ratio (hollow) and the held-out ratio (filled, with its interval),
 * against 1 and the gate's bar; the gap between the two is the selection bias. The axis is logarithmic, the scale
 * of the interval (docs/method.md section 4.3), so the ratio's range (0, inf) is the whole axis.
 *
 * @param rows - one row per family.
 * @param bar - the gate's bar (1.03), or null.
 */
export function kernelChartSpec(rows: readonly KernelFamilyRow[], bar: number | null): VegaLiteSpec {
  const points = rows.flatMap((r) => [
    { family: r.family, part: 'tuning', ratio: r.tuning, lo: null, hi: null },
    ...(r.heldOut === null ? [] : [{ family: r.family, part: 'held out', ratio: r.heldOut, ...interval(r.heldOutCi95) }]),
  ]);
  const y = { field: 'family', type: 'nominal', title: 'Kernel family', sort: null };
  const rules = [{ x: 1, label: '1 (= loo_batch_mean)' }, ...(bar === null ? [] : [{ x: bar, label: `gate bar ${bar}` }])];
  const scale = { type: 'log', domain: logDomain([...points.flatMap((p) => [p.ratio, p.lo, p.hi]), ...rules.map((r) => r.x)]), nice: false };
  return {
    title: 'Kernel tuning: B_eff ratio to loo_batch_mean, tuning vs held out (95% interval)',
    width: CHART_WIDTH,
    height: { step: 34 },
    layer: [
      {
        data: { values: points },
        layer: [
          { mark: { type: 'rule', strokeWidth: 3, opacity: 0.5 }, transform: [{ filter: 'datum.lo !== null' }], encoding: { y, x: { field: 'lo', type: 'quantitative', scale }, x2: { field: 'hi' } } },
          {
            mark: { type: 'point', size: 70 },
            encoding: {
              y,
              x: { field: 'ratio', type: 'quantitative', title: 'B_eff ratio to loo_batch_mean (1 = no better)', scale, axis: { format: '.2f' } },
              shape: { field: 'part', type: 'nominal', title: 'Scored on' },
              fill: { field: 'part', type: 'nominal', scale: { domain: ['tuning', 'held out'], range: ['transparent', '#2c7fb8'] }, legend: null },
                            tooltip: [{ field: 'family' }, { field: 'part' }, { field: 'ratio', format: '.4f' }],
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
