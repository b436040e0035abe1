// The error a call throws, for tests that check its code, field and index.
import { expect } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';

/** Runs fn and returns the RlAdvantagesError it throws; fails the test when it throws something else or nothing. */
export function thrown(fn: () => unknown): RlAdvantagesError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RlAdvantagesError);
    return error as RlAdvantagesError;
  }
  throw new Error('expected an RlAdvantagesError');
}
