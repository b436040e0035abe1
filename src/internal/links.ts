// The project's public addresses (package.json's repository, homepage and bugs; a test keeps them equal), and
// links to its docs, so help text and reports point a user who has no checkout to the page by URL.

/** package.json `repository.url`, without `git+` and `.git`. */
export const REPOSITORY_URL = 'https://github.com/rl-advantages/rl-advantages';
/** package.json `homepage`. */
export const HOMEPAGE_URL = `${REPOSITORY_URL}#readme`;
/** package.json `bugs.url`. */
export const BUGS_URL = `${REPOSITORY_URL}/issues`;

/**
 * The URL of a page under docs/, e.g. `docsUrl('method.md')`, on the default branch.
 */
export function docsUrl(page: string): string {
  return `${REPOSITORY_URL}/blob/main/docs/${page.replace(/^\/+/, '')}`;
}
