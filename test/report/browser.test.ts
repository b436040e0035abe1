// report.html of a sim run, opened in a real headless Chromium (Debian's, as .ci/run installs it): no console error,
// every chart present and drawn, and the picture read as a researcher would: the power chart's verdict legend tells
// validated from failed, its margin line is inside the plot in red, 0 is labelled; gridlines are dimmer than the data
// in light and dark mode; the SIMULATION banner shows once. The screenshots are kept and their paths printed.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { chromium, type Page } from 'playwright-core';
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

type Rgb = [number, number, number];
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

const pixel = (png: PNG, x: number, y: number): Rgb => {
  const i = (Math.round(y) * png.width + Math.round(x)) * 4;
  return [png.data[i] as number, png.data[i + 1] as number, png.data[i + 2] as number];
};
/** Relative luminance (sRGB coefficients, on 0-255 values). */
const luminance = ([r, g, b]: Rgb): number => 0.2126 * r + 0.7152 * g + 0.0722 * b;
const differs = (a: Rgb, b: Rgb): boolean => Math.max(Math.abs(a[0] - b[0]), Math.abs(a[1] - b[1]), Math.abs(a[2] - b[2])) > 24;

/** Share of pixels that differ from the top-left (background) pixel by more than 24 in any channel. */
function nonBackgroundShare(png: PNG): number {
  const background = pixel(png, 0, 0);
  let n = 0;
  for (let y = 0; y < png.height; y++) for (let x = 0; x < png.width; x++) if (differs(pixel(png, x, y), background)) n++;
  return n / (png.width * png.height);
}

/** A screenshot of a box of the page (CSS pixels, device scale 1). */
async function clip(page: Page, box: Box): Promise<PNG> {
  return PNG.sync.read(await page.screenshot({ fullPage: true, clip: { x: Math.floor(box.x), y: Math.floor(box.y), width: Math.ceil(box.width), height: Math.ceil(box.height) } }));
}

/** Boxes of the elements matching `selector`, in page coordinates. */
async function boxes(page: Page, selector: string): Promise<Box[]> {
  return page.locator(selector).evaluateAll((els) =>
    els.map((e) => {
      const r = e.getBoundingClientRect();
      const view = (globalThis as unknown as { scrollX: number; scrollY: number });
      return { x: r.x + view.scrollX, y: r.y + view.scrollY, width: r.width, height: r.height };
    }),
  );
}

/** Pixels that differ from the clip's top-left (background) pixel: the ink of a legend symbol. */
function ink(png: PNG): number {
  return nonBackgroundShare(png) * png.width * png.height;
}

/**
 * Luminance contrast with the chart's background of (a) the horizontal gridlines and (b) the data points of the
 * reward chart: each measured on the page's own pixels.
 */
async function gridAndDataContrast(page: Page): Promise<{ grid: number; data: number }> {
  const figure = page.locator('#arms figure').first();
  await figure.scrollIntoViewIfNeeded();
  const fig = (await boxes(page, '#arms figure'))[0] as Box;
  const png = PNG.sync.read(await page.screenshot({ fullPage: true }));
  const grids = (await boxes(page, '#arms figure svg .role-axis-grid line')).filter((b) => b.height < 2 && b.width > 100);
  const points = await boxes(page, '#arms figure svg path[aria-roledescription="point"]');
  const background = pixel(png, fig.x + 4, fig.y + 4);
  // Gridline: the median contrast along the middle half of each horizontal line.
  const along: number[] = [];
  for (const g of grids) {
    // The line may fall on either pixel row next to its box's centre: the strongest of three rows.
    for (let x = g.x + g.width / 4; x < g.x + (3 * g.width) / 4; x += 7) {
      along.push(Math.max(...[-1, 0, 1].map((dy) => Math.abs(luminance(pixel(png, x, g.y + g.height / 2 + dy)) - luminance(background)))));
    }
  }
  along.sort((a, b) => a - b);
  const data = points.map((p) => Math.abs(luminance(pixel(png, p.x + p.width / 2, p.y + p.height / 2)) - luminance(background)));
  data.sort((a, b) => a - b);
  return { grid: along[Math.floor(along.length / 2)] as number, data: data[Math.floor(data.length / 2)] as number };
}

