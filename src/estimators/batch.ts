// Reading and validating a Batch once, for every estimator.
import { RlAdvantagesError } from '../errors.js';
import { checkLength, checkStrings, describe, toFiniteFloat64 } from '../internal/validate.js';
import type { Batch } from './types.js';

export interface Groups {
  /** Dense group index of each rollout, numbered by first appearance. */
  readonly groupOf: Int32Array;
  /** Rollout indices of each group, in input order. */
  readonly members: Int32Array[];
}

/**
 * The largest |reward| (and |greedy reward|, |reward component|) an estimator accepts: 1e100. Beyond it, sums,
 * squared deviations and length-weighted variances of a large batch could overflow float64 and give an infinite
 * or NaN advantage; within it every estimator's arithmetic stays finite (docs/method.md section 2.1).
 */
export const REWARD_BOUND = 1e100;

/** The largest response length (`lengths`) accepted: 1e15 tokens, so that L * (r - b)^2 stays finite (section 2.1). */
export const LENGTH_BOUND = 1e15;

/**
 * The one check of a reward's range, for every input that takes rewards (estimators, calibration rows, the CLI):
 * |value| <= REWARD_BOUND (the value is finite already).
 *
 * @param label - how the message names the value (default `field[index]`).
 * @throws {@link RlAdvantagesError} `out_of_range` naming `field` and `index`.
 * @example
 * checkRewardInBound('rewards', 0, 1e308); // throws: rewards[0] is 1e+308; rewards must lie in [-1e100, 1e100] ...
 */
export function checkRewardInBound(field: string, index: number, value: number, label = `${field}[${index}]`): number {
  if (value > REWARD_BOUND || value < -REWARD_BOUND) {
    throw new RlAdvantagesError(`${label} is ${value}; rewards must lie in [-1e100, 1e100] so that no sum or variance of a batch can overflow (rescale the rewards)`, {
      code: 'out_of_range',
      field,
      index,
    });
  }
  return value;
}

/** Throws when |values[i]| > REWARD_BOUND (the values are finite already). */
export function checkRewardBound(field: string, values: Float64Array): Float64Array {
  for (let i = 0; i < values.length; i++) checkRewardInBound(field, i, values[i] as number);
  return values;
}

export function readRewards(batch: Batch, minSize: number, estimator: string): Float64Array {
  if (typeof batch !== 'object' || batch === null) {
    throw new RlAdvantagesError(`batch must be an object with rewards, got ${describe(batch)}`, {
      code: 'bad_type',
      field: 'batch',
    });
  }
  const rewards = checkRewardBound('rewards', toFiniteFloat64('rewards', batch.rewards));
  if (rewards.length < minSize) {
    throw new RlAdvantagesError(
      `rewards has ${rewards.length} rollout${rewards.length === 1 ? '' : 's'}; ${estimator} needs at least ${minSize}` +
        (minSize >= 2 ? ' (a leave-one-out baseline needs another rollout)' : ''),
      { code: 'batch_too_small', field: 'rewards' },
    );
  }
  return rewards;
}

export function readPrompts(batch: Batch, size: number, estimator: string): readonly string[] {
  if (batch.prompts === undefined) {
    throw new RlAdvantagesError(`prompts is required: ${estimator} weighs rollouts by prompt similarity`, {
      code: 'missing_field',
      field: 'prompts',
    });
  }
  const prompts = checkStrings('prompts', batch.prompts);
  checkLength('prompts', prompts.length, size);
  return prompts;
}

export function readGroups(batch: Batch, size: number, estimator: string): Groups {
  const ids = batch.groupIds;
  if (ids === undefined || ids === null) {
    throw new RlAdvantagesError(`groupIds is required: ${estimator} takes its baseline within each group`, {
      code: 'missing_field',
      field: 'groupIds',
    });
  }
  if (typeof ids !== 'object' || typeof ids.length !== 'number') {
    throw new RlAdvantagesError(`groupIds must be an array of strings or numbers, got ${describe(ids)}`, {
      code: 'bad_type',
      field: 'groupIds',
    });
  }
  checkLength('groupIds', ids.length, size);
  const index = new Map<string | number, number>();
  const groupOf = new Int32Array(size);
  const lists: number[][] = [];
  for (let i = 0; i < size; i++) {
    const id = ids[i];
    if (!(typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)))) {
      throw new RlAdvantagesError(`groupIds[${i}] must be a string or a finite number, got ${describe(id)}`, {
        code: 'bad_type',
        field: 'groupIds',
        index: i,
      });
    }
    let g = index.get(id);
    if (g === undefined) {
      g = lists.length;
      index.set(id, g);
      lists.push([]);
    }
    groupOf[i] = g;
    (lists[g] as number[]).push(i);
  }
  return { groupOf, members: lists.map((list) => Int32Array.from(list)) };
}

/** `lengths`, required: one finite length > 0 per rollout. */
export function readLengths(batch: Batch, size: number, estimator: string): Float64Array {
  if (batch.lengths === undefined || batch.lengths === null) {
    throw new RlAdvantagesError(`lengths is required: ${estimator} weighs each rollout by its response length`, {
      code: 'missing_field',
      field: 'lengths',
    });
  }
  const lengths = toFiniteFloat64('lengths', batch.lengths);
  checkLength('lengths', lengths.length, size);
  lengths.forEach((length, i) => {
    if (!(length > 0)) {
      throw new RlAdvantagesError(`lengths[${i}] must be > 0, got ${length}`, { code: 'bad_value', field: 'lengths', index: i });
    }
    if (length > LENGTH_BOUND) {
      throw new RlAdvantagesError(`lengths[${i}] is ${length}; a response length must be at most 1e15 tokens`, {
        code: 'out_of_range',
        field: 'lengths',
        index: i,
      });
    }
  });
  return lengths;
}
