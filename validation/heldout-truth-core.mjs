// The exact truth of a kernel's B_eff ratio on a population with known success rates (docs/method.md section 4.3,
// "Validation"), shared by validation/kernel-lab-heldout-truth.mjs and its test.
//
// Given a batch's prompts, b_i = sum_{j != i} w_ij r_j / W_i is linear in the rewards (w_ij = exp(-(g_ij - m_i)),
// m_i = min_{j != i} g_ij, section 2.4; w_ij = 1 for the LOO batch mean or when every g_ij is +Infinity), and the
// r_j are independent Bernoulli(p_j), so
//   E (b_i - p_i)^2 = (sum_j w_ij p_j / W_i - p_i)^2 + sum_j w_ij^2 p_j (1 - p_j) / W_i^2
// exactly: only the batches' composition is left to sample.

/**
 * Mean over the batch's rollouts of E (b_i - p_i)^2 given its prompts.
 * @param energy - (a, b) => g between population tasks a and b, or null for the LOO batch mean.
 * @param p - every population task's success rate.
 * @param batch - the batch's population indices (distinct).
 */
export function batchExpectedError(energy, p, batch) {
  const B = batch.length;
  const g = new Float64Array(B);
  let total = 0;
  for (let i = 0; i < B; i++) {
    const a = batch[i];
    let min = Infinity;
    for (let j = 0; j < B; j++) {
      if (j === i) continue;
      g[j] = energy === null ? 0 : energy(a, batch[j]);
      if (g[j] < min) min = g[j];
    }
    let W = 0;
    let mean = 0;
    let variance = 0;
    for (let j = 0; j < B; j++) {
      if (j === i) continue;
      const w = min === Infinity ? 1 : Math.exp(min - g[j]);
      const q = p[batch[j]];
      W += w;
      mean += w * q;
      variance += w * w * q * (1 - q);
    }
    total += (mean / W - p[a]) ** 2 + variance / (W * W);
  }
  return total / B;
}

/**
 * The held-out figure's estimand for cross-fitted kernels k_1..k_D (equal halves) and its Monte-Carlo standard error
 * over the batches: R = (D s2 + D M_ref) / (D s2 + sum_d M(k_d)), s2 = the population's mean p (1 - p), M the mean
 * over batches of {@link batchExpectedError}; the standard error by the delta method for a ratio of means.
 * @param referenceErrors - batchExpectedError(null, p, batch) per batch.
 * @param kernelErrors - one array per kernel: batchExpectedError(energy_d, p, batch) per batch (the same batches).
 */
export function truthRatio(s2, referenceErrors, kernelErrors) {
  const D = kernelErrors.length;
  const n = referenceErrors.length;
  const numerator = referenceErrors.map((m) => D * s2 + D * m);
  const denominator = referenceErrors.map((_, b) => D * s2 + kernelErrors.reduce((s, e) => s + e[b], 0));
  const mx = numerator.reduce((s, x) => s + x, 0) / n;
  const my = denominator.reduce((s, x) => s + x, 0) / n;
  const ratio = mx / my;
  let v = 0;
  for (let b = 0; b < n; b++) v += (numerator[b] - ratio * denominator[b]) ** 2;
  return { ratio, se: Math.sqrt(v / (n - 1) / n) / my };
}