describe.skipIf(!haveChromium)('report.html in headless Chromium', () => {
  it('opens without console errors and reads correctly, in light and dark mode', async () => {
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
      tuneKernel: true,
      tuningTasks: 200,
      tuningBatches: 200,
    });
    // runStudy wrote it, as every study run does.
    const file = path.join(dir, 'report.html');

    const browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    try {
      const contrast: Record<string, { grid: number; data: number }> = {};
      for (const scheme of ['light', 'dark'] as const) {
        const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, colorScheme: scheme, deviceScaleFactor: 1 });
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
          'B_eff ratio of every estimator scored',
          'Kernel tuning: tuning vs held-out ratio per family',
          'Mean reward per training step for each arm',
          'The activation gate, one strip per check',
          'Mean reward per training step for each arm',
          'Eval accuracy per arm',
          'The paired decision: interval for the difference against the margin',
          'What this design can conclude',
        ]);
        for (const c of charts) {
          expect(c.width).toBeGreaterThan(300);
          expect(c.marks).toBeGreaterThan(0);
        }
        // The banner once at the top; a short mark on every section heading.
        expect(await page.locator('.banner').count()).toBe(1);
        expect(await page.locator('.banner').textContent()).toContain('SIMULATION');
        expect(await page.locator('h2 .simmark').count()).toBe(await page.locator('section').count());

        // The power chart: the verdict legend's two symbols are different pictures (solid vs dashed).
        await page.locator('#power figure').scrollIntoViewIfNeeded();
        const verdict = await boxes(page, '#power .role-legend[aria-label*="Verdict"] .role-legend-symbol path');
        expect(verdict).toHaveLength(2);
        const [solid, dashed] = await Promise.all(verdict.map((b) => clip(page, { x: b.x - 2, y: b.y - 2, width: b.width + 4, height: b.height + 4 })));
        expect(ink(dashed as PNG)).toBeLessThan(0.85 * ink(solid as PNG));
        // The margin: a red line inside the plot (not on its left edge), and 0 is an x-axis label.
        const plot = (await boxes(page, '#power svg .role-axis[aria-label^="X-axis"] .role-axis-domain line'))[0] as Box;
        const margin = (await boxes(page, '#power svg line[stroke="#d9534f"], #power svg path[stroke="#d9534f"]'))[0] as Box;
        expect(margin.x).toBeGreaterThan(plot.x + 10);
        const full = PNG.sync.read(await page.screenshot({ fullPage: true }));
        const red = [0.3, 0.5, 0.7].map((f) => pixel(full, margin.x + margin.width / 2, margin.y + f * margin.height)).filter(([r, g, b]) => r > g + 60 && r > b + 60);
        expect(red.length).toBeGreaterThan(0);
        const xLabels = await page.locator('#power svg .role-axis[aria-label^="X-axis"] .role-axis-label text').allTextContents();
        expect(xLabels).toContain('0');
        expect(await page.locator('#power figcaption').textContent()).toMatch(/solid line, filled circles.*dashed line, hollow triangles/);
        // The kernel chart is on a log axis (its intervals cannot leave (0, inf)); the reward chart explains rewards below 0.
        expect(await page.locator('#tuning svg .role-axis[aria-label^="X-axis"]').getAttribute('aria-label')).toMatch(/log scale/);
        expect(await page.locator('#arms figcaption').textContent()).toContain('−0.1');

        contrast[scheme] = await gridAndDataContrast(page);
        const shot = path.join(path.dirname(file), `report-${scheme}.png`);
        const png = PNG.sync.read(await page.screenshot({ path: shot, fullPage: true }));
        const share = nonBackgroundShare(png);
        console.log(`report.html screenshot (${scheme}): ${shot}; non-background pixel share ${share.toFixed(3)}; gridline/data contrast ${JSON.stringify(contrast[scheme])}`);
        expect(share).toBeGreaterThan(0.03);
        expect(problems).toEqual([]);
        await page.close();
      }
      // Gridlines recede behind the data: in both schemes they are visible, with a contrast well below the data's.
      for (const scheme of ['light', 'dark'] as const) {
        const c = contrast[scheme] as { grid: number; data: number };
        expect([scheme, c.grid > 1, c.grid < 0.5 * c.data]).toEqual([scheme, true, true]);
      }
    } finally {
      await browser.close();
    }
  }, 180_000);
});
