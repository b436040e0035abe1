// pathUnder: a path built from user input stays under the run folder, or is refused before anything is written;
// pathPartProblem: the names a spec turns into path parts.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RlAdvantagesError } from '../../src/errors.js';
import { PATH_PART_MAX_LENGTH, pathPartProblem, pathUnder } from '../../src/internal/path-parts.js';

function refusal(root: string, ...parts: string[]): RlAdvantagesError {
  try {
    pathUnder(root, ...parts);
  } catch (error) {
    if (error instanceof RlAdvantagesError) return error;
    throw error;
  }
  throw new Error(`${parts.join('/')} was accepted`);
}

describe('pathUnder', () => {
  it('joins parts under the root as path.join does (relative and absolute roots alike)', () => {
    for (const root of ['runs/a', '/tmp/runs/a', '.', 'runs/a/']) {
      expect(pathUnder(root, 'arms', 'grpo_g8')).toBe(path.join(root, 'arms', 'grpo_g8'));
      expect(pathUnder(root, 'seeds/3', 'arms', 'x', 'advantages.jsonl')).toBe(path.join(root, 'seeds', '3', 'arms', 'x', 'advantages.jsonl'));
      expect(pathUnder(root, '')).toBe(path.join(root, ''));
      // A part that climbs and comes back stays under the root.
      expect(pathUnder(root, 'a/../b')).toBe(path.join(root, 'b'));
    }
  });

  it('refuses a part that climbs out or is absolute (path_outside_run, naming the parts and the root)', () => {
    for (const parts of [['arms', '../../X'], ['..'], ['pilot', '..', '..', 'x'], ['/etc/passwd'], ['eval', '/abs']]) {
      const error = refusal('runs/a', ...parts);
      expect(error.code).toBe('path_outside_run');
      expect(error.message).toBe(`the path ${JSON.stringify(parts.join('/'))} leaves the run folder runs/a: refusing to write outside it`);
    }
    // A sibling whose name starts like the root is outside it.
    expect(refusal('/tmp/run', '../run2/x').code).toBe('path_outside_run');
  });
});

describe('pathPartProblem', () => {
  it(`accepts 1 to ${PATH_PART_MAX_LENGTH} characters of A-Z a-z 0-9 _ - . not starting with "."`, () => {
    for (const name of ['a', 'A_b-c.d', '0', '_x', '-x', 'x'.repeat(PATH_PART_MAX_LENGTH)]) expect(pathPartProblem(name), name).toBeUndefined();
    for (const name of ['', '.', '..', '.x', 'a/b', 'a\\b', 'a b', 'a:b', 'ä', 'x'.repeat(PATH_PART_MAX_LENGTH + 1)]) expect(pathPartProblem(name), name).toBeDefined();
  });
});
