// The diagnostics every estimator result carries (docs/method.md section 2.1).
import type { Batch, EstimatorDiagnostics, EstimatorResult } from './types.js';

/** Members of each group: by group id, else by prompt, else one group per rollout. Ids compare with ===. */
function groupsOf(batch: Batch, size: number): number[][] {
  const keys: ArrayLike<unknown> | undefined =
    batch.groupIds !== undefined && batch.groupIds !== null && batch.groupIds.length === size
      ? batch.groupIds
      : Array.isArray(batch.prompts) && batch.prompts.length === size
        ? batch.prompts
        : undefined;
  if (keys === undefined) return Array.from({ length: size }, (_, i) => [i]);
  const index = new Map<unknown, number>();
  const lists: number[][] = [];
  for (let i = 0; i < size; i++) {
    let g = index.get(keys[i]);
    if (g === undefined) {
      g = lists.length;
      index.set(keys[i], g);
      lists.push([]);
    }
    (lists[g] as number[]).push(i);
  }
  return lists;
}

/** Diagnostics of an unmasked batch whose rewards were already read. */
export function computeDiagnostics(batch: Batch, rewards: Float64Array, advantages: Float64Array): EstimatorDiagnostics {
  const groups = groupsOf(batch, rewards.length);
  let groupsOfOne = 0;
  let zeroVarianceGroups = 0;
  for (const group of groups) {
    if (group.length === 1) {
      groupsOfOne++;
      continue;
    }
    const first = rewards[group[0] as number] as number;
    if (group.every((i) => rewards[i] === first)) zeroVarianceGroups++;
  }
  let zeros = 0;
  for (const a of advantages) if (a === 0) zeros++;
  return Object.freeze({
    groups: groups.length,
    groupsOfOne,
    zeroVarianceGroups,
    zeroAdvantageFraction: advantages.length === 0 ? 0 : zeros / advantages.length,
    masked: 0,
  });
}

/** The result with its diagnostics, frozen. */
export function finishResult(batch: Batch, rewards: Float64Array, result: Omit<EstimatorResult, 'diagnostics'>): EstimatorResult {
  return Object.freeze({ ...result, diagnostics: computeDiagnostics(batch, rewards, result.advantages) });
}
