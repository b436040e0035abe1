// rl-adv tune-kernel and the estimator name form kernel:PATH in advantages, calibrate and serve.
import { existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
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
  it('is an estimator name in advantages, calibrate and serve (relative to the current directory)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'kernel.json'), JSON.stringify(kernel));
    writeJsonl(dir, 'calib.jsonl', rows());
    const advantages = await rlAdv(['advantages', '--estimator', 'kernel:kernel.json', '--input', 'calib.jsonl'], { cwd: dir });
    expect(advantages.code).toBe(0);
    expect(parseLines(advantages.stdout)).toHaveLength(120);
    const calibrate = await rlAdv(['calibrate', '--input', 'calib.jsonl', '--estimators', 'kernel:kernel.json', '--batch-size', '8', '--batches', '500', '--json'], { cwd: dir });
    expect(calibrate.code).toBe(0);
    expect(Object.keys(JSON.parse(calibrate.stdout).estimators)).toEqual(['loo_batch_mean', 'kernel:kernel.json']);
    const request = JSON.stringify({ id: 1, estimator: 'kernel:kernel.json', rewards: [1, 0, 1], prompts: ['a', 'bb bb', 'a a a a a a'] });
    const serve = await rlAdv(['serve'], { cwd: dir, input: request + '\n' });
    expect(serve.code).toBe(0);
    expect((parseLines(serve.stdout)[0] as { advantages: number[] }).advantages).toHaveLength(3);
  });

  it('a bad kernel file exits 2 naming the file and the field', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...kernel, params: { ...kernel.params, bandwidth: -1 } }));
    writeJsonl(dir, 'calib.jsonl', rows());
    const run = await rlAdv(['advantages', '--estimator', 'kernel:bad.json', '--input', 'calib.jsonl'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/bad\.json: kernel\.params\.bandwidth must be a finite number > 0, got -1/);
    const missing = await rlAdv(['calibrate', '--input', 'calib.jsonl', '--estimators', 'kernel:none.json'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--estimators kernel:none\.json: .*cannot read the kernel file/);
  });
});

describe('rl-adv tune-kernel', () => {
  it('writes a kernel usable as kernel:PATH, an --html page, and keeps an existing --out', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', rows());
    const args = ['tune-kernel', '--input', 'calib.jsonl', '--families', 'length,loo_batch_mean', '--batch-size', '8', '--batches', '200', '--out', 'kernel.json'];
    const run = await rlAdv([...args, '--json', '--html', 'kernel.html'], { cwd: dir });
    expect(run.code).toBe(0);
    const figures = JSON.parse(run.stdout);
    expect(figures.per_family.map((f: { family: string }) => f.family)).toEqual(['length', 'loo_batch_mean']);
    const file = JSON.parse(readFileSync(join(dir, 'kernel.json'), 'utf8'));
    expect(file.provenance.inputs[0]).toMatchObject({ role: 'input', path: 'calib.jsonl', rows: 120 });
    expect(file.provenance.refit_on_all_tasks).toBe(true);
    expect(existsSync(join(dir, 'kernel.html'))).toBe(true);
    const again = await rlAdv(args, { cwd: dir });
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/--out kernel\.json exists; it is kept/);
    expect((await rlAdv([...args, '--force'], { cwd: dir })).code).toBe(0);
  });

  it('names the file, line and field of a bad row, and a bad flag', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', [...rows().slice(0, 4), { task_id: 'x', prompt: 'p', reward: 'one' }]);
    const run = await rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--out', 'k.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/calib\.jsonl:5: field "reward"/);
    const holdout = await rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--out', 'k.json', '--holdout', '1.5'], { cwd: dir });
    expect(holdout.stderr).toMatch(/--holdout 1\.5: give a fraction strictly between 0 and 1/);
    const families = await rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--out', 'k.json', '--families', 'length,magic'], { cwd: dir });
    expect(families.stderr).toMatch(/--families length,magic: unknown family "magic"/);
  });
});

