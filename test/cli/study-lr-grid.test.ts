// rl-adv study on a spec with lr_grid arms: bad grids and selection rules exit 2 naming the field (and its line when
// the spec's own validation finds it), before any folder is made.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { specPath } from '../helpers/paths.js';
import { rlAdv } from './run.js';

const temp = (): string => mkdtempSync(path.join(tmpdir(), 'rl-adv-study-lr-grid-'));
const SELECTION = { split: { from: 'train', items: 100 }, rule: 'max_mean_heldout_accuracy', ties: 'lower_lr' };

/** The shipped two-arm spec with the given lr_grid per arm (undefined: none) and lr_selection (undefined: none). */
function gridSpec(dir: string, grids: (unknown[] | undefined)[], selection: unknown): string {
  const spec = JSON.parse(readFileSync(specPath, 'utf8')) as Record<string, unknown> & { arms: Record<string, unknown>[] };
  spec.arms.forEach((arm, i) => {
    delete arm.lr;
    if (grids[i] !== undefined) arm.lr_grid = grids[i];
  });
  if (selection !== undefined) spec.lr_selection = selection;
  const file = path.join(dir, 'spec.json');
  writeFileSync(file, JSON.stringify(spec, null, 2));
  return file;
}

async function refused(grids: (unknown[] | undefined)[], selection: unknown, extra: string[] = []): Promise<{ stderr: string; file: string }> {
  const root = temp();
  const file = gridSpec(root, grids, selection);
  const out = path.join(root, 'out');
  const r = await rlAdv(['study', '--spec', file, '--out', out, '--sim-questions', 'clustered', ...extra]);
  expect(r.code, r.stderr).toBe(2);
  expect(existsSync(out)).toBe(false);
  return { stderr: r.stderr, file };
}

describe('rl-adv study with lr_grid arms: refused inputs', () => {
  it('a grid with one learning rate, and a non-positive or non-numeric one', async () => {
    const { stderr, file } = await refused([[3e-5], [3e-5, 0, 'fast']], SELECTION);
    expect(stderr).toMatch(new RegExp(`${file}:\\d+: field "arms\\[0\\]\\.lr_grid": must be an array of two or more learning rates`));
    expect(stderr).toMatch(/field "arms\[1\]\.lr_grid\[1\]": must be a finite number > 0, got 0/);
    expect(stderr).toMatch(/field "arms\[1\]\.lr_grid\[2\]": must be a finite number > 0/);
  });

  it('a grid out of ascending order, and an lr outside its grid', async () => {
    const root = temp();
    const file = gridSpec(root, [[1e-4, 3e-5], [3e-5, 1e-4]], SELECTION);
    const spec = JSON.parse(readFileSync(file, 'utf8')) as { arms: Record<string, unknown>[] };
    (spec.arms[1] as Record<string, unknown>).lr = 5e-5;
    writeFileSync(file, JSON.stringify(spec, null, 2));
    const r = await rlAdv(['study', '--spec', file, '--out', path.join(root, 'out'), '--sim-questions', 'clustered']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/field "arms\[0\]\.lr_grid\[1\]": must be above lr_grid\[0\] \(0\.0001\)/);
    expect(r.stderr).toMatch(/field "arms\[1\]\.lr": must be one of lr_grid \(0\.00003, 0\.0001\) when both are given/);
  });

  it('a grid without a selection rule, and a selection rule without a grid', async () => {
    expect((await refused([[3e-5, 1e-4], undefined], undefined)).stderr).toMatch(/field "lr_selection": is required with an arm's lr_grid/);
    expect((await refused([undefined, undefined], SELECTION)).stderr).toMatch(/field "lr_selection": selects among the learning rates of an arm's lr_grid, but no arm has one/);
  });

  it('a split from test, an unknown rule, tie rule or field', async () => {
    const { stderr } = await refused([[3e-5, 1e-4], [3e-5, 1e-4]], { split: { from: 'test', items: 100, seed: 1 }, rule: 'best_test', ties: 'higher_lr' });
    expect(stderr).toMatch(/field "lr_selection\.split\.from": must be "train"/);
    expect(stderr).toMatch(/field "lr_selection\.split\.seed": is not a field of lr_selection\.split/);
    expect(stderr).toMatch(/field "lr_selection\.rule": must be one of "max_mean_heldout_accuracy"/);
    expect(stderr).toMatch(/field "lr_selection\.ties": must be one of "lower_lr"/);
  });

  it('a split larger than the free range (it would overlap the training questions)', async () => {
    const { stderr } = await refused([[3e-5, 1e-4], [3e-5, 1e-4]], { ...SELECTION, split: { from: 'train', items: 100000 } });
    expect(stderr).toMatch(/lr_selection\.split\.items.*is 100000, more than the \d+ train tasks of the data order's free range/s);
  });
});
