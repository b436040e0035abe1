// What a newcomer tripped on (issue 23), each fixed and checked as a user meets it: in a subprocess of the built CLI.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { rlAdv, specPath, tempDir, writeJsonl } from './run.js';

const sha = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** 12 tasks x 2 rollouts of calibration rows. */
function calibrationRows(): { task_id: string; prompt: string; reward: number }[] {
  return Array.from({ length: 24 }, (_, i) => ({ task_id: `t${i % 12}`, prompt: `how many apples does person ${i % 12} have`, reward: (i * 7) % 3 === 0 ? 1 : 0 }));
}

describe('a misspelt flag', () => {
  it.each([
    [['advantages', '--estimater', 'group_mean'], '--estimater', '--estimator'],
    [['calibrate', '--inptu', 'x.jsonl'], '--inptu', '--input'],
    [['tune-kernel', '--input', 'x.jsonl', '--otu', 'k.json'], '--otu', '--out'],
    [['study', 'revise', '--spec', 's.json', '--kernal', 'k.json', '--out', 'o.json'], '--kernal', '--kernel'],
  ])('%j names the unknown option and the closest known one, not a missing required one', async (args, typed, meant) => {
    const run = await rlAdv(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`rl-adv: unknown option '${typed}'\n(Did you mean ${meant}?)`);
    expect(run.stderr).not.toMatch(/required option/);
  });

  it('a missing required option without a misspelling is still reported as missing', async () => {
    const run = await rlAdv(['advantages', '--input', 'x.jsonl']);
    expect([run.code, run.stderr]).toEqual([2, expect.stringMatching(/^rl-adv: required option '--estimator <name>' \(or --estimator-json <json>\) not specified/)]);
  });
});

describe('tune-kernel with too few tasks', () => {
  it('names --batch-size and --holdout, the flags the user types', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'c.jsonl', calibrationRows());
    const run = await rlAdv(['tune-kernel', '--input', 'c.jsonl', '--out', 'k.json', '--families', 'length'], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('rl-adv: --batch-size: the tuning part has 6 tasks; it needs more than --batch-size (32): give more tasks, a smaller --batch-size or another --holdout\n');
  });
});

describe('calibrate of a kernel on the tasks it was tuned on', () => {
  const kernelWith = (tuning: { task_id: string; prompt_sha256: string }[]) =>
    JSON.stringify({ format: 'rl-advantages/kernel', version: 1, family: 'loo_batch_mean', params: {}, fitted: {}, provenance: { tuning_tasks: tuning } });

  it('warns on stderr and marks the figure IN-SAMPLE; a kernel tuned elsewhere is silent', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'c.jsonl', calibrationRows());
    writeFileSync(join(dir, 'seen.json'), kernelWith([{ task_id: 't1', prompt_sha256: sha('x') }, { task_id: 'q', prompt_sha256: sha('how many apples does person 4 have') }]));
    writeFileSync(join(dir, 'fresh.json'), kernelWith([{ task_id: 'other', prompt_sha256: sha('other') }]));
    const args = ['calibrate', '--input', 'c.jsonl', '--batch-size', '4', '--batches', '50'];
    const seen = await rlAdv([...args, '--estimators', 'kernel:seen.json'], { cwd: dir });
    expect(seen.code).toBe(0);
    expect(seen.stderr).toMatch(/^rl-adv: warning: kernel:seen\.json was tuned on 2 of the 12 tasks scored here \(by task id or prompt: t1, t4 \(same prompt as q\)\): its ratio is in-sample and optimistic/);
    expect(seen.stdout).toContain('IN-SAMPLE: kernel:seen.json was tuned on 2 of these 12 tasks');
    const json = JSON.parse((await rlAdv([...args, '--estimators', 'kernel:seen.json', '--json'], { cwd: dir })).stdout);
    expect(json.in_sample).toEqual({ 'kernel:seen.json': { tasks: 2, of: 12, examples: ['t1', 't4 (same prompt as q)'] } });
    const fresh = await rlAdv([...args, '--estimators', 'kernel:fresh.json'], { cwd: dir });
    expect([fresh.code, fresh.stderr]).toEqual([0, '']);
    expect(fresh.stdout).not.toContain('IN-SAMPLE');
  });
});

describe('--output of calibrate and gate-metrics', () => {
  it('calibrate --output writes what stdout would show (table or JSON), and keeps an existing file', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'c.jsonl', calibrationRows());
    const args = ['calibrate', '--input', 'c.jsonl', '--estimators', 'loo_batch_mean', '--batch-size', '4', '--batches', '50', '--json'];
    const printed = await rlAdv(args, { cwd: dir });
    const written = await rlAdv([...args, '--output', 'cal.json'], { cwd: dir });
    expect([written.code, written.stdout]).toEqual([0, '']);
    expect(readFileSync(join(dir, 'cal.json'), 'utf8')).toBe(printed.stdout);
    const again = await rlAdv([...args, '--output', 'cal.json'], { cwd: dir });
    expect([again.code, again.stderr]).toEqual([2, 'rl-adv: --output cal.json exists; it is kept: give another file, or --force to replace it\n']);
  });

  it('gate-metrics --output writes the metrics object', async () => {
    const dir = tempDir();
    const row = { arm: 'grpo_g8', step: 0, estimator: 'group_mean', rollouts: 4, group_size: 2, groups: 2, rewards: [1, 0, 0, 0], baselines: [0.5, 0.5, 0, 0] };
    const more = { loo_mean: [0, 1 / 3, 1 / 3, 1 / 3], advantages: [0.5, -0.5, 0, 0], max_self_weight: 0.5, nonzero_advantage_fraction: 0.5, mean_abs_baseline_minus_loo_mean: 1 / 3 };
    writeFileSync(join(dir, 'log.jsonl'), JSON.stringify({ ...row, ...more }) + '\n');
    const args = ['gate-metrics', '--spec', specPath, '--pilot-log', 'log.jsonl', '--json'];
    const printed = await rlAdv(args, { cwd: dir });
    const written = await rlAdv([...args, '--output', 'm.json'], { cwd: dir });
    expect(printed.stdout).toMatch(/^\{\n/);
    expect(written.stdout).toBe('');
    expect(written.code).toBe(printed.code);
    expect(readFileSync(join(dir, 'm.json'), 'utf8')).toBe(printed.stdout);
  });
});

describe('GS1 diagnostics', () => {
  it('"N groups (N of one)" says that this is GS1\'s design for an estimator whose baseline comes from other prompts', async () => {
    const dir = tempDir();
    writeJsonl(dir, 'r.jsonl', [{ reward: 1 }, { reward: 0 }, { reward: 1 }]);
    const batch = await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--input', 'r.jsonl'], { cwd: dir });
    expect(batch.stderr).toMatch(/^rl-adv: 3 groups \(3 of one, 0 zero-variance\), 0% of advantages exactly 0; every rollout is a group of one \(no "group" field, or one rollout a prompt: GS1's design\)/);
    writeJsonl(dir, 'g.jsonl', [{ reward: 1, group: 'a' }, { reward: 0, group: 'b' }]);
    const grouped = await rlAdv(['advantages', '--estimator', 'rloo', '--singleton', 'zero', '--input', 'g.jsonl'], { cwd: dir });
    expect(grouped.stderr).toBe('rl-adv: 2 groups (2 of one, 0 zero-variance), 100% of advantages exactly 0\n');
  });
});