describe('rl-adv tune-kernel --features', () => {
  /** One vector a task: the repeat count of its prompt (the difficulty) and a constant, keyed by task_id or prompt. */
  function features(): unknown[] {
    return (rows() as { task_id: string; prompt: string }[]).map((r, k) => (k % 2 === 0 ? { task_id: r.task_id, features: [k % 6, 1] } : { prompt: r.prompt, features: [k % 6, 1] }));
  }

  it('tunes the embedding family on user vectors; the kernel refuses a prompt it has no vector for', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', rows());
    writeJsonl(dir, 'emb.jsonl', features());
    const run = await rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--features', 'emb.jsonl', '--families', 'embedding', '--batch-size', '8', '--batches', '200', '--out', 'kernel.json', '--json'], { cwd: dir });
    expect(run.code).toBe(0);
    const file = JSON.parse(readFileSync(join(dir, 'kernel.json'), 'utf8'));
    expect(file.family).toBe('embedding');
    expect(file.fitted.dimension).toBe(2);
    expect(Object.keys(file.fitted.vectors)).toHaveLength(120);
    expect(file.provenance.inputs[1]).toMatchObject({ role: 'features', path: 'emb.jsonl', rows: 120 });
    expect((await rlAdv(['advantages', '--estimator', 'kernel:kernel.json', '--input', 'calib.jsonl'], { cwd: dir })).code).toBe(0);
    writeJsonl(dir, 'new.jsonl', [...rows().slice(0, 2), { task_id: 'new', prompt: 'a new question', reward: 1 }]);
    const unknown = await rlAdv(['advantages', '--estimator', 'kernel:kernel.json', '--input', 'new.jsonl'], { cwd: dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/new\.jsonl:3: field "prompt": has no feature vector: an embedding kernel only knows the prompts it was given vectors for/);
  });

  it.each([
    [[{ task_id: 't0', features: [1, 'x'] }], /emb\.jsonl:1: field "features": entry \[1\] must be a finite number, got "x"/],
    [[{ task_id: 't0', features: [1, 2] }, { task_id: 't1', features: [1, 2, 3] }], /emb\.jsonl:2: field "features": has 3 entries at index 1, the first row has 2/],
    [[{ task_id: 't0', features: 3 }], /emb\.jsonl:1: field "features": must be a non-empty array of finite numbers, got 3/],
    [[{ task_id: 't0', features: [1] }, { task_id: 't0', features: [2] }], /emb\.jsonl:2: field "task_id": "t0" is given twice/],
    [[{ task_id: 't0', features: [1] }], /emb\.jsonl: task "t1" has no feature vector/],
  ])('exits 2 naming the --features file, line and field %#', async (lines, message) => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', rows());
    writeJsonl(dir, 'emb.jsonl', lines);
    const run = await rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--features', 'emb.jsonl', '--families', 'embedding', '--batch-size', '8', '--batches', '50', '--out', 'k.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });

  it('refuses --families embedding without --features', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', rows());
    const run = await rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--families', 'embedding', '--out', 'k.json'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--families embedding: the embedding family needs --features F\.jsonl/);
  });
});

describe('kernel:PATH files are checked before they are read', () => {
  it('refuses a device, a folder and a file over the limit at once, in advantages and serve (which goes on)', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', rows());
    writeFileSync(join(dir, 'huge.json'), '');
    truncateSync(join(dir, 'huge.json'), 300 * 1024 * 1024); // sparse: no disk used
    const cases: [string, RegExp][] = [
      ['kernel:/dev/zero', /the kernel file \/dev\/zero is a device, not a regular file/],
      [`kernel:${dir}`, /is a folder, not a regular file/],
      ['kernel:huge.json', /huge\.json is 314572800 bytes \(300 MiB\), over the limit of 268435456 bytes \(256 MiB\) \(kernel files are read up to 268435456 bytes \(256 MiB\)\)/],
    ];
    for (const [name, message] of cases) {
      const run = await rlAdv(['advantages', '--estimator', name, '--input', 'calib.jsonl'], { cwd: dir });
      expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(message)]);
    }
    const input = cases.map(([name], i) => JSON.stringify({ id: i, estimator: name, rewards: [1, 0], prompts: ['a', 'b'] })).join('\n') + '\n' + JSON.stringify({ id: 'next', estimator: 'loo_batch_mean', rewards: [1, 0] }) + '\n';
    const serve = parseLines((await rlAdv(['serve'], { cwd: dir, input })).stdout) as { id: unknown; error?: { code: string; message: string } }[];
    expect(serve.map((r) => [r.id, r.error?.code])).toEqual([[0, 'bad_kernel'], [1, 'bad_kernel'], [2, 'bad_kernel'], ['next', undefined]]);
    cases.forEach(([, message], i) => expect(serve[i]?.error?.message).toMatch(message));
  });
});

describe('rewards out of range', () => {
  it('calibrate and tune-kernel refuse a reward of 1e308 as advantages does, naming file, line and field', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'calib.jsonl', rows().map((row, k) => (k === 4 ? { ...(row as object), reward: 1e308 } : row)));
    const message = 'calib.jsonl:5: field "reward": is 1e+308; rewards must lie in [-1e100, 1e100] so that no sum or variance of a batch can overflow (rescale the rewards)';
    const runs = [
      await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--input', 'calib.jsonl'], { cwd: dir }),
      await rlAdv(['calibrate', '--input', 'calib.jsonl', '--estimators', 'loo_batch_mean', '--batch-size', '8', '--batches', '50'], { cwd: dir }),
      await rlAdv(['tune-kernel', '--input', 'calib.jsonl', '--out', 'k.json'], { cwd: dir }),
    ];
    for (const run of runs) expect([run.code, run.stderr]).toEqual([2, `rl-adv: ${message}\n`]);
    expect(existsSync(join(dir, 'k.json'))).toBe(false);
  });
});
