// The rl-adv program as a whole: every command's --help shows an example, usage errors exit 2.
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../src/version.js';
import { rlAdv } from './run.js';

const COMMANDS = [
  ['advantages'],
  ['tfidf'],
  ['tfidf', 'fit'],
  ['serve'],
  ['calibrate'],
  ['gate-metrics'],
  ['gate'],
  ['decide'],
  ['plan'],
];

describe('rl-adv', () => {
  it('lists every command in --help, which shows an example and the exit codes', () => {
    const run = rlAdv(['--help']);
    expect(run.code).toBe(0);
    for (const [name] of COMMANDS) expect(run.stdout).toMatch(new RegExp(`\\n {2}${name} `));
    expect(run.stdout).toMatch(/\nExample:\n  rl-adv /);
    expect(run.stdout).toMatch(/Exit codes: 0 success, 1 a failed gate, 2 bad input or usage/);
  });

  it.each(COMMANDS)('%s %s --help shows an Example section with a runnable rl-adv line', (...command) => {
    const run = rlAdv([...command.filter((c) => c !== undefined), '--help']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\nExamples?:\n {2}(echo .*\| )?rl-adv /);
  });

  it('--version prints the package version', () => {
    expect(rlAdv(['--version'])).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('usage errors exit 2 with one rl-adv: message and a hint, no stack trace', () => {
    const unknown = rlAdv(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^rl-adv: unknown command 'frobnicate'/);
    const option = rlAdv(['gate', '--spec', 'x', '--metrics', 'y', '--bogus']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^rl-adv: unknown option '--bogus'\n\(run rl-adv gate --help for usage\)/);
    const none = rlAdv([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    for (const run of [unknown, option, none]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
