import { looMeans } from '../internal/batch.js';
import { readRewards } from './batch.js';
import { finishResult } from './diagnostics.js';
import { runMasked } from './mask.js';
import type { RunningState } from './normalization/running.js';
import { readNormalization, type NormalizationSettings, type NormalizationSpec } from './normalization/spec.js';
import { normalizeWith } from './normalization/step.js';
import type { Batch, EstimatorResult } from './types.js';

/** The largest weight a row's own value has in its centre (docs/method.md section 2.6). */
function selfWeight(s: NormalizationSettings, groupIds: ArrayLike<string | number> | undefined, size: number, state: RunningState | undefined): number {
  if (s.centre === 'none' || s.leaveOneOut) return 0;
  if (s.centre === 'batch') return size > 0 ? 1 / size : 0;
  if (s.centre === 'running') return state === undefined ? 0 : 1 / state.count;
  const counts = new Map<string | number, number>();
  for (let i = 0; i < size; i++) counts.set(groupIds?.[i] as string | number, (counts.get(groupIds?.[i] as string | number) ?? 0) + 1);
  let max = 0;
  for (const n of counts.values()) if (n > 1) max = Math.max(max, 1 / n);
  return max;
}

/**
 * The normalisation step (docs/method.md section 2.6) on a batch's rewards, as an estimator: A = the step's output
 * with x = r, b = the centre it subtracted, `dropped` the rows to leave out of the loss. The framework presets
 * (`normalizationPreset(name).spec`) are this with their settings.
 *
 * @param state - the running moments (running settings only), as `Normalizer.stateDict()` returns them.
 * @throws {@link RlAdvantagesError} as `normalizeStep`, and if a reward is not finite or beyond 1e100.
 * @example
 * ```ts
 * normalized({ rewards: [1, 0, 1, 1], groupIds: [0, 0, 1, 1] }, normalizationPreset('trl_rloo').spec).advantages;
 * ```
 */
export function normalized(batch: Batch, spec: NormalizationSpec | NormalizationSettings = {}, state?: RunningState): EstimatorResult {
  const settings = readNormalization(spec);
  return runMasked(batch, (b) => {
    const rewards = readRewards(b, 1, 'the normalisation step');
    const result = normalizeWith({ values: rewards, ...(b.groupIds === undefined ? {} : { groupIds: b.groupIds }), ...(b.lengths === undefined ? {} : { lengths: b.lengths }) }, settings, state);
    const maxSelfWeight = selfWeight(settings, b.groupIds, rewards.length, result.state);
    const out = finishResult(b, rewards, { advantages: result.advantages, baselines: result.centres, looMean: looMeans(rewards), maxSelfWeight });
    return Object.freeze({ ...out, dropped: result.dropped });
  });
}
