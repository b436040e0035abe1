// The report's "Jobs" section, from the ledger RUN/jobs.jsonl alone: how many attempts ran where (a short table per
// node / GPU in both reports) and, in report.html, the timeline chart. A run without a ledger (the sim computed in
// the orchestrator's own process) has no such section, so its reports keep their bytes.
import type { LedgerLine } from '../study/executor/ledger.js';
import type { Block, ReportSection } from './blocks.js';
import { timelineChartSpec, timelineLane, timelineRows } from './charts/timeline.js';
import { renderChartSvg } from './charts/render.js';
import { figureHtml } from './html.js';

/** The per-lane table: attempts, their outcomes and the busy seconds. */
function laneTable(lines: readonly LedgerLine[]): Block {
  const lanes = new Map<string, LedgerLine[]>();
  for (const l of lines) lanes.set(timelineLane(l), [...(lanes.get(timelineLane(l)) ?? []), l]);
  const count = (ls: readonly LedgerLine[], outcome: LedgerLine['outcome']): string => String(ls.filter((l) => l.outcome === outcome).length);
  const rows = [...lanes].map(([lane, ls]) => {
    const busy = ls.reduce((s, l) => s + (Date.parse(l.end) - Date.parse(l.start)) / 1000, 0);
    return [lane, String(ls.length), count(ls, 'done'), count(ls, 'lost'), count(ls, 'failed'), count(ls, 'cancelled'), busy.toFixed(1)];
  });
  return { kind: 'table', header: ['node / GPU', 'attempts', 'done', 'lost', 'failed', 'cancelled', 'busy (s)'], rows, align: ['l', 'r', 'r', 'r', 'r', 'r', 'r'] };
}

/**
 * The Jobs section, or null when the run has no ledger.
 *
 * @param lines - RUN/jobs.jsonl's lines (`readLedger`).
 * @param charts - true for report.html (adds the timeline chart).
 * @example
 * ```ts
 * jobsSection(readLedger('runs/trl'), false)?.heading; // "Jobs"
 * ```
 */
export function jobsSection(lines: readonly LedgerLine[] | undefined, charts: boolean): ReportSection | null {
  if (lines === undefined || lines.length === 0) return null;
  const jobs = new Set(lines.map((l) => l.job)).size;
  const executors = [...new Set(lines.map((l) => l.executor))].join(', ');
  const retried = lines.filter((l) => l.outcome === 'lost').length;
  const t0 = Math.min(...lines.map((l) => Date.parse(l.start)));
  const t1 = Math.max(...lines.map((l) => Date.parse(l.end)));
  const text =
    `${lines.length} attempts of ${jobs} jobs (executor ${executors}) over ${((t1 - t0) / 1000).toFixed(1)} s of wall time` +
    `${retried > 0 ? `; ${retried} lost with their node and retried` : ''}. From \`jobs.jsonl\` (wall times: not a compared artifact).`;
  const chart: Block[] = charts
    ? [
        {
          kind: 'chart',
          render: async () =>
            figureHtml(
              await renderChartSvg(timelineChartSpec(timelineRows(lines)), 'Timeline of the jobs by node and GPU'),
              'Each bar is one attempt of a job, from its start to its end, on the node and GPU it ran on; its colour is the job’s kind. A faded bar ending in a cross did not finish (lost with its node and retried, failed, or cancelled).',
            ),
        },
      ]
    : [];
  return { id: 'jobs', heading: 'Jobs', blocks: [{ kind: 'text', text }, ...chart, laneTable(lines)] };
}
