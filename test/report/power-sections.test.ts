// "What this design can conclude" in the report (docs/method.md sections 5.6 and 5.9): where the discordance came from,
// and, for a K-arm study, every comparison's design.
import { describe, expect, it } from 'vitest';
import { sectionMarkdown } from '../../src/report/blocks.js';
import { designPowerSection } from '../../src/report/power-sections.js';
import { parseDecisionRule } from '../../src/stats/index.js';
import { studyDesignPower, studySeedDesignPower } from '../../src/study/design-power.js';
import type { StudySummary } from '../../src/study/summary.js';

const rule = parseDecisionRule({
  method: 'paired_exact_unconditional',
  alpha: 0.05,
  seed_method: 'seed_item_t',
  criteria: [{ id: 'primary', metric: 'accuracy', bounds: [0, 1], margin: -0.05, weights: { treatment: 1, baseline: -1 } }],
});
const arm = (accuracy?: number) => ({ advantage: 'group_mean', steps: 4, reward_per_step: [0.1], curve: null, ...(accuracy === undefined ? {} : { accuracy, n: 200 }) });

// D = 0 observed and no eval both give the assumed 0.2: one table serves every case (it takes seconds to compute).
const assumedPower = studyDesignPower(rule, 200, 0);

function markdown(s: Partial<StudySummary>): string {
  const section = designPowerSection(s as StudySummary, undefined);
  return section === null ? '' : sectionMarkdown(section).join('\n');
}

describe('where the discordance came from', () => {
  it('a replicated run that finished with no discordant pair says the arms agreed, never that it stopped before the eval', () => {
    // Every seed's arms agreed on every item: D = 0 observed, 0.2 assumed. A replicated run keeps its evals per seed
    // (summary.eval is absent), which the report took for "no eval".
    const s: Partial<StudySummary> = {
      replicates: [0, 1, 2].map((seed) => ({ seed, arms: { a: arm(0.5), b: arm(0.5) } })),
      design_power: assumedPower,
      seed_design_power: studySeedDesignPower(rule, 3, 200, 0),
    };
    const md = markdown(s);
    expect(md).toContain('assumed: the two arms agreed on every eval item');
    expect(md).not.toContain('stopped before the eval');
  });

  it('a replicated run that stopped before the eval says so', () => {
    const s: Partial<StudySummary> = { replicates: [0, 1].map((seed) => ({ seed, arms: { a: arm(), b: arm() } })), design_power: assumedPower };
    expect(markdown(s)).toContain('assumed: the run stopped before the eval');
  });

  it('a single run that finished with no discordant pair says the arms agreed', () => {
    const s: Partial<StudySummary> = { eval: { a: { accuracy: 0.5, n: 200, file: 'eval/a.jsonl' }, b: { accuracy: 0.5, n: 200, file: 'eval/b.jsonl' } }, design_power: assumedPower };
    expect(markdown(s)).toContain('assumed: the two arms agreed on every eval item');
  });
});

describe('a K-arm study: every comparison', () => {
  it("shows each comparison's design, not the first only: its seed-level and one seed's power at alpha / K", () => {
    const seedPower = studySeedDesignPower(rule, 3, 200, 0.2);
    const ids = [
      ['gs1_vs_grpo', 'gs1', 'grpo'],
      ['batchmean_vs_grpo', 'batchmean', 'grpo'],
      ['gs1_vs_batchmean', 'gs1', 'batchmean'],
    ] as const;
    const s: Partial<StudySummary> = {
      replicates: [0, 1, 2].map((seed) => ({ seed, arms: { gs1: arm(0.5), grpo: arm(0.5), batchmean: arm(0.5) } })),
      design_power: assumedPower,
      seed_design_power: seedPower,
      comparisons_design_power: ids.map(([id, treatment, reference]) => ({ id, treatment, reference, alpha: 0.05 / 3, design_power: assumedPower, seed_design_power: seedPower })),
    };
    const md = markdown(s);
    expect(md).toContain('## What this design can conclude (3 seeds): each of 3 comparisons');
    for (const [id, t, r] of ids) expect(md).toContain(`**${id}** (${t} − ${r}), planned at alpha 0.0167 (alpha/3`);
    // Each comparison carries its own seed-level design and its own one-seed table.
    expect(md.split('The design this run used: the decision across S = 3 seeds')).toHaveLength(4);
    expect(md.split("**One seed's paired decision only**")).toHaveLength(4);
    expect(md.split('| method | validates if observed >=')).toHaveLength(4);
  });
});
