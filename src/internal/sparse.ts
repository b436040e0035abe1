// Sparse similarity rows over CSR matrices, in the order scipy's csr matmat uses, so that
// S = X X^T agrees with scikit-learn + scipy to the last bit where possible.
import type { CsrMatrix } from '../text/tfidf.js';

/** The transpose of a CSR matrix (equivalently its CSC form): column -> (row, value) lists. */
export function transposeCsr(x: CsrMatrix): CsrMatrix {
  const counts = new Int32Array(x.cols + 1);
  for (let k = 0; k < x.indices.length; k++) {
    const c = (x.indices[k] as number) + 1;
    counts[c] = (counts[c] as number) + 1;
  }
  for (let c = 0; c < x.cols; c++) counts[c + 1] = (counts[c + 1] as number) + (counts[c] as number);
  const indptr = counts.slice();
  const next = counts.slice(0, x.cols);
  const indices = new Int32Array(x.indices.length);
  const data = new Float64Array(x.indices.length);
  for (let r = 0; r < x.rows; r++) {
    for (let k = x.indptr[r] as number; k < (x.indptr[r + 1] as number); k++) {
      const c = x.indices[k] as number;
      const at = next[c] as number;
      indices[at] = r;
      data[at] = x.data[k] as number;
      next[c] = at + 1;
    }
  }
  return { rows: x.cols, cols: x.rows, indptr, indices, data };
}

/**
 * out[v] = <x_u, x_v> for every row v: for each stored term t of row u (ascending), add
 * x_ut * x_vt over the rows v that hold t (the inverted index `xt`).
 */
export function sparseSimilarityRow(x: CsrMatrix, xt: CsrMatrix, u: number, out: Float64Array): void {
  out.fill(0);
  for (let k = x.indptr[u] as number; k < (x.indptr[u + 1] as number); k++) {
    const t = x.indices[k] as number;
    const value = x.data[k] as number;
    for (let p = xt.indptr[t] as number; p < (xt.indptr[t + 1] as number); p++) {
      const v = xt.indices[p] as number;
      out[v] = (out[v] as number) + value * (xt.data[p] as number);
    }
  }
}

/** Column -> new column, -1 for columns not in use; kept between calls and reset after each. */
let scratchPosition = new Int32Array(0);

/**
 * The same matrix with only the columns that hold an entry, renumbered 0.. in ascending order of
 * the original column (so every row stays sorted and every dot product sums in the same order).
 * O(nnz + d log d) for d columns in use, whatever the number of columns.
 */
export function compactColumns(x: CsrMatrix): CsrMatrix {
  if (scratchPosition.length < x.cols) scratchPosition = new Int32Array(x.cols).fill(-1);
  const position = scratchPosition;
  const used: number[] = [];
  for (let k = 0; k < x.indices.length; k++) {
    const c = x.indices[k] as number;
    if (position[c] === -1) {
      position[c] = 0;
      used.push(c);
    }
  }
  const columns = Int32Array.from(used).sort();
  for (let j = 0; j < columns.length; j++) position[columns[j] as number] = j;
  const indices = new Int32Array(x.indices.length);
  for (let k = 0; k < indices.length; k++) indices[k] = position[x.indices[k] as number] as number;
  for (let j = 0; j < columns.length; j++) position[columns[j] as number] = -1;
  return { rows: x.rows, cols: columns.length, indptr: x.indptr, indices, data: x.data };
}
