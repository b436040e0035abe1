// The Tinker backend's data order (numpy.random.default_rng(seed).permutation(n)) reproduced bit for bit.
// Reference: test/fixtures/numpy_permutation.py (numpy 1.24), exact equality.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { numpyPermutation } from '../../src/study/numpy-order.js';

const fixture = JSON.parse(readFileSync(new URL('../fixtures/numpy-permutation.json', import.meta.url), 'utf8')) as {
  cases: { n: number; seed: number; permutation: number[] }[];
};

describe('numpyPermutation', () => {
  for (const c of fixture.cases) {
    it(`equals numpy's default_rng(${c.seed}).permutation(${c.n})`, () => {
      expect(Array.from(numpyPermutation(c.n, c.seed))).toEqual(c.permutation);
    });
  }
});
