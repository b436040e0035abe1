// The small arithmetic world of specs/arith-gs1-vs-grpo.json (docs/trl.md): short problems generated in code from
// a seed, whose difficulty shows in the prompt text. A prompt names its operation as a word and its operands' digit
// counts as a token, then the expression digit by digit: `times 2x1: 4 7 * 8 =`; the answer is the exact integer.
// The digits are single characters, which TF-IDF's token pattern (two or more word characters) skips, so the words a
// prompt shares with others are its operation and digit counts: what makes it hard (docs/trl.md). Items have the shape
// of GSM8K's (`answer` ends `#### N`), so the study, the grader and the drivers treat both the same way.
import seedrandom from 'seedrandom';
import { RlAdvantagesError } from '../errors.js';
import type { Gsm8kItem } from './gsm8k.js';

/** The operations, by the word a prompt names them with. */
export const ARITH_OPERATIONS = Object.freeze({
  plus: { symbol: '+', apply: (a: number, b: number): number => a + b },
  minus: { symbol: '-', apply: (a: number, b: number): number => a - b },
  times: { symbol: '*', apply: (a: number, b: number): number => a * b },
} as const);

/** An operation word. */
export type ArithOperation = keyof typeof ARITH_OPERATIONS;

/** The world's settings: a spec's `dataset` section with `name: "arith"`. */
export interface ArithWorldSpec {
  /** Seed of the generator (each split is its own stream `rl-adv/arith/<seed>/<split>`). */
  readonly seed: number;
  /** Items per split: the RL train set, the test set, and the supervised set the starting policy is taught on. */
  readonly train: number;
  readonly test: number;
  readonly sft: number;
  /** Operations, by word. */
  readonly operations: readonly ArithOperation[];
  /** Operand digit counts [first, second], each 1-3. */
  readonly digits: readonly (readonly [number, number])[];
}

/** The splits of the world. */
export const ARITH_SPLITS = ['train', 'test', 'sft'] as const;

function fail(field: string, message: string): RlAdvantagesError {
  return new RlAdvantagesError(`dataset.${field} ${message}`, { code: 'invalid_spec', field: `dataset.${field}` });
}

function count(value: unknown, field: string, min: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > 1_000_000) {
    throw fail(field, `must be an integer in [${min}, 1000000], got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Reads a spec's `dataset` section of the arith world (`{"name": "arith", seed, train, test, sft, operations, digits}`).
 *
 * @throws {RlAdvantagesError} `invalid_spec`, naming the field (and index) that is wrong.
 * @example
 * ```ts
 * parseArithWorld({ name: 'arith', seed: 0, train: 4000, test: 1000, sft: 20000, operations: ['plus'], digits: [[1, 1]] }).train; // 4000
 * ```
 */
export function parseArithWorld(section: Readonly<Record<string, unknown>>): ArithWorldSpec {
  const operations = section.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw fail('operations', `must be a non-empty array, got ${JSON.stringify(operations)}`);
  operations.forEach((op, i) => {
    if (typeof op !== 'string' || !Object.hasOwn(ARITH_OPERATIONS, op)) {
      throw fail(`operations[${i}]`, `must be one of ${Object.keys(ARITH_OPERATIONS).join(', ')}, got ${JSON.stringify(op)}`);
    }
  });
  const digits = section.digits;
  if (!Array.isArray(digits) || digits.length === 0) throw fail('digits', `must be a non-empty array of [d1, d2] pairs, got ${JSON.stringify(digits)}`);
  const pairs = digits.map((pair, i): [number, number] => {
    const ok = Array.isArray(pair) && pair.length === 2 && pair.every((d) => Number.isInteger(d) && (d as number) >= 1 && (d as number) <= 3);
    if (!ok) throw fail(`digits[${i}]`, `must be a pair of integers in [1, 3], got ${JSON.stringify(pair)}`);
    return [pair[0] as number, pair[1] as number];
  });
  return {
    seed: count(section.seed ?? 0, 'seed', 0),
    train: count(section.train, 'train', 1),
    test: count(section.test, 'test', 1),
    sft: count(section.sft, 'sft', 1),
    operations: operations as ArithOperation[],
    digits: pairs,
  };
}

/** The digits of `n` separated by spaces: `47` -> `4 7`. */
function spaced(n: number): string {
  return String(n).split('').join(' ');
}

/** A uniform integer with exactly `d` digits (0-9 for one digit). */
function operand(rng: () => number, d: number): number {
  const low = d === 1 ? 0 : 10 ** (d - 1);
  const high = 10 ** d - 1;
  return low + Math.floor(rng() * (high - low + 1));
}

/**
 * The items of one split: each draws its operation and its digit pair uniformly, then its operands uniformly with
 * those digit counts, from seedrandom(`rl-adv/arith/<seed>/<split>`). Prompt `<op> <d1>x<d2>: <a> <sym> <b> =` with
 * the operands' digits spaced, answer `#### <value>`, id `arith_<split>_<index>`.
 *
 * @example
 * ```ts
 * const [first] = arithItems(world, 'test');
 * first?.question; // e.g. "times 2x1: 4 7 * 8 ="
 * ```
 */
export function arithItems(world: ArithWorldSpec, split: (typeof ARITH_SPLITS)[number]): Gsm8kItem[] {
  const rng = seedrandom(`rl-adv/arith/${world.seed}/${split}`);
  const n = world[split];
  const items: Gsm8kItem[] = [];
  for (let index = 0; index < n; index++) {
    const word = world.operations[Math.floor(rng() * world.operations.length)] as ArithOperation;
    const [d1, d2] = world.digits[Math.floor(rng() * world.digits.length)] as [number, number];
    const a = operand(rng, d1);
    const b = operand(rng, d2);
    const op = ARITH_OPERATIONS[word];
    const value = String(op.apply(a, b));
    items.push({
      index,
      id: `arith_${split}_${index}`,
      question: `${word} ${d1}x${d2}: ${spaced(a)} ${op.symbol} ${spaced(b)} =`,
      answer: `#### ${value}`,
      referenceAnswer: value,
    });
  }
  return items;
}
