// Chart 1: mean reward per training step for each arm, with a running mean, pilot and full arms side by side.
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One arm's logged mean reward per step (summary.json `pilot.arms[name]` or `arms[name]`). */
export interface ArmRewards {
  readonly arm: string;
  /** `pilot` (the timing pilot) or `full` (the full arms). */
  readonly phase: 'pilot' | 'full';
  /** Mean reward of step s at index s - 1. */
  readonly rewardPerStep: readonly number[];
}

/** One plotted point: the step's mean reward and the running mean of steps 1..step. */
export interface RewardPoint {
  readonly arm: string;
  readonly phase: 'pilot' | 'full';
  readonly step: number;
  readonly reward: number;
  readonly runningMean: number;
}

/**
 * The points of the reward chart: one per logged step, with the running mean (1/s) * sum_{t <= s} reward_t
 * accumulated in step order.
 *
 * @example
 * ```ts
 * rewardPoints([{ arm: 'a', phase: 'full', rewardPerStep: [0, 1] }]).map((p) => p.runningMean); // [0, 0.5]
 * ```
 */
export function rewardPoints(arms: readonly ArmRewards[]): RewardPoint[] {
  const points: RewardPoint[] = [];
  for (const a of arms) {
    let sum = 0;
    a.rewardPerStep.forEach((reward, i) => {
      sum += reward;
      points.push({ arm: a.arm, phase: a.phase, step: i + 1, reward, runningMean: sum / (i + 1) });
    });
  }
  return points;
}

function panel(points: readonly RewardPoint[], title: string): VegaLiteSpec {
  const color = { field: 'arm', type: 'nominal', title: 'Arm' };
  const x = { field: 'step', type: 'quantitative', title: 'Training step', axis: { tickMinStep: 1, format: 'd' } };
  return {
    title,
    width: CHART_WIDTH,
    height: 220,
    data: { values: points },
    layer: [
      // 0, drawn when a step's mean falls below it (the -0.1 format penalty of a wrong, badly formatted answer).
      ...(points.some((p) => p.reward < 0)
        ? [{ data: { values: [{ zero: 0 }] }, mark: { type: 'rule', strokeDash: [2, 3], color: '#8a96a3' }, encoding: { y: { field: 'zero', type: 'quantitative' } } }]
        : []),
      {
        mark: { type: 'point', filled: true, size: 36, opacity: 0.75 },
        encoding: {
          x,
          y: { field: 'reward', type: 'quantitative', title: 'Mean reward per step', axis: { format: '.2f' } },
          color,
          tooltip: [{ field: 'arm' }, { field: 'step' }, { field: 'reward', format: '.3f' }],
        },
      },
      {
        mark: { type: 'line', strokeWidth: 2 },
        encoding: { x, y: { field: 'runningMean', type: 'quantitative' }, color },
      },
    ],
  };
}

/**
 * Vega-Lite spec of chart 1: reward per step for each arm (points) and its running mean (line); the pilot and the
 * full arms are separate panels (a pilot of 3 steps would vanish on a 60-step axis). A phase with no arm is left out.
 *
 * @param arms - the logged rewards; at least one arm with one step.
 */
export function rewardChartSpec(arms: readonly ArmRewards[]): VegaLiteSpec {
  const points = rewardPoints(arms);
  const panels: VegaLiteSpec[] = [];
  const pilot = points.filter((p) => p.phase === 'pilot');
  const full = points.filter((p) => p.phase === 'full');
  if (pilot.length > 0) panels.push(panel(pilot, 'Timing pilot: reward per step (points) and running mean (line)'));
  if (full.length > 0) panels.push(panel(full, 'Full arms: reward per step (points) and running mean (line)'));
  return panels.length === 1 ? (panels[0] as VegaLiteSpec) : { vconcat: panels, resolve: { scale: { color: 'shared' } } };
}
