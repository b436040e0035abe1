// The data order of the Tinker backend: the cookbook's Gsm8kDataset trains in the order of
// `datasets.Dataset.shuffle(seed)`, i.e. `numpy.random.default_rng(seed).permutation(n)` (numpy >= 1.17:
// SeedSequence -> PCG64 (XSL-RR 128/64) -> Generator.shuffle with bounded masked rejection draws). Reproduced
// here bit for bit (test/study/numpy-order.test.ts checks it against numpy), so the study knows which train tasks
// the Tinker drivers give the arms and the gate (examples/tinker-cookbook/sample_calibration.py).

const MASK32 = 0xffffffffn;
const MASK64 = (1n << 64n) - 1n;
const MASK128 = (1n << 128n) - 1n;
/** PCG_DEFAULT_MULTIPLIER_128 of numpy's pcg64.h. */
const PCG_MULTIPLIER = (2549297995355413924n << 64n) + 4865540595714422341n;

/** numpy SeedSequence(entropy).generate_state(nWords, uint64) for a non-negative integer entropy < 2^32, no spawn key. */
function seedSequenceState(entropy: number, nWords: number): bigint[] {
  const mul = (a: number, b: number): number => Math.imul(a, b) >>> 0;
  let hashConst = 0x43b0d7e5;
  const hashmix = (value: number): number => {
    let v = (value ^ hashConst) >>> 0;
    hashConst = mul(hashConst, 0x931e8875);
    v = mul(v, hashConst);
    return (v ^ (v >>> 16)) >>> 0;
  };
  const mix = (x: number, y: number): number => {
    const r = (mul(0xca01f9dd, x) - mul(0x4973f715, y)) >>> 0;
    return (r ^ (r >>> 16)) >>> 0;
  };
  const pool = [entropy >>> 0, 0, 0, 0].map((e, i) => hashmix(i === 0 ? e : 0));
  for (let src = 0; src < 4; src++) {
    for (let dst = 0; dst < 4; dst++) if (src !== dst) pool[dst] = mix(pool[dst] as number, hashmix(pool[src] as number));
  }
  let constB = 0x8b51f9dd;
  const words32: number[] = [];
  for (let i = 0; i < nWords * 2; i++) {
    let v = ((pool[i % 4] as number) ^ constB) >>> 0;
    constB = mul(constB, 0x58f38ded);
    v = mul(v, constB);
    words32.push((v ^ (v >>> 16)) >>> 0);
  }
  return Array.from({ length: nWords }, (_, i) => BigInt(words32[2 * i] as number) | (BigInt(words32[2 * i + 1] as number) << 32n));
}

/** A PCG64 generator as numpy seeds it, with numpy's buffered 32-bit draws. */
class Pcg64 {
  private state = 0n;
  private readonly inc: bigint;
  private spare: bigint | undefined;

  constructor(seed: number) {
    const [s0, s1, i0, i1] = seedSequenceState(seed, 4) as [bigint, bigint, bigint, bigint];
    this.inc = ((((i0 << 64n) | i1) << 1n) | 1n) & MASK128;
    this.step();
    this.state = (this.state + ((s0 << 64n) | s1)) & MASK128;
    this.step();
  }

  private step(): void {
    this.state = (this.state * PCG_MULTIPLIER + this.inc) & MASK128;
  }

  next64(): bigint {
    this.step();
    const x = ((this.state >> 64n) ^ this.state) & MASK64;
    const rot = this.state >> 122n;
    return ((x >> rot) | (x << ((64n - rot) & 63n))) & MASK64;
  }

  next32(): bigint {
    if (this.spare !== undefined) {
      const v = this.spare;
      this.spare = undefined;
      return v;
    }
    const v = this.next64();
    this.spare = v >> 32n;
    return v & MASK32;
  }
}

/**
 * `numpy.random.default_rng(seed).permutation(n)` (numpy >= 1.17), for n < 2^32 and 0 <= seed < 2^32.
 *
 * @example
 * ```ts
 * numpyPermutation(5, 0); // Int32Array [2, 4, 3, 0, 1], as numpy.random.default_rng(0).permutation(5)
 * ```
 */
export function numpyPermutation(n: number, seed: number): Int32Array {
  const rng = new Pcg64(seed);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const max = BigInt(i);
    let mask = max;
    for (const shift of [1n, 2n, 4n, 8n, 16n]) mask |= mask >> shift;
    let j: bigint;
    do j = rng.next32() & mask;
    while (j > max);
    const tmp = order[i] as number;
    order[i] = order[Number(j)] as number;
    order[Number(j)] = tmp;
  }
  return order;
}
