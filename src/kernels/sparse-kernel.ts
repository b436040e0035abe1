// The hot loop of the TF-IDF kernel (docs/method.md section 2) over CSR rows, in O(U) scratch memory
// per block: never a U x U matrix. It is the TF-IDF kernel's own path beside the general one of
// src/kernels/weights.ts because it is 13x faster at B = 1024 and 4096 (measured; the figures are at the top of
// weights.ts).
//
// What it computes, for every unit u, with s_uv = <x_u, x_v> (terms of u ascending, as scipy's
// csr matmat sums them) and m_u the largest s_uv over the other rollouts (v != u, or v = u too
// when u has copies):
//   numerator_u   = sum_{v != u} exp((s_uv - m_u) / T) * R_v     (R_v = sum of unit v's rewards)
//   denominator_u = sum_{v != u} exp((s_uv - m_u) / T) * N_v     (N_v = unit v's size)
//   self_u        = exp((s_uu - m_u) / T) if N_u > 1, else 0     (the weight of u's own copies)
// kernel.ts turns these into baselines.
//
// How: s_uv = s_vu exactly (the same products x_ut * x_vt, summed over the same shared terms in
// the same ascending order), so each pair is formed once, in the upper triangle v > u, and used
// for both units. Row u's part (v > u) is complete when u is visited, so it is summed against its
// own maximum r_u in one pass. The column part (v < u) arrives one row at a time, so unit v keeps
// a running maximum c_v with sums scaled to it: when a new s_uv exceeds c_v, the sums so far are
// multiplied by exp((c_v - s_uv) / T) (<= 1) and c_v becomes s_uv; then exp((s_uv - c_v) / T) is
// added. The rows are cut into blocks of about equal work, each with column sums of its own (so
// blocks can run on different threads, and the result does not depend on which thread ran which
// block); at the end m_u = max(r_u, the blocks' c_u, s_uu if u has copies) and every part is
// rescaled to it by exp((r_u - m_u) / T) and exp((c_u - m_u) / T), blocks in order.
//
// When the batch allows it (batchShift: M = max_u s_uu with M / T <= 600, docs/method.md section
// 2.3), none of that is needed: every pair's weight is exp((s_uv - M) / T) against one shift M for
// the whole batch, the same number for u and for v, so one exponential serves both (half the
// exponentials, no maxima, no rescaling), and blocks' column sums simply add up.
//
// Every factor is the exponential of a non-positive number, so nothing overflows for any T > 0,
// and every final weight is exp((s_uv - m_u) / T) <= 1: docs/method.md's stabilised form, with the
// weight of the maximum exactly 1 (the denominator stays >= 1). A factor that underflows to 0
// drops terms below 2^-1074 of the largest weight, as exp((s - m_u) / T) itself would. Only the
// rounding differs from the one-exponential form (a few ulps per weight); the fast path is tested
// against the plain dense form within 1e-12 in test/kernels/sparse-kernel.test.ts.
import type { CsrMatrix } from '../text/tfidf.js';
import { expNonPositive } from '../internal/fast-exp.js';

/** Rows v per tile of the product: 2048 float64 = 16 KB, well inside a 32-48 KB L1 data cache. */
const TILE = 2048;
/** From this many units on, the rows are cut into BLOCKS blocks (the unit of parallel work). */
export const BLOCK_MIN_UNITS = 2048;
export const BLOCKS = 8;

/**
 * The row blocks for U units: BLOCKS + 1 ascending boundaries cutting the upper triangle into
 * parts of about equal pair counts (1 block below BLOCK_MIN_UNITS). Depends on U only, so the
 * result is the same however many threads run the blocks.
 */
export function rowBlocks(units: number): Int32Array {
  const count = units >= BLOCK_MIN_UNITS ? BLOCKS : 1;
  const bounds = new Int32Array(count + 1);
  bounds[count] = units;
  const total = (units * (units - 1)) / 2;
  let done = 0;
  let b = 1;
  for (let u = 0; u < units && b < count; u++) {
    done += units - 1 - u;
    if (done >= (total * b) / count) bounds[b++] = u + 1;
  }
  while (b < count) bounds[b++] = units;
  return bounds;
}

/** Per-unit sums in one Float64Array of 4U + 3U x blocks values (see the offsets below). */
export function stateSize(units: number, blocks: number): number {
  return (4 + 3 * blocks) * units;
}

/**
 * The rows [from, to) of the upper triangle. Writes into `state` (a Float64Array of
 * stateSize(U, blocks) values, zero-initialised, shared by all blocks):
 * rows' own part at [0, 4U) (r_u, its numerator, denominator, s_uu; only for rows of this
 * block), and this block's column part at [(4 + 3 block) U, (7 + 3 block) U) ([c_v, numerator,
 * denominator] at 3v). `row` is U zeros of scratch (left zero). Self-contained apart from
 * expNonPositive, so a worker thread runs the same code.
 */
