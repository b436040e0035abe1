// rl-adv tune-kernel and the estimator name form kernel:PATH in advantages, calibrate and serve.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseLines, rlAdv, tempDir, writeJsonl } from './run.js';

const kernel = { format: 'rl-advantages/kernel', version: 1, family: 'length', params: { measure: 'chars', kernel: 'gaussian', bandwidth: 1 }, fitted: { sd: 0.5, scale: 0.5 } };

/** 120 tasks, one rollout each: short prompts mostly right, long ones mostly wrong. */
function rows(): unknown[] {
  return Array.from({ length: 120 }, (_, k) => ({
    task_id: `t${k}`,
    prompt: `Question ${k}: ` + 'Sam buys 3 more apples and pays $2 each. '.repeat(1 + (k % 6)),
    reward: (k * 7919) % 10 < 8 - (k % 6) ? 1 : 0,
  }));
}

describe('kernel:PATH', () => {
  it('is an estimator name in advantages, calibrate and serve (relative to the current directory)', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'kernel.json'), JSON.stringify(kernel));
    writeJsonl(dir, 'calib.jsonl', rows());
    const advantages = rlAdv(['advantages', '--estimator', 'kernel:kernel.json', '--input', 'calib.jsonl'], { cwd: dir });
    expect(advantages.code).toBe(0);
    expect(parseLines(advantages.stdout)).toHaveLength(120);
    const calibrate = rlAdv(['calibrate', '--input', 'calib.jsonl', '--estimators', 'kernel:kernel.json', '--batch-size', '8', '--batches', '500', '--json'], { cwd: dir });
    expect(calibrate.code).toBe(0);
    expect(Object.keys(JSON.parse(calibrate.stdout).estimators)).toEqual(['loo_batch_mean', 'kernel:kernel.json']);
    const request = JSON.stringify({ id: 1, estimator: 'kernel:kernel.json', rewards: [1, 0, 1], prompts: ['a', 'bb bb', 'a a a a a a'] });
    const serve = rlAdv(['serve'], { cwd: dir, input: request + '\n' });
    expect(serve.code).toBe(0);
    expect((parseLines(serve.stdout)[0] as { advantages: number[] }).advantages).toHaveLength(3);
  });

  it('a bad kernel file exits 2 naming the file and the field', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...kernel, params: { ...kernel.params, bandwidth: -1 } }));
    writeJsonl(dir, 'calib.jsonl', rows());
    const run = rlAdv(['advantages', '--estimator', 'kernel:bad.json', '--input', 'calib.jsonl'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.json: kernel\.params\.bandwidth must be a finite number > 0, got -1/);
    const missing = rlAdv(['calibrate', '--input', 'calib.jsonl', '--estimators', 'kernel:none.json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--estimators kernel:none\.json: .*cannot read the kernel file/);
  });
});

describe('rl-adv tune-kernel', () => {
  it('writes a kernel usable as kernel:PATH, an --html page, and keeps an existing --out', () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', rows());
    const args = ['tune-kernel', '--input', 'calib.jsonl', '--families', 'length,loo_batch_mean', '--batch-size', '8', '--batches', '200', '--out', 'kernel.json'];
    const run = rlAdv([...args, '--json', '--html', 'kernel.html'], { cwd: dir });
    expect(run.code).toBe(0);
    const figures = JSON.parse(run.stdout);
    expect(figures.per_family.map((f: { family: string }) => f.family)).toEqual(['length', 'loo_batch_mean']);
    const file = JSON.parse(readFileSync(join(dir, 'kernel.json'), 'utf8'));
    expect(file.provenance.inputs[0]).toMatchObject({ role: 'input', path: 'calib.jsonl', rows: 120 });
    expect(file.provenance.refit_on_all_tasks).toBe(true);
    expect(existsSync(join(dir, 'kernel.html'))).toBe(true);
    const again = rlAdv(args, { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--out kernel\.json exists; it is kept/);
    expect(rlAdv([...args, '--force'], { cwd: dir }).code).toBe(0);
  });

  it('names the file, line and field of a bad row, and a bad flag', () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', [...rows().slice(0, 4), { task_id: 'x', prompt: 'p', reward: 'one' }]);
    const run = rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--out', 'k.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/calib\.jsonl:5: field "reward"/);
    const holdout = rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--out', 'k.json', '--holdout', '1.5'], { cwd: dir });
    expect(holdout.stderr).toMatch(/--holdout 1\.5: give a fraction strictly between 0 and 1/);
    const families = rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--out', 'k.json', '--families', 'length,magic'], { cwd: dir });
    expect(families.stderr).toMatch(/--families length,magic: unknown family "magic"/);
  });
});
