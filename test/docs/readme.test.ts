// The README's usage example really runs: extract its first ```js block, point the package
// import at the built dist/ (npm test builds first), run it with node, and compare the printed
// lines with the `// →` comments in the block.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect, it } from 'vitest';
import { repoRoot } from '../helpers/paths.js';

it('the README usage example prints what its comments say', () => {
  const readme = readFileSync(resolve(repoRoot, 'README.md'), 'utf8');
  const block = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(block).toBeDefined();
  const code = (block as string).replace(
    "from 'rl-advantages'",
    `from '${pathToFileURL(resolve(repoRoot, 'dist', 'index.js')).href}'`,
  );
  const file = join(mkdtempSync(join(tmpdir(), 'rl-adv-readme-')), 'example.mjs');
  writeFileSync(file, code);
  const printed = execFileSync(process.execPath, [file], { encoding: 'utf8' }).trim().split('\n');
  const expected = [...(block as string).matchAll(/\/\/ → (.*?)(?: {2}\(.*)?$/gm)].map((m) => (m[1] as string).trim());
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toEqual(expected);
});
