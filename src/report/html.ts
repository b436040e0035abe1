// A self-contained HTML page: inline CSS and SVG only, no script and no network, readable in light and dark mode and
// printable, so a report opens offline and travels as one e-mail attachment.
import { escapeXml } from './charts/render.js';

/** One section of a page: a heading and its body, already HTML (charts, tables, paragraphs). */
export interface HtmlSection {
  readonly id: string;
  readonly heading: string;
  readonly body: string;
}

/** What a page holds. */
export interface HtmlPage {
  readonly title: string;
  /** Shown under the title, e.g. what was run; plain text. */
  readonly subtitle?: string;
  /**
   * When set, a banner at the top says that the figures come from a simulation (plain text), and every section's
   * heading carries a short SIMULATION mark.
   */
  readonly simulationBanner?: string;
  readonly sections: readonly HtmlSection[];
  /** Plain-text footer lines (provenance: version, spec hash, files read). */
  readonly footer?: readonly string[];
}

const CSS = `
:root { color-scheme: light dark; --fg: #1d232a; --bg: #ffffff; --muted: #5b6670; --grid: #d5dadf; --chart-grid: #e3e7eb; --card: #f6f8fa;
  --warn-bg: #fff4d6; --warn-fg: #6b4a00; --pass: #1e8449; --fail: #c0392b; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e9ec; --bg: #15191d; --muted: #a5b0ba; --grid: #3a4249; --chart-grid: #262c31;
  --card: #1d2328; --warn-bg: #3d3113; --warn-fg: #f5d77a; --pass: #58d68d; --fail: #ec7063; } }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 920px; padding: 24px 20px 48px; background: var(--bg); color: var(--fg);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
h1 { font-size: 1.5em; margin: 0 0 4px; } h2 { font-size: 1.2em; margin: 28px 0 8px; border-bottom: 1px solid var(--grid); }
.subtitle, .muted, footer { color: var(--muted); }
.banner { background: var(--warn-bg); color: var(--warn-fg); border: 1px solid currentColor; border-radius: 6px;
  padding: 8px 12px; margin: 12px 0; font-weight: 600; }
.simmark { background: var(--warn-bg); color: var(--warn-fg); border: 1px solid currentColor; border-radius: 4px; font-size: 0.6em;
  font-weight: 600; padding: 1px 6px; margin-left: 8px; vertical-align: middle; letter-spacing: 0.04em; }
figure { margin: 8px 0 16px; padding: 8px; background: var(--card); border-radius: 6px; overflow-x: auto; }
figure svg { display: block; max-width: 100%; height: auto; }
figure svg text { fill: var(--fg); }
figure svg .role-axis-domain :is(path, line), figure svg .role-axis-tick :is(path, line) { stroke: var(--muted); }
/* Gridlines recede behind the data in both schemes (vega draws them as <line> in #ddd, bright on a dark page). */
figure svg .role-axis-grid :is(path, line) { stroke: var(--chart-grid); stroke-opacity: 1; }
figcaption { font-size: 0.85em; color: var(--muted); margin-top: 4px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 0.92em; }
th, td { border: 1px solid var(--grid); padding: 4px 8px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: var(--pass); font-weight: 600; } .fail { color: var(--fail); font-weight: 600; }
code { font-size: 0.92em; overflow-wrap: anywhere; }
@media print { :root { --fg: #000; --bg: #fff; --muted: #444; --grid: #bbb; --chart-grid: #ddd; --card: #fff; --warn-bg: #fff; --warn-fg: #000; }
  body { max-width: none; padding: 0; font-size: 11pt; } figure, table { break-inside: avoid; } h2 { break-after: avoid; } }
`;

/** Escapes text for HTML element content and attribute values. */
export const escapeHtml = escapeXml;

/**
 * A figure: an inline SVG chart with a caption.
 *
 * @param svg - the chart, from `renderChartSvg`.
 * @param caption - plain text saying how to read it.
 */
export function figureHtml(svg: string, caption: string): string {
  return `<figure>${svg}<figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

/**
 * A table with a header row; cells are plain text (escaped) unless given as `{ html }`; numeric columns align right.
 *
 * @param header - the column titles.
 * @param rows - the cells, one array per row, each as long as `header`.
 * @param numeric - indices of right-aligned columns.
 */
export function tableHtml(
  header: readonly string[],
  rows: readonly (readonly (string | { readonly html: string })[])[],
  numeric: readonly number[] = [],
): string {
  const cls = (i: number): string => (numeric.includes(i) ? ' class="num"' : '');
  const cell = (c: string | { readonly html: string }): string => (typeof c === 'string' ? escapeHtml(c) : c.html);
  const head = header.map((h, i) => `<th${cls(i)}>${escapeHtml(h)}</th>`).join('');
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${cls(i)}>${cell(c)}</td>`).join('')}</tr>`).join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

/**
 * Renders a whole page as one HTML document (UTF-8, inline CSS, no script, no external reference).
 *
 * @example
 * ```ts
 * const html = renderHtmlPage({ title: 'B_eff calibration', sections: [{ id: 'beff', heading: 'Ratios', body: '<p>…</p>' }] });
 * html.startsWith('<!DOCTYPE html>'); // true
 * ```
 */
export function renderHtmlPage(page: HtmlPage): string {
  const sim = page.simulationBanner;
  const mark = sim ? ' <span class="simmark" title="figures from the simulated backend: see the banner at the top">SIMULATION</span>' : '';
  // A section whose heading is the page's title (a one-chart page) does not repeat it.
  const heading = (s: HtmlSection): string => (s.heading === page.title ? '' : `<h2>${escapeHtml(s.heading)}${mark}</h2>\n`);
  const sections = page.sections.map((s) => `<section id="${escapeHtml(s.id)}">\n${heading(s)}${s.body}\n</section>`);
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(page.title)}</title>`,
    `<style>${CSS}</style>`,
    '</head>',
    '<body>',
    `<h1>${escapeHtml(page.title)}</h1>`,
    page.subtitle ? `<p class="subtitle">${escapeHtml(page.subtitle)}</p>` : '',
    sim ? `<div class="banner" role="note">${escapeHtml(sim)}</div>` : '',
    ...sections,
    page.footer && page.footer.length > 0 ? `<footer>${page.footer.map((l) => `<div>${escapeHtml(l)}</div>`).join('')}</footer>` : '',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