export function kernelBlock(
  x: CsrMatrix,
  xt: CsrMatrix,
  unitSum: Float64Array,
  unitSize: Float64Array,
  inverse: number,
  shift: number,
  from: number,
  to: number,
  block: number,
  state: Float64Array,
  row: Float64Array,
): void {
  const units = x.rows;
  const xIndptr = x.indptr;
  const xIndices = x.indices;
  const xData = x.data;
  const tIndptr = xt.indptr;
  const tIndices = xt.indices;
  const tData = xt.data;
  const rowMaxOf = state.subarray(0, units);
  const rowNumeratorOf = state.subarray(units, 2 * units);
  const rowDenominatorOf = state.subarray(2 * units, 3 * units);
  const selfOf = state.subarray(3 * units, 4 * units);
  const base = (4 + 3 * block) * units;
  // Column part interleaved, [c_v, numerator, denominator] at 3v: one cache line per unit v.
  const column = state.subarray(base, base + 3 * units);
  const fixed = !Number.isNaN(shift);
  if (!fixed) for (let v = 0; v < units; v++) column[3 * v] = -Infinity;
  let longest = 0;
  for (let u = from; u < to; u++) longest = Math.max(longest, (xIndptr[u + 1] as number) - (xIndptr[u] as number));
  const cursor = new Int32Array(longest);
  // position[t]: where the next unit holding term t sits in t's posting list (rows ascending).
  // Units are visited in ascending order, so that is unit u's own entry when u is visited; the
  // units v > u follow it.
  const terms = xt.rows;
  const position = new Int32Array(terms);
  for (let t = 0; t < terms; t++) {
    let p = tIndptr[t] as number;
    const end = tIndptr[t + 1] as number;
    while (p < end && (tIndices[p] as number) < from) p++;
    position[t] = p;
  }
  for (let u = from; u < to; u++) {
    const rowStart = xIndptr[u] as number;
    const rowEnd = xIndptr[u + 1] as number;
    let selfSimilarity = 0;
    for (let k = rowStart; k < rowEnd; k++) {
      const t = xIndices[k] as number;
      const value = xData[k] as number;
      selfSimilarity += value * value;
      const at = (position[t] as number) + 1;
      position[t] = at;
      cursor[k - rowStart] = at;
    }
    if (units - u <= TILE) {
      for (let k = rowStart; k < rowEnd; k++) {
        const t = xIndices[k] as number;
        const value = xData[k] as number;
        const columnEnd = tIndptr[t + 1] as number;
        for (let p = cursor[k - rowStart] as number; p < columnEnd; p++) {
          const v = tIndices[p] as number;
          row[v] = (row[v] as number) + value * (tData[p] as number);
        }
      }
    } else {
      // The same products, one tile of TILE units v at a time, so the part of `row` being
      // written stays in the L1 cache; every s_uv still sums its terms in ascending order.
      for (let limit = u + 1 + TILE; limit < units + TILE; limit += TILE) {
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
    selfOf[u] = selfSimilarity;
    if (fixed) {
      fixedShiftRow(row, u, units, unitSum, unitSize, inverse, shift, column, state);
      continue;
    }
    // Row part: v > u, all known now.
    let rowMax = -Infinity;
    for (let v = u + 1; v < units; v++) {
      const s = row[v] as number;
      if (s > rowMax) rowMax = s;
    }
    const reward = unitSum[u] as number;
    const size = unitSize[u] as number;
    let rowNumerator = 0;
    let rowDenominator = 0;
    for (let v = u + 1; v < units; v++) {
      const s = row[v] as number;
      row[v] = 0;
      const w = expNonPositive((s - rowMax) * inverse);
      rowNumerator += w * (unitSum[v] as number);
      rowDenominator += w * (unitSize[v] as number);
      // Column part of unit v: row u < v arrives now.
      const at = 3 * v;
      let c = column[at] as number;
      let columnNumerator = column[at + 1] as number;
      let columnDenominator = column[at + 2] as number;
      if (s > c) {
        const scale = expNonPositive((c - s) * inverse);
        columnNumerator *= scale;
        columnDenominator *= scale;
        column[at] = s;
        c = s;
      }
      const wc = expNonPositive((s - c) * inverse);
      column[at + 1] = columnNumerator + wc * reward;
      column[at + 2] = columnDenominator + wc * size;
    }
    rowMaxOf[u] = rowMax;
    rowNumeratorOf[u] = rowNumerator;
    rowDenominatorOf[u] = rowDenominator;
  }
}

/**
 * Row u's weights with one shift M for the whole batch: w = exp((s_uv - M) / T) serves both u
 * (row part, against R_v and N_v) and v (column part, against R_u and N_u), one exponential per
 * pair. Row sums go to state[U + u] and state[2U + u]; the column sums to column[3v + 1, 3v + 2].
 * Clears row[v > u].
 */
function fixedShiftRow(
  row: Float64Array,
  u: number,
  units: number,
  unitSum: Float64Array,
  unitSize: Float64Array,
  inverse: number,
  shift: number,
  column: Float64Array,
  state: Float64Array,
): void {
  const reward = unitSum[u] as number;
  const size = unitSize[u] as number;
  let rowNumerator = 0;
  let rowDenominator = 0;
  for (let v = u + 1; v < units; v++) {
    const s = row[v] as number;
    row[v] = 0;
    const w = expNonPositive((s - shift) * inverse);
    rowNumerator += w * (unitSum[v] as number);
    rowDenominator += w * (unitSize[v] as number);
    const at = 3 * v;
    column[at + 1] = (column[at + 1] as number) + w * reward;
    column[at + 2] = (column[at + 2] as number) + w * size;
  }
  state[units + u] = rowNumerator;
  state[2 * units + u] = rowDenominator;
}

/** Below this, exp(-x) is a normal double with room to spare (e^-600 ~ 2.6e-261; e^-708 is the last). */
const MAX_SHIFTED_EXPONENT = 600;

/**
 * The one shift M for the whole batch, or NaN where the per-row maxima must be used instead.
 * M = max_u s_uu bounds every s_uv (Cauchy-Schwarz), so no weight exceeds 1 (up to rounding of
 * s_uv: a few ulps of 1). With non-negative entries every m_u >= 0, so when M / T <= 600 each
 * unit's largest weight exp((m_u - M) / T) >= e^-600 is a normal number, and a weight is subnormal
 * (rounded coarsely, or 0) only when it is below e^-108 of that unit's largest: the ratio
 * b_u = sum w R / sum w N is the one of docs/method.md section 2 to a few ulps. Otherwise (small
 * T, negative entries) NaN: the running-maximum form above.
 */
export function batchShift(x: CsrMatrix, inverse: number): number {
  const data = x.data;
  const indptr = x.indptr;
  let max = 0;
  for (let u = 0; u < x.rows; u++) {
    let self = 0;
    for (let k = indptr[u] as number; k < (indptr[u + 1] as number); k++) {
      const value = data[k] as number;
      if (!(value >= 0)) return NaN;
      self += value * value;
    }
    if (self > max) max = self;
  }
  return max * inverse <= MAX_SHIFTED_EXPONENT ? max : NaN;
}

/**
 * numerator, denominator and self weight of every unit (three consecutive runs of U values) from
 * the blocks' sums: each part rescaled to m_u, blocks in order (exp(-inf) = 0 covers an empty part).
 */
export function finishSums(
  state: Float64Array,
  units: number,
  blocks: number,
  unitSize: Float64Array,
  inverse: number,
  shift: number,
): Float64Array {
  const out = new Float64Array(3 * units);
  if (!Number.isNaN(shift)) {
    // One shift for all: the parts add up as they are, blocks in order.
    for (let u = 0; u < units; u++) {
      let numerator = state[units + u] as number;
      let denominator = state[2 * units + u] as number;
      for (let b = 0; b < blocks; b++) {
        const base = (4 + 3 * b) * units + 3 * u;
        numerator += state[base + 1] as number;
        denominator += state[base + 2] as number;
      }
      out[u] = numerator;
      out[units + u] = denominator;
      out[2 * units + u] = (unitSize[u] as number) > 1 ? expNonPositive(((state[3 * units + u] as number) - shift) * inverse) : 0;
    }
    return out;
  }
  for (let u = 0; u < units; u++) {
    const rowMax = state[u] as number;
    let max = rowMax;
    for (let b = 0; b < blocks; b++) {
      const c = state[(4 + 3 * b) * units + 3 * u] as number;
      if (c > max) max = c;
    }
    const hasCopies = (unitSize[u] as number) > 1;
    const selfSimilarity = state[3 * units + u] as number;
    if (hasCopies && selfSimilarity > max) max = selfSimilarity;
    const rowScale = expNonPositive((rowMax - max) * inverse);
    let numerator = (state[units + u] as number) * rowScale;
    let denominator = (state[2 * units + u] as number) * rowScale;
    for (let b = 0; b < blocks; b++) {
      const base = (4 + 3 * b) * units;
      const scale = expNonPositive(((state[base + 3 * u] as number) - max) * inverse);
      numerator += (state[base + 3 * u + 1] as number) * scale;
      denominator += (state[base + 3 * u + 2] as number) * scale;
    }
    out[u] = numerator;
    out[units + u] = denominator;
    out[2 * units + u] = hasCopies ? expNonPositive((selfSimilarity - max) * inverse) : 0;
  }
  return out;
}
