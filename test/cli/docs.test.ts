// docs/cli.md is true: every `## ` section with runnable blocks is one test, run in a fresh folder. Its ```sh blocks
// run in order (they create the example files) and every `$ command` of its ```console blocks prints exactly the
// lines shown under it. A section that uses files an earlier section makes replays that section first (NEEDS), so
// the tests do not depend on each other's order and each stays short.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gsm8kDir, repoRoot } from '../helpers/paths.js';
import { cliPath, specPath, tempDir } from './run.js';

interface Step {
  readonly kind: 'sh' | 'console';
  readonly command: string;
  readonly expected: string;
}

/** The runnable blocks of one section, in order: a ```sh block is one step; a ```console block one step per `$ ` line. */
function steps(markdown: string): Step[] {
  const out: Step[] = [];
  for (const m of markdown.matchAll(/```(sh|console)\n([\s\S]*?)```/g)) {
    const body = m[2] as string;
    if (m[1] === 'sh') {
      out.push({ kind: 'sh', command: body, expected: '' });
      continue;
    }
    for (const part of body.split(/^\$ /m).slice(1)) {
      const newline = part.indexOf('\n');
      out.push({ kind: 'console', command: part.slice(0, newline), expected: part.slice(newline + 1) });
    }
  }
  return out;
}

/** The page's `## ` sections with at least one runnable step, by heading (`rl-adv calibrate`, ...). */
function sections(markdown: string): Map<string, Step[]> {
  const out = new Map<string, Step[]>();
  for (const part of markdown.split(/^## /m).slice(1)) {
    const title = part.slice(0, part.indexOf('\n')).trim();
    const found = steps(part);
    if (found.length > 0) out.set(/^`(.*)`$/.exec(title)?.[1] ?? title, found);
  }
  return out;
}

/** The earlier sections whose files a section's examples read, replayed (in this order) before its own steps. */
const NEEDS: Readonly<Record<string, readonly string[]>> = {
  'rl-adv tfidf fit': ['rl-adv advantages'],
  'rl-adv serve': ['rl-adv advantages', 'rl-adv tfidf fit'],
  'rl-adv calibrate': ['rl-adv advantages', 'rl-adv tfidf fit'],
  'rl-adv gate-metrics': ['rl-adv advantages', 'rl-adv tfidf fit', 'rl-adv calibrate'],
  'rl-adv plan': ['rl-adv decide'],
};

const page = sections(readFileSync(resolve(repoRoot, 'docs', 'cli.md'), 'utf8'));

/** A fresh folder with the page's inputs (the shipped spec, GSM8K files) and `rl-adv` on PATH. */
function workspace(): { dir: string; env: NodeJS.ProcessEnv } {
  const dir = tempDir();
  copyFileSync(specPath, join(dir, 'gs1-vs-grpo.spec.json'));
  symlinkSync(resolve(gsm8kDir, 'train.jsonl'), join(dir, 'train.jsonl'));
  symlinkSync(resolve(gsm8kDir, 'example_model_solutions.jsonl'), join(dir, 'example_model_solutions.jsonl'));
  mkdirSync(join(dir, 'bin'));
  const shim = join(dir, 'bin', 'rl-adv');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  chmodSync(shim, 0o755);
  return { dir, env: { ...process.env, PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH ?? ''}` } };
}

function run(step: Step, where: { dir: string; env: NodeJS.ProcessEnv }): void {
  // stderr goes where the page shows it: interleaved with stdout, in order.
  const r = spawnSync('sh', ['-c', `exec 2>&1\n${step.command}`], { cwd: where.dir, env: where.env, encoding: 'utf8' });
  if (step.kind === 'sh') expect(r.status, `${step.command}\n${r.stdout}`).toBe(0);
  else expect(r.stdout, step.command).toBe(step.expected);
}

describe('every example in docs/cli.md prints what the page shows', () => {
  it('the page has its examples, and every section a replayed one names exists', () => {
    const all = [...page.values()].flat();
    expect(all.filter((s) => s.kind === 'console').length).toBeGreaterThanOrEqual(15);
    for (const needed of Object.values(NEEDS).flat()) expect([...page.keys()]).toContain(needed);
  });

  for (const [heading, own] of page) {
    it(heading, () => {
      const where = workspace();
      for (const earlier of NEEDS[heading] ?? []) for (const step of page.get(earlier) ?? []) run(step, where);
      for (const step of own) run(step, where);
    });
  }
});
