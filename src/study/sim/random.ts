// Seeded randomness for the simulated backend: every stream is a fresh seedrandom generator whose seed
// names what it is for, so a stream never depends on how many numbers another stream drew, and a
// resumed run re-creates exactly the stream an uninterrupted run would have used.
import seedrandom from 'seedrandom';

/** A uniform generator on [0, 1). */
export type Uniform = () => number;

/**
 * A seedrandom (ARC4) generator for `purpose` under the study seed: `rl-adv-sim/<seed>/<purpose>`.
 *
 * @example
 * ```ts
 * const rng = stream(0, 'difficulty/individual');
 * rng(); // the same number for the same seed and purpose, on every machine
 * ```
 */
export function stream(seed: number, purpose: string): Uniform {
  return seedrandom(`rl-adv-sim/${seed}/${purpose}`);
}

/**
 * A standard normal draw by Box-Muller from two uniforms (the second normal of the pair is discarded so that
 * each call consumes exactly two uniforms, which keeps streams easy to reason about).
 */
export function normal(rng: Uniform): number {
  // 1 - u is in (0, 1], so the logarithm is finite.
  const u1 = 1 - rng();
  const u2 = rng();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * The seed-`seed` shuffled order of `n` items (Fisher-Yates driven by seedrandom(`rl-adv/train-order/<seed>`)).
 * This is the study's data order: both arms read training tasks from its front, and the calibration set is its
 * last 64 items, which no arm reaches in 60 steps. The seed string has no `-sim` so a real backend can use the
 * same order.
 *
 * @example
 * ```ts
 * const order = shuffledOrder(7473, 0); // Int32Array, a permutation of 0..7472
 * const heldOut = order.slice(-64);
 * ```
 */
export function shuffledOrder(n: number, seed: number): Int32Array {
  const rng = seedrandom(`rl-adv/train-order/${seed}`);
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    const tmp = order[i] as number;
    order[i] = order[j] as number;
    order[j] = tmp;
  }
  return order;
}
