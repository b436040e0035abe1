// The replicated study's report sections: the decision across seeds beside each seed's own, and learning.
import { describe, expect, it } from 'vitest';
import { blockHtml, sectionMarkdown } from '../../src/report/blocks.js';
import { learningSection, seedDecisionSection, seedIntervalRows } from '../../src/report/seed-sections.js';
import { decideAcrossSeeds, parseDecisionRule, seedDecisionJson } from '../../src/stats/index.js';

const rule = parseDecisionRule({
  method: 'paired_exact_unconditional',
  alpha: 0.05,
  seed_method: 'seed_t',
  criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
});
const arm = (right: (i: number) => boolean) => Array.from({ length: 40 }, (_, i) => ({ item_id: i, correct: right(i) }));
const replicates = [0, 1, 2].map((seed) => ({ seed, treatment: arm((i) => (i + seed) % 3 !== 0), baseline: arm((i) => i % 2 === 0) }));
const d = seedDecisionJson(decideAcrossSeeds({ replicates, rule }));

describe('decision across seeds section', () => {
  it('puts every seed and then the across-seeds row in the forest', () => {
    const rows = seedIntervalRows(d);
    expect(rows.map((r) => r.label)).toEqual(['seed 0', 'seed 1', 'seed 2', 'across 3 seeds']);
    expect(rows[3]).toMatchObject({ estimate: d.estimate, lower: d.interval[0], upper: d.interval[1], pooled: true });
    expect(rows[0]?.lower).toBe(d.per_seed[0]?.decision.criteria[0]?.lower);
  });

  it('writes the verdict, the interval and a row per seed in markdown, and the chart in HTML', async () => {
    const section = seedDecisionSection(d, { treatment: 'gs1', baseline: 'grpo' }, true);
    const md = sectionMarkdown(section).join('\n');
    expect(md).toContain(`## Decision across seeds: ${d.verdict}`);
    expect(md).toContain(`[${d.interval[0].toFixed(4)}`);
    // Beside the verdict, the collapse rate 3 seeds cannot rule out (1 - 0.05^(1/3) = 0.63).
    expect(md).toContain('Collapse: 3 seeds cannot rule out a collapse rate up to 0.63 per run');
    expect(md.split('\n').filter((l) => /^\| [0-2] \|/.test(l))).toHaveLength(3);
    const html = (await Promise.all(section.blocks.map(blockHtml))).join('');
    expect(html).toContain('aria-label="Treatment minus baseline per seed and across seeds"');
    expect(sectionMarkdown(seedDecisionSection(d, { treatment: 'gs1', baseline: 'grpo' }, false)).join('\n')).toBe(md);
  });
});

describe('learning section', () => {
  const curves = [{ arm: 'grpo', seed: 0, rewardPerStep: [0.1, 0.2], curve: [{ step: 0, accuracy: 0.3 }, { step: 2, accuracy: 0.4 }] }];
  it('flags a verdict reached while no arm improved', () => {
    const s = learningSection(
      { curves, sliceItems: 100, startAccuracy: 0.3, changes: [{ arm: 'grpo', estimate: 0.01, interval: [-0.02, 0.04], improved: false, method: 'seed_t' }], noArmImproved: true, verdict: 'validated' },
      false,
    );
    expect(s.heading).toBe('Learning: NO ARM IMPROVED');
    expect(sectionMarkdown(s).join('\n')).toContain('the verdict (validated) stands, but it compares arms that did not learn measurably');
  });
  it('has no flag when an arm improved', () => {
    const s = learningSection(
      { curves, sliceItems: 100, startAccuracy: 0.3, changes: [{ arm: 'grpo', estimate: 0.1, interval: [0.05, 0.15], improved: true, method: 'seed_t' }], noArmImproved: false, verdict: 'validated' },
      false,
    );
    expect(s.heading).toBe('Learning');
    expect(sectionMarkdown(s).join('\n')).not.toContain('No arm improved');
  });
});

describe('the honest parts of the across-seeds section', () => {
  it('labels the level 1 - alpha/k, names the two SDs apart, and states a fallback and an outlying seed', () => {
    const two = parseDecisionRule({ ...rule, criteria: [rule.criteria[0], { ...rule.criteria[0], id: 'second' }] });
    const json = seedDecisionJson(decideAcrossSeeds({ replicates, rule: two }));
    const md = sectionMarkdown(seedDecisionSection(json, { treatment: 'gs1', baseline: 'grpo' }, false)).join('\n');
    expect(md).toContain('97.5% interval');
    expect(md).not.toContain('95% interval');
    expect(md).toContain('SD of the per-seed differences');
    expect(md).toContain('run-to-run SD');
    const flagged = { ...d, fallback: { rule: 'whole_range' as const, reason: 'no_variation' as const, text: 'no variance' }, outliers: [{ seed: 2, estimate: -0.14, score: 40, cutoff: 10.2 }] };
    const text = sectionMarkdown(seedDecisionSection(flagged, { treatment: 'gs1', baseline: 'grpo' }, false)).join('\n');
    expect(text).toContain('No interval: no variance');
    expect(text).toContain('seed 2 is an outlier');
  });
});
