// Chart: does a better kernel train better? Each kernel arm's B_eff ratio against the batch mean (x, with its 95%
// interval, measured on the calibration set before training) against its gain in accuracy over the batch-mean arm
// (y): each seed's gain as a hollow point, the mean gain with its interval as a filled point and a vertical bar.
import { paddedDomain } from './domain.js';
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One kernel arm of the chart. */
export interface KernelArmPoint {
  readonly arm: string;
  readonly ratio: number;
  readonly ratioLower: number | null;
  readonly ratioUpper: number | null;
  readonly gain: number;
  readonly gainLower: number;
  readonly gainUpper: number;
  /** The gain interval's level, e.g. 0.9929 under Holm's first round. */
  readonly level: number;
  readonly seeds: readonly { readonly seed: number; readonly gain: number }[];
}

/**
 * Vega-Lite spec of the kernel arms' B_eff ratio (x) against their gain over the batch-mean arm (y): per arm, a
 * horizontal bar for the ratio's interval, a vertical bar for the gain's interval, the mean as a filled point and
 * each seed as a hollow point (at the arm's ratio), coloured by arm; dashed rules at ratio 1 and gain 0.
 *
 * @param points - the kernel arms that have both figures (at least one).
 * @example
 * ```ts
 * await renderChartSvg(kernelArmsChartSpec(points), 'B_eff ratio against the gain over the batch-mean arm, per kernel arm');
 * ```
 */
export function kernelArmsChartSpec(points: readonly KernelArmPoint[]): VegaLiteSpec {
  const [xlo, xhi] = paddedDomain([1, ...points.flatMap((p) => [p.ratio, p.ratioLower, p.ratioUpper])], 0.12, 0.02);
  const [ylo, yhi] = paddedDomain([0, ...points.flatMap((p) => [p.gainLower, p.gainUpper, ...p.seeds.map((s) => s.gain)])], 0.12, 0.01);
  const x = { type: 'quantitative', scale: { domain: [xlo, xhi], nice: false, zero: false } };
  const y = { type: 'quantitative', scale: { domain: [ylo, yhi], nice: false, zero: false } };
  const color = { field: 'arm', type: 'nominal', title: 'kernel arm', sort: points.map((p) => p.arm) };
  const seeds = points.flatMap((p) => p.seeds.map((s) => ({ arm: p.arm, ratio: p.ratio, seed: `seed ${s.seed}`, gain: s.gain })));
  const withRatioInterval = points.filter((p) => p.ratioLower !== null && p.ratioUpper !== null);
  return {
    title: 'Does a better kernel train better? B_eff ratio (calibration) against the gain over the batch-mean arm',
    width: CHART_WIDTH,
    height: 320,
    layer: [
      { data: { values: [{ at: 0 }] }, mark: { type: 'rule', strokeDash: [4, 3], color: '#888' }, encoding: { y: { ...y, field: 'at' } } },
      { data: { values: [{ at: 1 }] }, mark: { type: 'rule', strokeDash: [4, 3], color: '#888' }, encoding: { x: { ...x, field: 'at' } } },
      { data: { values: withRatioInterval }, mark: { type: 'rule', strokeWidth: 2, opacity: 0.7 }, encoding: { color, y: { ...y, field: 'gain' }, x: { ...x, field: 'ratioLower' }, x2: { field: 'ratioUpper' } } },
      { data: { values: points }, mark: { type: 'rule', strokeWidth: 5, opacity: 0.5 }, encoding: { color, x: { ...x, field: 'ratio' }, y: { ...y, field: 'gainLower' }, y2: { field: 'gainUpper' } } },
      {
        data: { values: seeds },
        mark: { type: 'point', filled: false, size: 45 },
        encoding: { color, x: { ...x, field: 'ratio' }, y: { ...y, field: 'gain' }, tooltip: [{ field: 'arm' }, { field: 'seed' }, { field: 'gain', format: '.4f' }] },
      },
      {
        data: { values: points },
        mark: { type: 'point', filled: true, size: 110 },
        encoding: {
          color,
          x: { ...x, field: 'ratio', title: 'B_eff ratio against the LOO batch mean (calibration set, 95% interval)', axis: { format: '.3f' } },
          y: { ...y, field: 'gain', title: 'Accuracy gain over the batch-mean arm', axis: { format: '+.3f' } },
          tooltip: [{ field: 'arm' }, { field: 'ratio', format: '.4f' }, { field: 'gain', format: '.4f' }, { field: 'gainLower', format: '.4f' }, { field: 'gainUpper', format: '.4f' }, { field: 'level', format: '.4f' }],
        },
      },
    ],
  };
}
