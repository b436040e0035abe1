// The hot loop of the TF-IDF kernel (METHOD.md section 2) over CSR rows, one unit (distinct
// prompt) at a time, in O(U) scratch memory: never a U x U matrix.
//
// For unit u, with s_uv = <x_u, x_v> formed through the inverted index (terms of u ascending,
// rows v ascending within a term, as scipy's csr matmat), m_u = max over the other rollouts:
//   numerator_u   = sum_{v != u} exp((s_uv - m_u) / T) * R_v     (R_v = sum of unit v's rewards)
//   denominator_u = sum_{v != u} exp((s_uv - m_u) / T) * N_v     (N_v = unit v's size)
//   self_u        = exp((s_uu - m_u) / T) if N_u > 1, else 0     (the weight of u's own copies)
// kernel.ts turns these into baselines. The function is self-contained (it references only its
// arguments and Math) because threads.ts ships its source text to a worker thread: do not make it
// call anything defined outside its own body.

/** Per-unit inputs of {@link sparseKernelChunks}, all in (shared or plain) typed arrays. */
export interface SparseKernelJob {
  readonly units: number;
  readonly xIndptr: Int32Array;
  readonly xIndices: Int32Array;
  readonly xData: Float64Array;
  /** The transpose (inverted index): term -> ascending unit rows holding it. */
  readonly tIndptr: Int32Array;
  readonly tIndices: Int32Array;
  readonly tData: Float64Array;
  readonly unitSum: Float64Array;
  readonly unitSize: Float64Array;
  readonly temperature: number;
  /** Output, 3 x units: numerators, then denominators, then self weights. */
  readonly out: Float64Array;
  /** [next chunk to claim, chunks finished]; Atomics make it safe to share between threads. */
  readonly control: Int32Array;
  /** One flag per chunk, set to 1 when the chunk is written. */
  readonly finished: Int32Array;
  readonly chunkSize: number;
}

/**
 * Claims chunks of `chunkSize` units through `control[0]` until none is left (or computes chunk
 * `only` when it is >= 0) and writes their sums to `out`; `control[1]` counts finished chunks (and
 * is notified), `finished` flags them. Any thread may compute
 * any chunk: a unit's figures depend only on the inputs, so the result is bit-identical however
 * the chunks are shared out.
 *
 * exp is a table-driven exp for x <= 0 (x = (k / 64) ln 2 + r, |r| <= ln 2 / 128, a degree-5
 * Taylor polynomial for e^r, 2^(-k/64) from two tables): relative error below 1e-15 (tested
 * against Math.exp in test/internal/sparse-kernel.test.ts), about twice as fast as Math.exp,
 * exactly 1 at 0, and 0 below -745 (where e^x < 5e-324). Every argument here is <= 0 because
 * m_u is a maximum over the same similarities.
 */
