// The hot loop of the TF-IDF kernel (METHOD.md section 2) over CSR rows, one unit (distinct
// prompt) at a time, in O(U) scratch memory: never a U x U matrix.
//
// For unit u, with s_uv = <x_u, x_v> formed through the inverted index (terms of u ascending,
// rows v ascending within a term, the order of scipy's csr matmat), and m_u the largest s_uv over
// the other rollouts (v != u, or v = u too when u has copies):
//   numerator_u   = sum_{v != u} exp((s_uv - m_u) / T) * R_v     (R_v = sum of unit v's rewards)
//   denominator_u = sum_{v != u} exp((s_uv - m_u) / T) * N_v     (N_v = unit v's size)
//   self_u        = exp((s_uu - m_u) / T) if N_u > 1, else 0     (the weight of u's own copies)
// kernel.ts turns these into baselines. Every exp argument is <= 0 because m_u is the maximum
// of the same similarities, which is what expNonPositive needs.
import type { CsrMatrix } from '../text/tfidf.js';
import { expNonPositive } from './fast-exp.js';

/** Rows v per tile of the product: 2048 float64 = 16 KB, well inside a 32-48 KB L1 data cache. */
const TILE = 2048;

/** numerator, denominator and self weight of every unit, as three consecutive runs of U values. */
export function sparseKernelSums(
  x: CsrMatrix,
  xt: CsrMatrix,
  unitSum: Float64Array,
  unitSize: Float64Array,
  temperature: number,
): Float64Array {
  const units = x.rows;
  const xIndptr = x.indptr;
  const xIndices = x.indices;
  const xData = x.data;
  const tIndptr = xt.indptr;
  const tIndices = xt.indices;
  const tData = xt.data;
  // One allocation: the three output runs, then the similarity row (returned as a view).
  const buffer = new Float64Array(4 * units);
  const out = buffer.subarray(0, 3 * units);
  const row = buffer.subarray(3 * units);
  let longest = 0;
  if (units > TILE) {
    for (let u = 0; u < units; u++) longest = Math.max(longest, (xIndptr[u + 1] as number) - (xIndptr[u] as number));
  }
  const cursor = new Int32Array(longest);
  for (let u = 0; u < units; u++) {
    const rowStart = xIndptr[u] as number;
    const rowEnd = xIndptr[u + 1] as number;
    if (units <= TILE) {
      for (let k = rowStart; k < rowEnd; k++) {
        const t = xIndices[k] as number;
        const value = xData[k] as number;
        const columnEnd = tIndptr[t + 1] as number;
        for (let p = tIndptr[t] as number; p < columnEnd; p++) {
          const v = tIndices[p] as number;
          row[v] = (row[v] as number) + value * (tData[p] as number);
        }
      }
    } else {
      // The same products, one tile of TILE rows v at a time, so the part of `row` being
      // written stays in the L1 cache; every s_uv still sums its terms in ascending order.
      for (let k = rowStart; k < rowEnd; k++) cursor[k - rowStart] = tIndptr[xIndices[k] as number] as number;
      for (let limit = TILE; limit < units + TILE; limit += TILE) {
        for (let k = rowStart; k < rowEnd; k++) {
          const value = xData[k] as number;
          const columnEnd = tIndptr[(xIndices[k] as number) + 1] as number;
          let p = cursor[k - rowStart] as number;
          for (; p < columnEnd; p++) {
            const v = tIndices[p] as number;
            if (v >= limit) break;
            row[v] = (row[v] as number) + value * (tData[p] as number);
          }
          cursor[k - rowStart] = p;
        }
      }
    }
    const hasCopies = (unitSize[u] as number) > 1;
    let max = -Infinity;
    for (let v = 0; v < units; v++) {
      const s = row[v] as number;
      if (s > max && (v !== u || hasCopies)) max = s;
    }
    let numerator = 0;
    let denominator = 0;
    // Two loops skip v = u without a branch; both clear the row for the next unit as they go.
    for (let v = 0; v < u; v++) {
      const w = expNonPositive(((row[v] as number) - max) / temperature);
      row[v] = 0;
      numerator += w * (unitSum[v] as number);
      denominator += w * (unitSize[v] as number);
    }
    for (let v = u + 1; v < units; v++) {
      const w = expNonPositive(((row[v] as number) - max) / temperature);
      row[v] = 0;
      numerator += w * (unitSum[v] as number);
      denominator += w * (unitSize[v] as number);
    }
    out[u] = numerator;
    out[units + u] = denominator;
    out[2 * units + u] = hasCopies ? expNonPositive(((row[u] as number) - max) / temperature) : 0;
    row[u] = 0;
  }
  return out;
}
