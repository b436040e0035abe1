// Sparse similarity rows over CSR matrices, in the order scipy's csr matmat uses, so that
// S = X X^T agrees with scikit-learn + scipy to the last bit where possible.
import type { CsrMatrix } from '../text/tfidf.js';

/**
 * <x_a, y_b> of row a of x and row b of y (same column space), summed over their common columns in ascending
 * column order (scipy's order). Products commute exactly, so csrRowDot(x, a, x, b) and csrRowDot(x, b, x, a) have
 * the same bits and a cosine table built from it is exactly symmetric.
 */
export function csrRowDot(x: CsrMatrix, a: number, y: CsrMatrix, b: number): number {
  let p = x.indptr[a] as number;
  const pEnd = x.indptr[a + 1] as number;
  let q = y.indptr[b] as number;
  const qEnd = y.indptr[b + 1] as number;
  let dot = 0;
  while (p < pEnd && q < qEnd) {
    const cp = x.indices[p] as number;
    const cq = y.indices[q] as number;
    if (cp === cq) {
      dot += (x.data[p] as number) * (y.data[q] as number);
      p++;
      q++;
    } else if (cp < cq) p++;
    else q++;
  }
  return dot;
}

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
 * Backing arrays of the last result, reused by the next call: typed arrays above 64 bytes are
 * allocated outside V8's heap, which costs about as much as the rest of a batch of 32's
 * bookkeeping, and a large batch would otherwise leave megabytes of garbage per call. Arrays
 * larger than SCRATCH_KEEP_NNZ entries are dropped after a second without calls.
 */
let scratchInts = new Int32Array(0);
let scratchData = new Float64Array(0);
const SCRATCH_KEEP_NNZ = 8192;
let release: ReturnType<typeof setTimeout> | undefined;

function scratchFor(nnz: number): { ints: Int32Array; data: Float64Array } {
  if (scratchInts.length < 5 * nnz + 1) {
    const size = Math.max(nnz, SCRATCH_KEEP_NNZ);
    scratchInts = new Int32Array(5 * size + 1);
    scratchData = new Float64Array(size);
  }
  if (scratchData.length > SCRATCH_KEEP_NNZ) {
    if (release !== undefined) clearTimeout(release);
    release = setTimeout(() => {
      scratchInts = new Int32Array(0);
      scratchData = new Float64Array(0);
    }, 1000);
    release.unref();
  }
  return { ints: scratchInts, data: scratchData };
}

/**
 * The same matrix with only the columns that hold an entry, renumbered 0.. in order of first
 * appearance, and its transpose (the inverted index: column -> ascending rows). Each row keeps
 * its entries in their original order, so a product that walks row u's entries and scatters
 * through the inverted index sums in exactly the order it would without renumbering. O(nnz) for
 * any number of columns (a transpose over the whole vocabulary is most of the cost of a small
 * batch). The result's new arrays are reused by the next call: use it before calling again.
 */
export function compactAndTranspose(x: CsrMatrix): { x: CsrMatrix; xt: CsrMatrix } {
  const sourceIndices = x.indices;
  const nnz = sourceIndices.length;
  if (scratchPosition.length < x.cols) scratchPosition = new Int32Array(x.cols).fill(-1);
  const position = scratchPosition;
  // One array for the five integer arrays, reused from call to call (see scratchFor).
  const scratch = scratchFor(nnz);
  const ints = scratch.ints;
  const columns = ints.subarray(0, nnz);
  const indices = ints.subarray(nnz, 2 * nnz);
  let d = 0;
  for (let k = 0; k < nnz; k++) {
    const c = sourceIndices[k] as number;
    let j = position[c] as number;
    if (j === -1) {
      j = d++;
      position[c] = j;
      columns[j] = c;
    }
    indices[k] = j;
  }
  const tIndptr = ints.subarray(2 * nnz, 2 * nnz + d + 1).fill(0);
  for (let k = 0; k < nnz; k++) {
    const j = (indices[k] as number) + 1;
    tIndptr[j] = (tIndptr[j] as number) + 1;
  }
  for (let j = 0; j < d; j++) {
    position[columns[j] as number] = -1;
    tIndptr[j + 1] = (tIndptr[j + 1] as number) + (tIndptr[j] as number);
  }
  const next = ints.subarray(3 * nnz + 1, 3 * nnz + 1 + d);
  next.set(tIndptr.subarray(0, d));
  const tIndices = ints.subarray(4 * nnz + 1, 5 * nnz + 1);
  const tData = scratch.data.subarray(0, nnz);
  const rows = x.rows;
  const indptr = x.indptr;
  const data = x.data;
  for (let r = 0; r < rows; r++) {
    const end = indptr[r + 1] as number;
    for (let k = indptr[r] as number; k < end; k++) {
      const j = indices[k] as number;
      const at = next[j] as number;
      next[j] = at + 1;
      tIndices[at] = r;
      tData[at] = data[k] as number;
    }
  }
  return {
    x: { rows, cols: d, indptr, indices, data },
    xt: { rows: d, cols: rows, indptr: tIndptr, indices: tIndices, data: tData },
  };
}