export function sparseKernelChunks(job: SparseKernelJob, only = -1): void {
  const units = job.units;
  const xIndptr = job.xIndptr;
  const xIndices = job.xIndices;
  const xData = job.xData;
  const tIndptr = job.tIndptr;
  const tIndices = job.tIndices;
  const tData = job.tData;
  const unitSum = job.unitSum;
  const unitSize = job.unitSize;
  const temperature = job.temperature;
  const out = job.out;
  const control = job.control;
  const chunkSize = job.chunkSize;

  const fraction = new Float64Array(64);
  for (let j = 0; j < 64; j++) fraction[j] = Math.pow(2, -j / 64);
  const power = new Float64Array(1090);
  for (let k = 0; k < power.length; k++) power[k] = Math.pow(2, -k);
  const scale = 64 / Math.LN2;
  // ln 2 / 64 split in a high part with trailing zero bits and a low correction (fdlibm's split).
  const ln2Hi = 6.93147180369123816490e-1 / 64;
  const ln2Lo = 1.90821492927058770002e-10 / 64;
  const round = 6755399441055744; // 1.5 * 2^52: adding and subtracting it rounds to an integer
  const exp = (x: number): number => {
    if (!(x > -745)) return 0;
    const kf = x * scale + round - round;
    const r = x - kf * ln2Hi - kf * ln2Lo;
    const k = -kf | 0;
    const p = 1 + r * (1 + r * (0.5 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120)))));
    return p * (fraction[k & 63] as number) * (power[k >> 6] as number);
  };

  // One block of up to chunkSize units at a time, in a block-by-units buffer stored unit-major
  // (s[v * size + i] = s_{start + i, v}): for every term of the block, one pass down its column
  // updates a contiguous run of `size` entries per row v, instead of one scattered write per
  // (unit, entry). Sums over terms run in ascending term order, as a row-at-a-time product would.
  const width = chunkSize;
  const block = new Float64Array(width * units);
  const slotOf = new Int32Array(tIndptr.length - 1).fill(-1);
  let termList = new Int32Array(256);
  let coefficients = new Float64Array(256 * width);
  const counts: number[] = [];
  const max = new Float64Array(width);
  const numerator = new Float64Array(width);
  const denominator = new Float64Array(width);
  const chunks = Math.ceil(units / chunkSize);
  for (;;) {
    const chunk = only >= 0 ? only : Atomics.add(control, 0, 1);
    if (chunk >= chunks) break;
    const start = chunk * chunkSize;
    const end = Math.min(units, start + chunkSize);
    const size = end - start;
    // The block's terms, each with its dense column of coefficients (0 for units without it).
    let terms = 0;
    for (let u = start; u < end; u++) {
      for (let k = xIndptr[u] as number; k < (xIndptr[u + 1] as number); k++) {
        const t = xIndices[k] as number;
        if ((slotOf[t] as number) < 0) {
          if (terms === termList.length) {
            const grown = new Int32Array(terms * 2);
            grown.set(termList);
            termList = grown;
            const grownCoefficients = new Float64Array(terms * 2 * width);
            grownCoefficients.set(coefficients);
            coefficients = grownCoefficients;
          }
          slotOf[t] = terms;
          termList[terms] = t;
          terms++;
        }
      }
    }
    const order = termList.subarray(0, terms).sort();
    for (let j = 0; j < terms; j++) {
      slotOf[order[j] as number] = j;
      coefficients.fill(0, j * width, j * width + size);
      counts[j] = 0;
    }
    for (let u = start; u < end; u++) {
      for (let k = xIndptr[u] as number; k < (xIndptr[u + 1] as number); k++) {
        const j = slotOf[xIndices[k] as number] as number;
        coefficients[j * width + (u - start)] = xData[k] as number;
        counts[j] = (counts[j] as number) + 1;
      }
    }
    block.fill(0, 0, size * units);
    for (let j = 0; j < terms; j++) {
      const t = order[j] as number;
      slotOf[t] = -1;
      const base = j * width;
      const columnEnd = tIndptr[t + 1] as number;
      if ((counts[j] as number) === 1) {
        // A term of one unit of the block: one write per entry.
        let i = 0;
        while ((coefficients[base + i] as number) === 0) i++;
        const a = coefficients[base + i] as number;
        for (let p = tIndptr[t] as number; p < columnEnd; p++) {
          const at = (tIndices[p] as number) * size + i;
          block[at] = (block[at] as number) + a * (tData[p] as number);
        }
      } else {
        // Adding 0 * x (a unit without the term) leaves every entry unchanged.
        for (let p = tIndptr[t] as number; p < columnEnd; p++) {
          const value = tData[p] as number;
          const at = (tIndices[p] as number) * size;
          for (let i = 0; i < size; i++) {
            block[at + i] = (block[at + i] as number) + (coefficients[base + i] as number) * value;
          }
        }
      }
    }
    // m_u: the largest similarity to another rollout (u's own row counts only when u has copies).
    max.fill(-Infinity);
    for (let v = 0; v < units; v++) {
      const at = v * size;
      const inside = v >= start && v < end;
      for (let i = 0; i < size; i++) {
        const s = block[at + i] as number;
        if (s > (max[i] as number) && (!inside || v !== start + i || (unitSize[start + i] as number) > 1)) max[i] = s;
      }
    }
    numerator.fill(0);
    denominator.fill(0);
    for (let v = 0; v < units; v++) {
      const at = v * size;
      const reward = unitSum[v] as number;
      const count = unitSize[v] as number;
      if (v >= start && v < end) {
        for (let i = 0; i < size; i++) {
          if (v === start + i) continue;
          const w = exp(((block[at + i] as number) - (max[i] as number)) / temperature);
          numerator[i] = (numerator[i] as number) + w * reward;
          denominator[i] = (denominator[i] as number) + w * count;
        }
        continue;
      }
      for (let i = 0; i < size; i++) {
        const w = exp(((block[at + i] as number) - (max[i] as number)) / temperature);
        numerator[i] = (numerator[i] as number) + w * reward;
        denominator[i] = (denominator[i] as number) + w * count;
      }
    }
    for (let i = 0; i < size; i++) {
      const u = start + i;
      out[u] = numerator[i] as number;
      out[units + u] = denominator[i] as number;
      out[2 * units + u] =
        (unitSize[u] as number) > 1 ? exp(((block[u * size + i] as number) - (max[i] as number)) / temperature) : 0;
    }
    if (only >= 0) break;
    Atomics.store(job.finished, chunk, 1);
    Atomics.add(control, 1, 1);
    if (control.buffer instanceof SharedArrayBuffer) Atomics.notify(control, 1);
  }
}
