// "What this design can conclude": the report's power section, from summary.json's design_power and
// seed_design_power (docs/method.md sections 5.6 and 5.9).
import { formatFigure } from '../internal/figures.js';
import type { StudySummary } from '../study/summary.js';
import type { Block, ReportSection } from './blocks.js';
import { designPowerBlocks, seedDesignPowerBlocks } from './design-power.js';
import { powerFigure } from './sections.js';
import type { PowerRow } from './charts/power.js';

/** What this section's chart reads beyond summary.json (the study's ChartInputs; absent: no chart, report.md). */
type ChartInputs = { readonly power?: readonly PowerRow[] };

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

/** One seed's paired power, labelled so when the run decided across seeds. */
function oneSeedLabel(n: number): Block {
  return { kind: 'text', text: `**One seed's paired decision only** (its ${n} items, about that seed's two checkpoints; not the design this run decided with):` };
}

/** Every comparison's design after the first's (K-arm studies): its seed-level power, then one seed's paired power. */
function otherComparisons(s: StudySummary, seeds: boolean): Block[] {
  const list = s.comparisons_design_power ?? [];
  return list.slice(1).flatMap((c): Block[] => {
    const p = c.design_power;
    const head: Block = { kind: 'text', text: `**${c.id}** (${c.treatment} − ${c.reference}), planned at alpha ${formatFigure(c.alpha)} (alpha/${list.length}, Holm's first round: a lower bound of its power):` };
    if (!p) return [head, { kind: 'text', text: 'no 0/1 criterion: no power to show.' }];
    return [head, ...(seeds && c.seed_design_power ? seedDesignPowerBlocks(c.seed_design_power) : []), ...(seeds ? [oneSeedLabel(p.n)] : []), ...designPowerBlocks(p, evalReached(s))];
  });
}

/** The section, or null when the run has no design power (no 0/1 criterion). */
export function designPowerSection(s: StudySummary, charts: ChartInputs | undefined): ReportSection | null {
  const p = s.design_power;
  if (!p) return null;
  const [note, ...rest] = designPowerBlocks(p, evalReached(s));
  const power = charts?.power ?? p.power;
  // A replicated run decides across seeds: its own design's power first; the paired power is one seed's only.
  const seeds = (s.replicates?.length ?? 0) > 1;
  // A K-arm study: every comparison's design, the first's (with the chart) and then the others'.
  const list = s.comparisons_design_power ?? [];
  const first = list[0];
  const firstHead: Block[] =
    list.length > 1 && first !== undefined
      ? [{ kind: 'text', text: `**${first.id}** (${first.treatment} − ${first.reference}), planned at alpha ${formatFigure(first.alpha)} (alpha/${list.length}, Holm's first round: a lower bound of its power):` }]
      : [];
  return {
    id: 'power',
    heading: `What this design can conclude${seeds ? ` (${s.replicates?.length ?? 0} seeds)` : ''}${list.length > 1 ? `: each of ${list.length} comparisons` : ''}`,
    blocks: [
      ...firstHead,
      ...(seeds && s.seed_design_power ? seedDesignPowerBlocks(s.seed_design_power) : []),
      ...(seeds ? [oneSeedLabel(p.n)] : []),
      ...(note ? [note] : []),
      ...chart(charts, async () => (power.length > 0 ? powerFigure(power, p.margin) : null)),
      ...rest,
      ...otherComparisons(s, seeds),
    ],
  };
}
