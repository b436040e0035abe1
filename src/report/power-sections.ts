// "What this design can conclude": the report's power section, from summary.json's design_power and
// seed_design_power (docs/method.md sections 5.6 and 5.9).
import type { StudySummary } from '../study/summary.js';
import type { Block, ReportSection } from './blocks.js';
import { designPowerBlocks, seedDesignPowerBlocks } from './design-power.js';
import { powerFigure } from './sections.js';
import type { ChartInputs } from './study-sections.js';

function chart(charts: ChartInputs | undefined, render: () => Promise<string | null>): Block[] {
  return charts === undefined ? [] : [{ kind: 'chart', render: async () => (await render()) ?? '' }];
}

/**
 * Whether the run reached its eval: a single run keeps its evals in `eval`, a replicated one in each seed's arms
 * (`replicates[].arms[].accuracy`), and a decided run has one. A finished run with no discordant pair is then told
 * apart from one that stopped before the eval.
 */
export function evalReached(s: StudySummary): boolean {
  if (s.eval !== undefined || s.decision !== undefined || s.comparisons !== undefined) return true;
  return (s.replicates ?? []).some((r) => Object.values(r.arms).some((a) => a.accuracy !== undefined));
}

/** The section, or null when the run has no design power (no 0/1 criterion). */
export function designPowerSection(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const p = s.design_power;
  if (!p) return null;
  const [note, ...rest] = designPowerBlocks(p, evalReached(s));
  const power = charts?.power ?? p.power;
  // A replicated run decides across seeds: its own design's power first; the paired power is one seed's only.
  const seeds = (s.replicates?.length ?? 0) > 1;
  const oneSeed: Block = {
    kind: 'text',
    text: `**One seed's paired decision only** (its ${p.n} items, about that seed's two checkpoints; not the design this run decided with):`,
  };
  return {
    id: 'power',
    heading: seeds ? `What this design can conclude (${s.replicates?.length ?? 0} seeds)` : 'What this design can conclude',
    blocks: [
      ...(seeds && s.seed_design_power ? seedDesignPowerBlocks(s.seed_design_power) : []),
      ...(seeds ? [oneSeed] : []),
      ...(note ? [note] : []),
      ...chart(charts, async () => (power.length > 0 ? powerFigure(power, p.margin) : null)),
      ...rest,
    ],
  };
}

