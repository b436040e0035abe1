import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';
import { VERSION } from '../src/index.js';
import { repoRoot } from './helpers/paths.js';

it('VERSION equals package.json version', () => {
  const pkg = JSON.parse(readFileSync(resolve(repoRoot, 'package.json'), 'utf8')) as { version: string };
  expect(VERSION).toBe(pkg.version);
});
