// Help as a person reads it: every command's --help fits 80 columns, defaults print as typed, and a
// long example wraps into lines a shell still runs as one command.
import { spawnSync } from 'node:child_process';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { formatExample, plainValue } from '../../src/cli/core.js';
import { buildProgram } from '../../src/cli/program.js';
import { cliPath } from './run.js';

/** Every command path of the program, found by walking it (so commands added later are checked too). */
function commandPaths(): string[][] {
  const io = { stdout: new PassThrough(), stderr: new PassThrough(), stdin: new PassThrough() };
  const paths: string[][] = [[]];
  const walk = (command: Command, path: string[]): void => {
    for (const sub of command.commands) {
      paths.push([...path, sub.name()]);
      walk(sub, [...path, sub.name()]);
    }
  };
  walk(buildProgram(io), []);
  return paths;
}

const helps = new Map<string, string>();

function help(path: readonly string[]): string {
  const cached = helps.get(path.join(' '));
  if (cached !== undefined) return cached;
  const run = spawnSync(process.execPath, [cliPath, ...path, '--help'], {
    encoding: 'utf8',
    env: { ...process.env, COLUMNS: '80', NO_COLOR: '1' },
  });
  expect(run.status).toBe(0);
  helps.set(path.join(' '), run.stdout);
  return run.stdout;
}

describe('--help', () => {
  const paths = commandPaths();

  it('covers the program and its commands', () => {
    expect(paths.length).toBeGreaterThanOrEqual(10);
    expect(paths).toContainEqual(['tfidf', 'fit']);
  });

  it.each(paths.map((p) => [p.join(' ') || '(rl-adv)', p] as const))('%s: no line is wider than 80 columns', (_, path) => {
    const wide = help(path)
      .split('\n')
      .filter((line) => line.length > 80);
    expect(wide).toEqual([]);
  });

  it('prints defaults as a user types them, not as JSON', () => {
    const calibrate = help(['calibrate']);
    expect(calibrate).toMatch(/\(default:\s+tfidf_kernel_loo_T0\.1\)/);
    expect(calibrate).toMatch(/\(default:\s+loo_batch_mean\)/);
    expect(calibrate).toMatch(/\(default:\s+0\)/);
    expect(help(['advantages'])).toMatch(/\(default:\s+-\)/);
    for (const path of paths) expect(help(path)).not.toMatch(/default:\s+(\[|")/);
  });
});

describe('formatExample', () => {
  const join = (text: string): string => text.replace(/ \\\n {6}/g, ' ').replace(/^ {2}/gm, '');

  it('keeps a short example on one line, indented two spaces', () => {
    expect(formatExample('rl-adv plan --spec s.json')).toBe('  rl-adv plan --spec s.json');
  });

  it('breaks a long one between options (an option stays with its value), never inside quotes, and it joins back', () => {
    const example =
      `echo '{"id": 1, "estimator": "loo_batch_mean", "rewards": [1, 0, 1]}' | rl-adv serve --vectorizer a-long-vectorizer-name.json > responses.jsonl`;
    const text = formatExample(example);
    for (const line of text.split('\n')) expect(line.length).toBeLessThanOrEqual(80);
    expect(text.split('\n').length).toBeGreaterThan(1);
    expect(text).toContain(`'{"id": 1, "estimator": "loo_batch_mean", "rewards": [1, 0, 1]}'`);
    expect(text).toContain('--vectorizer a-long-vectorizer-name.json');
    expect(text).toContain('> responses.jsonl');
    expect(join(text)).toBe(example);
  });

  it('puts a trailing # comment on the line above the command', () => {
    expect(formatExample('rl-adv study --out runs/sim   # the gate fails (exit 1)')).toBe('  # the gate fails (exit 1)\n  rl-adv study --out runs/sim');
  });

  it('plainValue: lists joined by commas, strings bare', () => {
    expect([plainValue(['a', 'b']), plainValue('x'), plainValue(3), plainValue('')]).toEqual(['a,b', 'x', '3', '""']);
  });
});
