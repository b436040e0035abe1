// report.md and report.html come from one list of sections (src/report/study-sections.ts): the same headings in the
// same order, and every table row and sentence of report.md is in report.html (charts are report.html's only).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runStudyWithReports } from '../../src/report/write.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { specPath } from '../helpers/paths.js';

const runs: Record<string, string> = {};

beforeAll(async () => {
  const root = mkdtempSync(path.join(tmpdir(), 'rl-adv-report-sections-'));
  const quick = { calibrationBatches: 500, calibrationBootstrap: 0, questions: 'clustered' as const };
  runs.failed = path.join(root, 'failed');
  runs.decided = path.join(root, 'decided');
  await runStudyWithReports({ specPath, dir: runs.failed, backend: createSimBackend(SIM_CLUSTERED_DEFAULTS), ...quick });
  await runStudyWithReports({ specPath, dir: runs.decided, backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }), steps: 3, evalLimit: 100, ...quick });
}, 120_000);

const unescape = (html: string): string =>
  html
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The markdown's section headings and, per section, its table cells and sentences as plain text. */
function markdownSections(md: string): { heading: string; texts: string[] }[] {
  return md
    .split(/^## /m)
    .slice(1)
    .map((part) => {
      const [heading, ...lines] = part.split('\n');
      const texts = lines
        .filter((l) => l.trim() !== '' && !/^\| ?-{3}/.test(l) && !/^\|( -{3}:?|-{3}:? )/.test(l) && !l.startsWith('_All figures'))
        .flatMap((l) => (l.startsWith('|') ? l.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|')).filter((c) => c !== '' && !/^-{3}:?$/.test(c)) : [l.replace(/^- /, '')]))
        .map((t) => t.replace(/`/g, '').replace(/\*\*/g, ''));
      return { heading: heading as string, texts };
    });
}

describe.each(['failed', 'decided'])('the %s run: report.md and report.html', (name) => {
  it('carry the same sections, in the same order, and every row and sentence of report.md is in report.html', () => {
    const md = readFileSync(path.join(runs[name] as string, 'report.md'), 'utf8');
    const html = readFileSync(path.join(runs[name] as string, 'report.html'), 'utf8');
    const mdSections = markdownSections(md);
    const htmlHeadings = [...html.matchAll(/<h2>(.*?)(?: <span class="simmark"[^>]*>SIMULATION<\/span>)?<\/h2>/g)].map((m) => unescape(m[1] as string));
    expect(htmlHeadings).toEqual(mdSections.map((s) => s.heading));
    for (const section of mdSections) {
      const id = [...html.matchAll(/<section id="([^"]+)">\n<h2>(.*?)<\/h2>/g)].find((m) => unescape(m[2] as string).startsWith(section.heading))?.[1];
      const body = unescape(html.split(`<section id="${id}">`)[1]?.split('</section>')[0] ?? '');
      for (const text of section.texts) expect([section.heading, body.includes(text)]).toEqual([section.heading, true]);
    }
  });
});

describe('the sections the two reports used to differ on', () => {
  it('report.html has the phases table, the pilot accuracy table with why the accuracies are equal, and the fallback row', () => {
    const html = readFileSync(path.join(runs.failed as string, 'report.html'), 'utf8');
    expect(html).toMatch(/<h2>Phases/);
    expect(html).toMatch(/<th>phase<\/th><th>status<\/th><th class="num">wall time \(s\)<\/th><th>result<\/th>/);
    expect(html).toMatch(/<h2>Pilot/);
    expect(html).toMatch(/<th>policy<\/th><th class="num">accuracy<\/th>/);
    const md = readFileSync(path.join(runs.failed as string, 'report.md'), 'utf8');
    // The fallback's figures: a row of the calibration table in both.
    expect(md).toMatch(/^\| length_bucket_loo \(fallback\) \| n\/a \| \d\.\d+ \| n\/a \| (\[|n\/a)/m);
    expect(html).toMatch(/<td>length_bucket_loo \(fallback\)<\/td><td class="num">n\/a<\/td>/);
    if (md.includes('Every pilot accuracy is the same')) expect(html).toContain('Every pilot accuracy is the same');
  });

  it('the SIMULATION banner is once at the top; each section heading carries a short mark', () => {
    const html = readFileSync(path.join(runs.decided as string, 'report.html'), 'utf8');
    expect(html.match(/class="banner"/g)).toHaveLength(1);
    expect(html.match(/SIMULATION: these figures come from/g)).toHaveLength(1);
    expect(html.match(/<section /g)?.length).toBe(html.match(/class="simmark"/g)?.length);
  });
});
