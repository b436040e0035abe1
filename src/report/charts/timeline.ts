// Chart: the jobs' timeline from the ledger RUN/jobs.jsonl: one bar per attempt, from its start to its end, on the
// lane of the node and GPU it ran on, coloured by the job's kind; a lost, failed or cancelled attempt is drawn faded
// with a cross at its end.
import type { LedgerLine } from '../../study/executor/ledger.js';
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One attempt as the chart draws it. */
export interface TimelineRow {
  readonly job: string;
  readonly kind: string;
  /** `node` or `node / GPU 0,1`. */
  readonly lane: string;
  /** Seconds since the first attempt started. */
  readonly start: number;
  readonly end: number;
  readonly outcome: string;
  readonly attempt: number;
}

/**
 * The lane of an attempt: its node, and its GPUs when it had any.
 *
 * @example
 * ```ts
 * timelineLane({ node: 'gpu-3', gpu_ids: ['1'] }); // "gpu-3 / GPU 1"
 * ```
 */
export function timelineLane(line: Pick<LedgerLine, 'node' | 'gpu_ids'>): string {
  const node = line.node ?? '(not placed)';
  return line.gpu_ids.length === 0 ? node : `${node} / GPU ${line.gpu_ids.join(',')}`;
}

/**
 * The ledger's attempts as timeline rows, times in seconds since the first start (rounded to the millisecond).
 *
 * @example
 * ```ts
 * timelineRows(readLedger('runs/trl'))[0]; // { job: 'preflight', lane: 'vm', start: 0, end: 41.2, ... }
 * ```
 */
export function timelineRows(lines: readonly LedgerLine[]): TimelineRow[] {
  const t0 = Math.min(...lines.map((l) => Date.parse(l.start)));
  const at = (iso: string): number => Math.round(Date.parse(iso) - t0) / 1000;
  return lines.map((l) => ({ job: l.job, kind: l.kind, lane: timelineLane(l), start: at(l.start), end: at(l.end), outcome: l.outcome, attempt: l.attempt }));
}

/**
 * Vega-Lite spec of the timeline: x the wall time since the first job started, y the node / GPU lanes (in order of
 * first use), colour the job's kind; attempts that did not finish are faded and end in a cross.
 *
 * @param rows - from {@link timelineRows} (at least one).
 */
export function timelineChartSpec(rows: readonly TimelineRow[]): VegaLiteSpec {
  const lanes = [...new Set(rows.map((r) => r.lane))];
  const y = { field: 'lane', type: 'nominal', title: null, sort: lanes };
  const tooltip = [{ field: 'job' }, { field: 'kind' }, { field: 'lane' }, { field: 'attempt' }, { field: 'outcome' }, { field: 'start', format: '.1f' }, { field: 'end', format: '.1f' }];
  return {
    title: 'Jobs over time: which ran where and when (RUN/jobs.jsonl)',
    width: CHART_WIDTH,
    height: { step: 26 },
    data: { values: rows },
    layer: [
      {
        mark: { type: 'bar', cornerRadius: 2 },
        encoding: {
          y,
          x: { field: 'start', type: 'quantitative', title: 'Seconds since the first job started' },
          x2: { field: 'end' },
          color: { field: 'kind', type: 'nominal', title: 'kind' },
          opacity: { condition: { test: "datum.outcome === 'done'", value: 0.9 }, value: 0.35 },
          tooltip,
        },
      },
      {
        transform: [{ filter: "datum.outcome !== 'done'" }],
        mark: { type: 'point', shape: 'cross', size: 90, filled: true, color: '#c0392b' },
        encoding: { y, x: { field: 'end', type: 'quantitative' }, shape: { field: 'outcome', type: 'nominal', title: 'not finished' }, tooltip },
      },
    ],
  };
}
