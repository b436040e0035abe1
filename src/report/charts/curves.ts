// Chart: learning curves per arm and seed: the eval accuracy on the fixed curve slice at each curve step, and the
// running mean of the training reward per step, one thin line per seed and a thick line for the mean over seeds.
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One arm of one seed: its logged training reward per step and its eval accuracy at the curve's steps. */
export interface ArmCurve {
  readonly arm: string;
  readonly seed: number;
  /** Mean reward of step s at index s - 1 (summary.json `replicates[].arms[arm].reward_per_step`). */
  readonly rewardPerStep: readonly number[];
  /** Greedy accuracy on the curve slice at step `step` (0 = the starting policy), in step order. */
  readonly curve: readonly { readonly step: number; readonly accuracy: number }[];
}

/** One plotted point of either panel. */
export interface CurvePoint {
  readonly arm: string;
  /** The seed as a label (`seed 3`), or `mean over seeds`. */
  readonly series: string;
  readonly step: number;
  readonly value: number;
}

const MEAN = 'mean over seeds';

/** The mean over the seeds that have a value at each step (a seed that logged fewer steps stops contributing). */
function meanSeries(arm: string, perSeed: readonly CurvePoint[]): CurvePoint[] {
  const byStep = new Map<number, { sum: number; count: number }>();
  for (const p of perSeed) {
    const acc = byStep.get(p.step) ?? { sum: 0, count: 0 };
    acc.sum += p.value;
    acc.count += 1;
    byStep.set(p.step, acc);
  }
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]).map(([step, { sum, count }]) => ({ arm, series: MEAN, step, value: sum / count }));
}

/**
 * The points of the two panels. Eval accuracy: each seed's curve as logged. Training reward: each seed's running mean
 * (1/s) * sum_{t <= s} r_t (a single step's mean over 32 rollouts is too noisy to read). Each panel adds, per arm, the
 * mean over seeds at every step.
 *
 * @example
 * ```ts
 * const { reward } = curvePoints([{ arm: 'a', seed: 0, rewardPerStep: [0, 1], curve: [] }]);
 * reward.map((p) => p.value); // [0, 0.5, 0, 0.5] (seed 0, then the mean over seeds)
 * ```
 */
export function curvePoints(curves: readonly ArmCurve[]): { accuracy: CurvePoint[]; reward: CurvePoint[] } {
  const accuracy: CurvePoint[] = [];
  const reward: CurvePoint[] = [];
  const arms = [...new Set(curves.map((c) => c.arm))];
  for (const arm of arms) {
    const accArm: CurvePoint[] = [];
    const rewArm: CurvePoint[] = [];
    for (const c of curves.filter((x) => x.arm === arm)) {
      const series = `seed ${c.seed}`;
      for (const p of c.curve) accArm.push({ arm, series, step: p.step, value: p.accuracy });
      let sum = 0;
      c.rewardPerStep.forEach((r, i) => {
        sum += r;
        rewArm.push({ arm, series, step: i + 1, value: sum / (i + 1) });
      });
    }
    accuracy.push(...accArm, ...meanSeries(arm, accArm));
    reward.push(...rewArm, ...meanSeries(arm, rewArm));
  }
  return { accuracy, reward };
}

function panel(points: readonly CurvePoint[], title: string, yTitle: string): VegaLiteSpec {
  const x = { field: 'step', type: 'quantitative', title: 'Training step', axis: { tickMinStep: 1, format: 'd' } };
  const y = { field: 'value', type: 'quantitative', title: yTitle, axis: { format: '.2f' }, scale: { zero: false } };
  const color = { field: 'arm', type: 'nominal', title: 'Arm' };
  return {
    title,
    width: CHART_WIDTH,
    height: 220,
    data: { values: points },
    layer: [
      {
        transform: [{ filter: `datum.series !== '${MEAN}'` }],
        mark: { type: 'line', strokeWidth: 1, opacity: 0.45 },
        encoding: { x, y, color, detail: { field: 'series' }, tooltip: [{ field: 'arm' }, { field: 'series' }, { field: 'step' }, { field: 'value', format: '.3f' }] },
      },
      {
        transform: [{ filter: `datum.series === '${MEAN}'` }],
        mark: { type: 'line', strokeWidth: 3, point: true },
        encoding: { x, y, color, tooltip: [{ field: 'arm' }, { field: 'series' }, { field: 'step' }, { field: 'value', format: '.3f' }] },
      },
    ],
  };
}

/**
 * Vega-Lite spec of the learning curves: on top, each arm's greedy accuracy on the curve slice against the training
 * step (step 0: the starting policy), thin per seed and thick for the mean over seeds; below, the running mean of the
 * training reward per step the same way. A panel without points is left out.
 *
 * @param curves - one entry per arm and seed (at least one with a point).
 * @param sliceItems - the number of test items the curve evaluates, for the title (null: not known).
 * @param decoding - how the curve's answers were decoded, for the title: greedy (sim, TRL) or sampled (Tinker).
 */
export function curvesChartSpec(curves: readonly ArmCurve[], sliceItems: number | null, decoding: 'greedy' | 'sampled' = 'greedy'): VegaLiteSpec {
  const { accuracy, reward } = curvePoints(curves);
  const panels: VegaLiteSpec[] = [];
  const slice = sliceItems === null ? 'the curve slice' : `the first ${sliceItems} test items`;
  if (accuracy.length > 0) panels.push(panel(accuracy, `${decoding === 'sampled' ? 'Sampled' : 'Greedy'} accuracy on ${slice} during training (thin: each seed; thick: mean)`, 'Accuracy'));
  if (reward.length > 0) panels.push(panel(reward, 'Training reward: running mean of each step’s mean reward (thin: each seed; thick: mean)', 'Running mean reward'));
  return panels.length === 1 ? (panels[0] as VegaLiteSpec) : { vconcat: panels, resolve: { scale: { color: 'shared' } } };
}
