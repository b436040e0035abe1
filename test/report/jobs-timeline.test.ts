// The report's Jobs section from the ledger RUN/jobs.jsonl: the timeline chart (one bar per attempt on its node / GPU
// lane, a cross at the end of an attempt that did not finish) in report.html, the per-lane table in report.md, and
// no section at all for a run without a ledger.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { timelineChartSpec, timelineRows } from '../../src/report/charts/timeline.js';
import { renderChartSvg } from '../../src/report/charts/render.js';
import { runStudyWithReports, writeStudyReports } from '../../src/report/write.js';
import { appendLedger, type LedgerLine } from '../../src/study/executor/ledger.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { specPath } from '../helpers/paths.js';
import { axisTitles, markLabels } from './svg.js';

const at = (s: number): string => new Date(Date.UTC(2026, 0, 1) + s * 1000).toISOString();

function line(job: string, kind: LedgerLine['kind'], node: string, gpu: string, start: number, end: number, outcome: LedgerLine['outcome'], attempt = 1): LedgerLine {
  return { job, kind, arm: 'grpo_g8', seed: 1, node, gpu_ids: [gpu], attempt, start: at(start), end: at(end), outcome, executor: 'ray' };
}

const LEDGER: LedgerLine[] = [
  line('train/full/grpo_g8/seed-1', 'train', 'node-a', '0', 10, 70, 'lost'),
  line('train/full/gs1/seed-1', 'train', 'node-b', '0', 10, 100, 'done'),
  line('train/full/grpo_g8/seed-1', 'train', 'node-b', '0', 100, 160, 'done', 2),
  line('eval/full/gs1/seed-1', 'eval', 'node-a', '0', 101, 130, 'done'),
];

describe('the jobs timeline', () => {
  it('places each attempt on its lane from its start to its end, in seconds since the first start', () => {
    const rows = timelineRows(LEDGER);
    expect(rows.map((r) => [r.lane, r.start, r.end, r.outcome])).toEqual([
      ['node-a / GPU 0', 0, 60, 'lost'],
      ['node-b / GPU 0', 0, 90, 'done'],
      ['node-b / GPU 0', 90, 150, 'done'],
      ['node-a / GPU 0', 91, 120, 'done'],
    ]);
  });

  it('draws one bar per attempt and a cross for the lost one, with a time axis', async () => {
    const svg = await renderChartSvg(timelineChartSpec(timelineRows(LEDGER)), 'timeline');
    const bars = markLabels(svg, 'bar');
    expect(bars).toHaveLength(4);
    expect(bars.filter((b) => b.includes('outcome: lost'))).toHaveLength(1);
    expect(markLabels(svg, 'point')).toHaveLength(1);
    expect(axisTitles(svg)).toContain('Seconds since the first job started');
  });

  it("adds the Jobs section to report.md (a table per node / GPU) and report.html (the timeline); none without a ledger", async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'rl-adv-jobs-report-')), 'run');
    await runStudyWithReports({ specPath, dir, backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }), questions: 'clustered', steps: 2, evalLimit: 10, calibrationBatches: 100, calibrationBootstrap: 20 });
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).not.toContain('## Jobs');
    for (const l of LEDGER) appendLedger(dir, l);
    await writeStudyReports(dir);
    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(md).toContain('## Jobs\n\n4 attempts of 3 jobs (executor ray) over 150.0 s of wall time; 1 lost with their node and retried.');
    expect(md).toContain('| node / GPU | attempts | done | lost | failed | cancelled | busy (s) |');
    expect(md).toContain('| node-a / GPU 0 | 2 | 1 | 1 | 0 | 0 | 89.0 |');
    expect(md).toContain('| node-b / GPU 0 | 2 | 2 | 0 | 0 | 0 | 150.0 |');
    const html = readFileSync(path.join(dir, 'report.html'), 'utf8');
    expect(html).toContain('aria-label="Timeline of the jobs by node and GPU"');
    expect(html).toContain('jobs.jsonl');
  });
});
