// report.html of a sim run, opened in a real headless Chromium (Debian's, as .ci/run installs it): no console error,
// every chart present and drawn, a page that is not blank. The screenshot is kept and its path printed for CI's log.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { chromium } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { runStudyWithReports } from '../../src/report/write.js';
import { createSimBackend } from '../../src/study/sim/backend.js';
import { SIM_CLUSTERED_DEFAULTS } from '../../src/study/sim/world.js';
import { specPath } from '../helpers/paths.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
// CI installs Chromium, so there a missing browser is a failure; a developer without it is told how to get it.
if (!haveChromium && process.env.CI) throw new Error(`${CHROMIUM} not found: .ci/run installs Debian's chromium for this test`);
if (!haveChromium) console.warn(`browser test skipped: no ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);

/** Share of pixels that differ from the top-left (background) pixel by more than 24 in any channel. */
function nonBackgroundShare(png: PNG): number {
  const d = png.data;
  const [r0, g0, b0] = [d[0] as number, d[1] as number, d[2] as number];
  let differing = 0;
  for (let i = 0; i < d.length; i += 4) {
    if (Math.abs((d[i] as number) - r0) > 24 || Math.abs((d[i + 1] as number) - g0) > 24 || Math.abs((d[i + 2] as number) - b0) > 24) differing++;
  }
  return differing / (d.length / 4);
}

describe.skipIf(!haveChromium)('report.html in headless Chromium', () => {
  it('opens without console errors, shows every chart of a full sim run, and is not blank, in light and dark mode', async () => {
    const dir = path.join(mkdtempSync(path.join(tmpdir(), 'rl-adv-report-')), 'run');
    await runStudyWithReports({
      specPath,
      dir,
      backend: createSimBackend({ ...SIM_CLUSTERED_DEFAULTS, coupling: 0.9 }),
      questions: 'clustered',
      steps: 6,
      evalLimit: 300,
      calibrationBatches: 2000,
      calibrationBootstrap: 20,
    });
    // runStudy wrote it, as every study run does.
    const file = path.join(dir, 'report.html');

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, colorScheme: scheme });
        const problems: string[] = [];
        page.on('console', (m) => {
          if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
        });
        page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
        page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()}`));
        page.on('request', (r) => {
          if (!r.url().startsWith('file:')) problems.push(`network request: ${r.url()}`);
        });
        await page.goto(`file://${file}`);
        const charts = await page.locator('figure svg[role="img"]').evaluateAll((svgs) =>
          svgs.map((s) => ({ label: s.getAttribute('aria-label'), width: s.getBoundingClientRect().width, marks: s.querySelectorAll('[role="graphics-symbol"]').length })),
        );
        expect(charts.map((c) => c.label)).toEqual([
          'Mean reward per training step for each arm',
          'B_eff ratio of every estimator scored',
          'The activation gate, one strip per check',
          'Eval accuracy per arm',
          'The paired decision: interval for the difference against the margin',
          'What this design can conclude',
        ]);
        for (const c of charts) {
          expect(c.width).toBeGreaterThan(300);
          expect(c.marks).toBeGreaterThan(0);
        }
        expect(await page.locator('.banner').textContent()).toContain('SIMULATION');
        const shot = path.join(path.dirname(file), `report-${scheme}.png`);
        const png = PNG.sync.read(await page.screenshot({ path: shot, fullPage: true }));
        const share = nonBackgroundShare(png);
        console.log(`report.html screenshot (${scheme}): ${shot}; non-background pixel share ${share.toFixed(3)}`);
        expect(share).toBeGreaterThan(0.03);
        expect(problems).toEqual([]);
        await page.close();
      }
    } finally {
      await browser.close();
    }
  });
});
