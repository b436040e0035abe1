// docs/cli.md is true: its ```sh blocks are run in order in a fresh folder (they create the example
// files) and every `$ command` of its ```console blocks prints exactly the lines shown under it.
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { gsm8kDir, repoRoot } from '../helpers/paths.js';
import { cliPath, specPath, tempDir } from './run.js';

interface Step {
  readonly kind: 'sh' | 'console';
  readonly command: string;
  readonly expected: string;
}

/** The doc's runnable blocks, in order: a ```sh block is one step; a ```console block one step per `$ ` line. */
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

it('every example in docs/cli.md prints what the page shows', () => {
  const dir = tempDir();
  copyFileSync(specPath, join(dir, 'gs1-vs-grpo.spec.json'));
  symlinkSync(resolve(gsm8kDir, 'train.jsonl'), join(dir, 'train.jsonl'));
  symlinkSync(resolve(gsm8kDir, 'example_model_solutions.jsonl'), join(dir, 'example_model_solutions.jsonl'));
  mkdirSync(join(dir, 'bin'));
  const shim = join(dir, 'bin', 'rl-adv');
  writeFileSync(shim, `#!/bin/sh\nexec "${process.execPath}" "${cliPath}" "$@"\n`);
  chmodSync(shim, 0o755);
  const env = { ...process.env, PATH: `${join(dir, 'bin')}${delimiter}${process.env.PATH ?? ''}` };

  const all = steps(readFileSync(resolve(repoRoot, 'docs', 'cli.md'), 'utf8'));
  expect(all.filter((s) => s.kind === 'console').length).toBeGreaterThanOrEqual(15);
  for (const step of all) {
    // stderr goes where the page shows it: interleaved with stdout, in order.
    const run = spawnSync('sh', ['-c', `exec 2>&1\n${step.command}`], { cwd: dir, env, encoding: 'utf8' });
    if (step.kind === 'sh') expect(run.status, step.command).toBe(0);
    else expect(run.stdout, step.command).toBe(step.expected);
  }
});
