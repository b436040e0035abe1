// The rl-adv program as a whole: every command's --help shows an example, usage errors exit 2.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/program.js';
import { VERSION } from '../../src/version.js';
import { rlAdv, specPath, tempDir } from './run.js';

const COMMANDS = [
  ['study', 'revise'],
  ['report'],
  ['advantages'],
  ['estimators'],
  ['tfidf'],
  ['tfidf', 'fit'],
  ['serve'],
  ['calibrate'],
  ['tune-kernel'],
  ['gate-metrics'],
  ['gate'],
  ['decide'],
  ['plan'],
  ['data'],
  ['data', 'gsm8k'],
  ['spec'],
  ['spec', 'print'],
];

describe('rl-adv', () => {
  it('lists every command in --help, which shows an example and the exit codes', async () => {
    const run = await rlAdv(['--help']);
    expect(run.code).toBe(0);
    for (const [name] of COMMANDS) expect(run.stdout).toMatch(new RegExp(`\\n {2}${name} `));
    expect(run.stdout).toMatch(/\nExample:\n {2}rl-adv /);
    expect(run.stdout).toMatch(/Exit codes: 0 success, 1 a failed gate, 2 bad input or usage/);
  });

  it('every command rl-adv --help lists is one this suite checks, or study (tested by its own suite)', async () => {
    const section = (await rlAdv(['--help'])).stdout.split('Commands:\n')[1]?.split('\n\n')[0] ?? '';
    const listed = [...section.matchAll(/^ {2}([a-z][a-z-]*)/gm)].map((m) => m[1]);
    expect(listed.filter((name) => name !== 'help' && name !== 'study')).toEqual(COMMANDS.filter((c) => c.length === 1).map((c) => c[0]));
  });

  it.each(COMMANDS.map((c) => c.join(' ')))('%s --help shows an Example section with a runnable rl-adv line', async (command) => {
    const run = await rlAdv([...command.split(' '), '--help']);
    expect(run.code).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toMatch(/\nExamples?:\n {2}(echo .*\| (\\\n {6})?)?rl-adv /);
  });

  it('--version prints the package version', async () => {
    expect((await rlAdv(['--version']))).toEqual({ code: 0, stdout: `${VERSION}\n`, stderr: '' });
  });

  it('usage errors exit 2 with one rl-adv: message and a hint, no stack trace', async () => {
    const unknown = await rlAdv(['frobnicate']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^rl-adv: unknown command 'frobnicate'/);
    const option = await rlAdv(['gate', '--spec', 'x', '--metrics', 'y', '--bogus']);
    expect(option.code).toBe(2);
    expect(option.stderr).toMatch(/^rl-adv: unknown option '--bogus'\n\(run rl-adv gate --help for usage\)/);
    const none = await rlAdv([]);
    expect(none.code).toBe(2);
    expect(none.stdout).toBe('');
    for (const run of [unknown, option, none]) expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('runCli in-process', () => {
  it('reads and writes only the streams it is given, and returns the exit code', async () => {
    const capture = () => {
      const stream = new PassThrough();
      let text = '';
      stream.on('data', (d: Buffer) => (text += d.toString()));
      return { stream, text: () => text };
    };
    const out = capture();
    const err = capture();
    const io = (input: string) => ({ stdout: out.stream, stderr: err.stream, stdin: Readable.from([input]) });
    expect(await runCli(['advantages', '--estimator', 'loo_batch_mean'], io('{"reward": 1}\n{"reward": 0}\n'))).toBe(0);
    expect(out.text()).toBe('{"advantage":1,"baseline":0,"loo_mean":0}\n{"advantage":-1,"baseline":1,"loo_mean":1}\n');
    const diagnostics = 'rl-adv: 2 groups (2 of one, 0 zero-variance), 0% of advantages exactly 0; every rollout is a group of one (no "group" field, or one rollout a prompt: GS1\'s design), and this estimator takes each rollout\'s baseline from the other prompts of the batch, so groups of one are expected\n';
    expect(err.text()).toBe(diagnostics);
    expect(await runCli(['advantages', '--estimator', 'loo_batch_mean'], io('{"reward": true}\n'))).toBe(2);
    expect(err.text()).toBe(
      `${diagnostics}rl-adv: <stdin>:1: field "reward": must be a finite number, got boolean\n`,
    );
    const file = join(tempDir(), 'm.json');
    writeFileSync(file, JSON.stringify({ offline_beff_ratio_tfidf_vs_loo_mean: 0.976 }));
    expect(await runCli(['gate', '--spec', specPath, '--metrics', file, '--json'], io(''))).toBe(1);
  });
});
