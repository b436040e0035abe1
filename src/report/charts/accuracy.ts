// Chart 6: eval accuracy per arm with its 95% interval, and the paired 2x2 table of item outcomes.
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One arm's eval: items correct out of n. */
export interface ArmAccuracy {
  readonly arm: string;
  readonly correct: number;
  readonly n: number;
}

/**
 * The Wilson score interval for a binomial proportion (docs/method.md section 10): with p = k/n and z the normal
 * quantile, centre (p + z^2/(2n)) / (1 + z^2/n) and half-width z sqrt(p(1-p)/n + z^2/(4n^2)) / (1 + z^2/n). It stays
 * inside [0, 1] and is not degenerate at k = 0 or k = n, unlike the Wald interval.
 *
 * @param correct - k, an integer in [0, n].
 * @param n - the number of items, >= 1.
 * @param z - the normal quantile (default 1.959963984540054, 95%).
 * @example
 * ```ts
 * wilsonInterval(50, 100); // [0.4038..., 0.5961...]
 * ```
 */
export function wilsonInterval(correct: number, n: number, z = 1.959963984540054): [number, number] {
  const p = correct / n;
  const z2n = (z * z) / n;
  const centre = (p + z2n / 2) / (1 + z2n);
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / (1 + z2n);
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}

/** Paired outcome counts of two arms on the same items: both right, only one right, both wrong. */
export interface PairedTable {
  readonly bothCorrect: number;
  readonly treatmentOnly: number;
  readonly baselineOnly: number;
  readonly bothWrong: number;
}

/**
 * Counts the 2x2 table of paired outcomes over the items both arms were scored on (matched by item id).
 *
 * @param treatment - item id to correct (true/false) for the treatment arm.
 * @param baseline - the same for the baseline arm.
 */
export function pairedTable(treatment: ReadonlyMap<string, boolean>, baseline: ReadonlyMap<string, boolean>): PairedTable {
  let bothCorrect = 0;
  let treatmentOnly = 0;
  let baselineOnly = 0;
  let bothWrong = 0;
  for (const [id, t] of treatment) {
    const b = baseline.get(id);
    if (b === undefined) continue;
    if (t && b) bothCorrect++;
    else if (t) treatmentOnly++;
    else if (b) baselineOnly++;
    else bothWrong++;
  }
  return { bothCorrect, treatmentOnly, baselineOnly, bothWrong };
}

/**
 * Vega-Lite spec of chart 6: each arm's accuracy (a point) with its 95% Wilson interval (a bar).
 *
 * @param arms - the arms' counts (n >= 1 each).
 */
export function accuracyChartSpec(arms: readonly ArmAccuracy[]): VegaLiteSpec {
  const values = arms.map((a) => {
    const [lo, hi] = wilsonInterval(a.correct, a.n);
    return { arm: a.arm, accuracy: a.correct / a.n, lo, hi, n: a.n };
  });
  const y = { field: 'arm', type: 'nominal', title: 'Arm', sort: null };
  return {
    title: 'Greedy eval: accuracy per arm (point, 95% Wilson interval)',
    width: CHART_WIDTH,
    height: { step: 34 },
    data: { values },
    layer: [
      { mark: { type: 'rule', strokeWidth: 3, opacity: 0.6 }, encoding: { y, x: { field: 'lo', type: 'quantitative' }, x2: { field: 'hi' } } },
      {
        mark: { type: 'point', filled: true, size: 70 },
        encoding: {
          y,
          x: { field: 'accuracy', type: 'quantitative', title: 'Accuracy (proportion of test items correct)', scale: { zero: false }, axis: { format: '.3f' } },
          tooltip: [{ field: 'arm' }, { field: 'accuracy', format: '.4f' }, { field: 'n' }],
        },
      },
    ],
  };
}
