// Leave-one-out sums and means over Float64Arrays: the numerics every estimator and the calibration share.
// (Reading a Batch is src/estimators/batch.ts.)

/**
 * For each position k of `members`, the sum of rewards[members[j]] over j != k, formed as a
 * prefix plus a suffix sum so that it never touches rewards[members[k]]: a leave-one-out
 * baseline is then exactly, not just approximately, independent of the rollout's own reward.
 */
export function sumsOfOthers(rewards: Float64Array, members: ArrayLike<number>): Float64Array {
  const n = members.length;
  const out = new Float64Array(n);
  let prefix = 0;
  for (let k = 0; k < n; k++) {
    out[k] = prefix;
    prefix += rewards[members[k] as number] as number;
  }
  let suffix = 0;
  for (let k = n - 1; k >= 0; k--) {
    out[k] = (out[k] as number) + suffix;
    suffix += rewards[members[k] as number] as number;
  }
  return out;
}

export function identity(size: number): Int32Array {
  const out = new Int32Array(size);
  for (let i = 0; i < size; i++) out[i] = i;
  return out;
}

/** LOO batch mean of every rollout; a batch of one reports its own reward (no other rollout exists). */
export function looMeans(rewards: Float64Array): Float64Array {
  return looMeansInto(rewards, new Float64Array(rewards.length));
}

/**
 * {@link looMeans} written into `out` (same length as `rewards`), for callers that reuse one
 * buffer over many batches. The sum of the others is a prefix plus a suffix sum, as in
 * {@link sumsOfOthers}, so out[i] never depends on rewards[i].
 */
export function looMeansInto(rewards: Float64Array, out: Float64Array): Float64Array {
  const n = rewards.length;
  if (n === 1) {
    out[0] = rewards[0] as number;
    return out;
  }
  let prefix = 0;
  for (let i = 0; i < n; i++) {
    out[i] = prefix;
    prefix += rewards[i] as number;
  }
  let suffix = 0;
  for (let i = n - 1; i >= 0; i--) {
    out[i] = (out[i] as number) + suffix;
    suffix += rewards[i] as number;
  }
  for (let i = 0; i < n; i++) out[i] = (out[i] as number) / (n - 1);
  return out;
}

export function advantagesFrom(rewards: Float64Array, baselines: Float64Array): Float64Array {
  const out = new Float64Array(rewards.length);
  for (let i = 0; i < rewards.length; i++) out[i] = (rewards[i] as number) - (baselines[i] as number);
  return out;
}

/** The mean of rewards[group], exactly the common value when every reward of the group is equal (so A = 0 exactly there). */
export function exactGroupMean(rewards: Float64Array, group: ArrayLike<number>): number {
  const first = rewards[group[0] as number] as number;
  let sum = 0;
  let constant = true;
  for (let k = 0; k < group.length; k++) {
    const r = rewards[group[k] as number] as number;
    sum += r;
    if (r !== first) constant = false;
  }
  return constant ? first : sum / group.length;
}
