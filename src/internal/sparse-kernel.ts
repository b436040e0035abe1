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
  const out = new Float64Array(3 * units);
  const row = new Float64Array(units);
  for (let u = 0; u < units; u++) {
    const rowEnd = xIndptr[u + 1] as number;
    for (let k = xIndptr[u] as number; k < rowEnd; k++) {
      const t = xIndices[k] as number;
      const value = xData[k] as number;
      const columnEnd = tIndptr[t + 1] as number;
      for (let p = tIndptr[t] as number; p < columnEnd; p++) {
        const v = tIndices[p] as number;
        row[v] = (row[v] as number) + value * (tData[p] as number);
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
