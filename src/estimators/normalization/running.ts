// Running moments of the values a stateful normalisation has seen (ROLL's RunningMoments, in float64).
import { RlAdvantagesError } from '../../errors.js';
import { describe } from '../../internal/validate.js';

/** The state of a running normalisation: what `stateDict()` returns and `loadStateDict()` takes. */
export interface RunningState {
  /** The running mean. Starts at 0. */
  readonly mean: number;
  /** The running biased variance. Starts at 1. */
  readonly variance: number;
  /** The total weight seen. Starts at 1e-24 (ROLL's start). */
  readonly count: number;
}

/** ROLL's starting moments (roll/utils/functionals.py `RunningMoments.__init__`). */
export const INITIAL_RUNNING_STATE: RunningState = Object.freeze({ mean: 0, variance: 1, count: 1e-24 });

/**
 * Merges one batch's weighted mean and biased variance into the running moments, as ROLL's
 * `RunningMoments.update` (alibaba/ROLL@8eb27cc2, roll/utils/functionals.py): with delta = m_b - mean,
 * N = count + n_b: mean += delta n_b / N; variance = (variance count + delta^2 count n_b / N + v_b n_b) / N.
 */
export function updateRunning(state: RunningState, batchMean: number, batchVariance: number, batchWeight: number): RunningState {
  const delta = batchMean - state.mean;
  const total = state.count + batchWeight;
  const oldSum = state.variance * state.count + ((delta * delta * state.count) * batchWeight) / total;
  const newSum = batchVariance * batchWeight;
  return Object.freeze({ mean: state.mean + (delta * batchWeight) / total, variance: (oldSum + newSum) / total, count: total });
}

/** The running std ROLL divides by, sqrt(variance N / (N - 1)); undefined while N <= 1. */
export function runningStd(state: RunningState): number | undefined {
  if (!(state.count > 1)) return undefined;
  return Math.sqrt((state.variance * state.count) / (state.count - 1));
}

/**
 * Checks a state given to `loadStateDict`.
 *
 * @throws {@link RlAdvantagesError} (code `bad_state`) naming the field that is missing, not finite,
 *   negative (variance) or not > 0 (count), or an unknown key.
 */
export function readRunningState(state: unknown): RunningState {
  if (typeof state !== 'object' || state === null || Array.isArray(state)) {
    throw new RlAdvantagesError(`state must be an object {mean, variance, count}, got ${describe(state)}`, { code: 'bad_state', field: 'state' });
  }
  const s = state as Record<string, unknown>;
  for (const key of Object.keys(s)) {
    if (key !== 'mean' && key !== 'variance' && key !== 'count') {
      throw new RlAdvantagesError(`unknown state field "${key}"; a running normalisation's state has mean, variance, count`, { code: 'bad_state', field: `state.${key}` });
    }
  }
  for (const key of ['mean', 'variance', 'count'] as const) {
    const v = s[key];
    const ok = typeof v === 'number' && Number.isFinite(v) && (key === 'mean' || (key === 'variance' ? v >= 0 : v > 0));
    if (!ok) {
      throw new RlAdvantagesError(`state.${key} must be a finite number${key === 'mean' ? '' : key === 'variance' ? ' >= 0' : ' > 0'}, got ${describe(v)}`, {
        code: 'bad_state',
        field: `state.${key}`,
      });
    }
  }
  return Object.freeze({ mean: s.mean as number, variance: s.variance as number, count: s.count as number });
}
