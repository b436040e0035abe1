// The leave-one-out kernel over energies (docs/method.md section 2.4), shared by the `kernel_file` estimator, the
// calibration engine and the tuner: one definition of b_i.
//
// Two kernel evaluation paths, measured (issue 19): this one (any family, a pair's energy from the family's
// embedding) and src/kernels/sparse-kernel.ts (the TF-IDF kernel only: sparse dot products, one shift per unit,
// row blocks on worker threads). On the same GSM8K train prompts, T = 0.1, one thread, CPU time per batch:
// B = 32 0.13 ms here vs 0.21 ms there; B = 1024 186 ms vs 14.2 ms; B = 4096 2880 ms vs 222 ms (13x); baselines
// equal within 1e-14. The TF-IDF estimator keeps its own path for that factor at the batch sizes a training loop
// sends; test/estimators/kernel-file.test.ts holds the two to 1e-12 on a batch, docs/performance.md the figures.

/** A family's view of a list of prompts: the energy g(a, b) between prompts a and b (w = e^-g; +Infinity: no weight). */
export interface Embedding {
  /** How many prompts. */
  readonly size: number;
  /** g(a, b) = g(b, a), never NaN; +Infinity means weight 0. */
  energy(a: number, b: number): number;
  /**
   * The smallest g(a, b) over a != b, when the family knows it without visiting every pair (the tuner's weight table
   * uses it as its shift; any value at or below the smallest energy gives the same ratios).
   */
  readonly minEnergy?: number;
}

/**
 * b_i for one batch: m_i = min_{j != i} g_ij, w_ij = exp(-(g_ij - m_i)), b_i = sum_{j != i} w_ij r_j / sum_{j != i} w_ij,
 * summed in ascending j; the LOO batch mean (sum_{j != i} r_j / (B - 1)) when every g_ij is +Infinity.
 * docs/method.md section 2.4.
 *
 * @param g - row-major [B, B] energies of the batch (the diagonal is never read).
 */
export function energyBaselinesInto(g: Float64Array, rewards: Float64Array, out: Float64Array): void {
  const size = rewards.length;
  for (let i = 0; i < size; i++) {
    const row = i * size;
    let min = Infinity;
    for (let j = 0; j < size; j++) {
      if (j === i) continue;
      const e = g[row + j] as number;
      if (e < min) min = e;
    }
    if (min === Infinity) {
      let others = 0;
      for (let j = 0; j < size; j++) if (j !== i) others += rewards[j] as number;
      out[i] = others / (size - 1);
      continue;
    }
    let numerator = 0;
    let denominator = 0;
    for (let j = 0; j < size; j++) {
      if (j === i) continue;
      const w = Math.exp(min - (g[row + j] as number));
      numerator += w * (rewards[j] as number);
      denominator += w;
    }
    out[i] = numerator / denominator;
  }
}

/** Fills the [B, B] energies of a batch whose rollout i is prompt unitOf[i] of the embedding. */
export function batchEnergiesInto(embedding: Embedding, unitOf: ArrayLike<number>, g: Float64Array): void {
  const size = unitOf.length;
  for (let i = 0; i < size; i++) {
    const a = unitOf[i] as number;
    g[i * size + i] = 0;
    for (let j = i + 1; j < size; j++) {
      const e = embedding.energy(a, unitOf[j] as number);
      g[i * size + j] = e;
      g[j * size + i] = e;
    }
  }
}

/** An embedding backed by a full [K, K] table of energies (computed once, the upper triangle and diagonal mirrored). */
export function tabulate(embedding: Embedding): Embedding & { readonly table: Float64Array } {
  const k = embedding.size;
  const table = new Float64Array(k * k);
  for (let a = 0; a < k; a++) {
    for (let b = a; b < k; b++) {
      const e = embedding.energy(a, b);
      table[a * k + b] = e;
      table[b * k + a] = e;
    }
  }
  return { size: k, table, energy: (a, b) => table[a * k + b] as number };
}

/** g = (x_a - x_b)^2 / (2 s^2) (`gaussian`) or |x_a - x_b| / s (`laplace`) over one value per prompt. */
export function scalarEmbedding(values: Float64Array, kernel: 'gaussian' | 'laplace', scale: number): Embedding {
  // The closest two values (adjacent once sorted) give the smallest energy: computed as the energy of that pair.
  let closest: [number, number] | null = null;
  if (values.length >= 2) {
    const order = Array.from({ length: values.length }, (_, i) => i).sort((a, b) => (values[a] as number) - (values[b] as number));
    let gap = Infinity;
    for (let r = 1; r < order.length; r++) {
      const d = (values[order[r] as number] as number) - (values[order[r - 1] as number] as number);
      if (d < gap) {
        gap = d;
        closest = [order[r - 1] as number, order[r] as number];
      }
    }
  }
  let energy: (a: number, b: number) => number;
  if (kernel === 'gaussian') {
    const c = 1 / (2 * scale * scale);
    energy = (a, b) => ((values[a] as number) - (values[b] as number)) ** 2 * c;
  } else energy = (a, b) => Math.abs((values[a] as number) - (values[b] as number)) / scale;
  return closest === null ? { size: values.length, energy } : { size: values.length, energy, minEnergy: energy(closest[0], closest[1]) };
}

/** g = |z_a - z_b|^2 / (2 s^2) (`rbf`) or -cos(z_a, z_b) / T (`cosine`, 0 for a zero vector) over row-major vectors. */
export function vectorEmbedding(z: Float64Array, dimension: number, metric: 'rbf' | 'cosine', scale: number): Embedding {
  const size = z.length / dimension;
  if (metric === 'rbf') {
    const c = 1 / (2 * scale * scale);
    return {
      size,
      energy: (a, b) => {
        let s = 0;
        for (let d = 0; d < dimension; d++) s += ((z[a * dimension + d] as number) - (z[b * dimension + d] as number)) ** 2;
        return s * c;
      },
    };
  }
  const unit = new Float64Array(z.length);
  for (let r = 0; r < size; r++) {
    let n = 0;
    for (let d = 0; d < dimension; d++) n += (z[r * dimension + d] as number) ** 2;
    const norm = n > 0 ? Math.sqrt(n) : 1;
    for (let d = 0; d < dimension; d++) unit[r * dimension + d] = (z[r * dimension + d] as number) / norm;
  }
  return {
    size,
    energy: (a, b) => {
      let s = 0;
      for (let d = 0; d < dimension; d++) s += (unit[a * dimension + d] as number) * (unit[b * dimension + d] as number);
      return -s / scale;
    },
  };
}
