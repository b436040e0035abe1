// The project's addresses in help text equal package.json's repository, homepage and bugs.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { BUGS_URL, docsUrl, HOMEPAGE_URL, REPOSITORY_URL } from '../../src/internal/links.js';
import { packageRoot } from '../../src/internal/package-root.js';
import { repoRoot } from '../helpers/paths.js';

it('REPOSITORY_URL, HOMEPAGE_URL and BUGS_URL equal package.json', () => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
    repository: { url: string };
    homepage: string;
    bugs: { url: string };
  };
  expect(`git+${REPOSITORY_URL}.git`).toBe(pkg.repository.url);
  expect(HOMEPAGE_URL).toBe(pkg.homepage);
  expect(BUGS_URL).toBe(pkg.bugs.url);
});

it('docsUrl points at a page that exists under docs/', () => {
  expect(docsUrl('method.md')).toBe('https://github.com/rl-advantages/rl-advantages/blob/main/docs/method.md');
  expect(existsSync(path.join(repoRoot, 'docs', 'method.md'))).toBe(true);
});

it('packageRoot finds this repository from src/', () => {
  expect(packageRoot()).toBe(repoRoot);
});
