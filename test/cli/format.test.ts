// The readable output's wording: "1 rollout", not "1 rollouts"; closest names for misspellings.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { plural } from '../../src/cli/format.js';
import { closestName, didYouMean, editDistance } from '../../src/cli/suggest.js';
import { rlAdv, tempDir, writeJsonl } from './run.js';

describe('plural', () => {
  it('is singular for exactly one, plural otherwise, with irregular plurals given', async () => {
    expect([plural(0, 'rollout'), plural(1, 'rollout'), plural(2, 'rollout')]).toEqual(['0 rollouts', '1 rollout', '2 rollouts']);
    expect([plural(1, 'criterion', 'criteria'), plural(3, 'criterion', 'criteria')]).toEqual(['1 criterion', '3 criteria']);
  });

  it('commands print one of a thing in the singular', async () => {
    const dir = tempDir();
    const corpus = join(dir, 'one.txt');
    writeFileSync(corpus, 'apples and pears\n');
    const fit = await rlAdv(['tfidf', 'fit', '--corpus', corpus, '--out', join(dir, 'v.json')]);
    expect(fit.stderr).toBe(`rl-adv: fitted on 1 document, 3 terms; saved to ${join(dir, 'v.json')}\n`);
    const input = writeJsonl(dir, 'one.jsonl', [{ reward: 1, group: 'q' }]);
    const out = join(dir, 'adv.jsonl');
    const advantages = await rlAdv(['advantages', '--estimator', 'group_mean', '--input', input, '--output', out]);
    expect(advantages.stderr).toBe(`rl-adv: wrote 1 advantage (group_mean) to ${out}\nrl-adv: 1 group (1 of one, 0 zero-variance), 100% of advantages exactly 0\n`);
    expect(readFileSync(out, 'utf8')).toMatch(/^\{"advantage":0,"baseline":1,/);
    const loo = await rlAdv(['advantages', '--estimator', 'loo_batch_mean', '--input', input]);
    expect(loo.stderr).toMatch(/field "reward": has 1 rollout; loo_batch_mean needs at least 2/);
  });
});

describe('closest names', () => {
  it('editDistance is Levenshtein', () => {
    expect([editDistance('', 'abc'), editDistance('kitten', 'sitting'), editDistance('abc', 'abc'), editDistance('ab', 'ba')]).toEqual([3, 3, 0, 2]);
  });

  it('suggests the nearest known name, and nothing when every name is far off', () => {
    const known = ['self_weight_max', 'executed_group_size_gs1', 'executed_group_size_grpo'];
    expect(closestName('self_weight_mx', known)).toBe('self_weight_max');
    expect(closestName('executed_group_size_gs2', known)).toBe('executed_group_size_gs1');
    expect(closestName('zzz', known)).toBeUndefined();
    expect(didYouMean('self_weigth_max', known)).toBe(' (did you mean "self_weight_max"?)');
    expect(didYouMean('completely_unrelated', known)).toBe('');
  });
});
