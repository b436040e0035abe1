// The normalisation presets, maxrl and gdpo on the command line and through serve (issue 21): reward_components
// in rows and requests, dropped rows in the output, the running preset's session and checkpoint.
import { describe, expect, it } from 'vitest';
import { gdpo, normalizationPreset, normalized, rloo } from '../../../src/index.js';
import { parseLines, rlAdv, tempDir, writeJsonl } from '../run.js';

const rows = [
  { reward: 1, group: 'a', reward_components: [1, 0] },
  { reward: 0, group: 'a', reward_components: [0, 1] },
  { reward: 0.5, group: 'b', reward_components: [0.5, 0.5] },
  { reward: 0.5, group: 'b', reward_components: [0.5, 0] },
  { reward: 1, group: 'c', reward_components: [1, 1] },
];
const batch = { rewards: rows.map((r) => r.reward), groupIds: rows.map((r) => r.group), rewardComponents: rows.map((r) => r.reward_components) };

describe('rl-adv advantages', () => {
  it('gdpo reads reward_components; a preset with zero_variance mask writes dropped; --singleton raw is verl', async () => {
    const dir = tempDir();
    const input = writeJsonl(dir, 'in.jsonl', rows);
    const g = await rlAdv(['advantages', '--estimator-json', '{"name": "gdpo", "flavour": "trl", "component_weights": [1, 0.5]}', '--input', input]);
    expect(g.code).toBe(0);
    expect(parseLines(g.stdout).map((r) => (r as { advantage: number }).advantage)).toEqual(Array.from(gdpo(batch, { flavour: 'trl', componentWeights: [1, 0.5] }).advantages));
    const m = await rlAdv(['advantages', '--estimator-json', '{"name": "trl_grpo", "zero_variance": "mask"}', '--input', input]);
    const out = parseLines(m.stdout) as { advantage: number; dropped: boolean }[];
    const ours = normalized(batch, { ...normalizationPreset('trl_grpo').spec, zeroVariance: 'mask' });
    expect(out.map((r) => r.advantage)).toEqual(Array.from(ours.advantages));
    expect(out.map((r) => r.dropped)).toEqual([false, false, true, true, true]);
    const raw = await rlAdv(['advantages', '--estimator', 'rloo', '--singleton', 'raw', '--input', input]);
    expect(parseLines(raw.stdout).map((r) => (r as { advantage: number }).advantage)).toEqual(Array.from(rloo(batch, { singleton: 'raw' }).advantages));
  });

  it('refuses the running preset for one batch, and a bad option with its flag', async () => {
    const input = writeJsonl(tempDir(), 'in.jsonl', rows);
    const run = await rlAdv(['advantages', '--estimator', 'roll_running', '--input', input]);
    expect([run.code, run.stderr]).toEqual([2, 'rl-adv: --estimator roll_running: roll_running keeps state across training steps (a per-prompt value, or running moments); one batch has no history: use rl-adv serve with a "session" id\n']);
    const bad = await rlAdv(['advantages', '--estimator-json', '{"name": "normalized", "centre": "median"}', '--input', input]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/centre must be one of 'none', 'group', 'batch', 'running'/);
  });
});

describe('rl-adv serve', () => {
  it('takes reward_components, returns dropped, keeps roll_running per session and restores its checkpoint bit for bit', async () => {
    const rewards = [1, 0, 0.5, 0.25];
    const requests = [
      { id: 1, estimator: { name: 'gdpo', flavour: 'nemo' }, rewards, group_ids: [0, 0, 1, 1], reward_components: [[1, 0], [0, 1], [1, 1], [0, 0]] },
      { id: 2, estimator: 'nemo_grpo', rewards, group_ids: [0, 0, 1, 1] },
      { id: 3, estimator: 'roll_running', rewards, session: 's' },
      { id: 4, op: 'state_dict', session: 's' },
      { id: 5, estimator: 'roll_running', rewards: [0.2, 0.9], session: 's' },
    ];
    const run = await rlAdv(['serve'], { input: requests.map((r) => JSON.stringify(r)).join('\n') + '\n' });
    const responses = parseLines(run.stdout) as Record<string, unknown>[];
    expect(responses[0]).toMatchObject({ id: 1, estimator: 'gdpo', advantages: Array.from(gdpo({ rewards, groupIds: [0, 0, 1, 1], rewardComponents: [[1, 0], [0, 1], [1, 1], [0, 0]] }, { flavour: 'nemo' }).advantages) });
    expect(responses[1]).toMatchObject({ id: 2, estimator: 'nemo_grpo', dropped: [false, false, false, false] });
    const state = (responses[3] as { state: unknown }).state;
    const resumed = [
      { id: 6, op: 'load_state_dict', session: 't', estimator: 'roll_running', state },
      { id: 7, estimator: 'roll_running', rewards: [0.2, 0.9], session: 't' },
    ];
    const again = parseLines((await rlAdv(['serve'], { input: resumed.map((r) => JSON.stringify(r)).join('\n') + '\n' })).stdout) as Record<string, unknown>[];
    expect(again[0]).toMatchObject({ id: 6, loaded: true });
    expect(again[1]?.advantages).toEqual(responses[4]?.advantages);
  });
});
