// Vega-Lite specs compiled to standalone SVG in Node: headless (no canvas, no DOM), so a report needs no browser
// to be written and opens offline. vega and vega-lite are loaded on first use, so importing the package stays cheap.
import { RlAdvantagesError } from '../../errors.js';

/** A Vega-Lite specification (the JSON of https://vega.github.io/schema/vega-lite/v6.json). */
export type VegaLiteSpec = Record<string, unknown>;

/** Width of a chart's plotting area in CSS pixels, shared by every chart so a page reads as one. */
export const CHART_WIDTH = 560;

/**
 * The look every chart shares: a transparent background (the page's CSS colours text and axes for light and dark
 * mode), system fonts, and axis titles that wrap rather than overflow.
 */
const CONFIG = {
  background: null,
  font: 'system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif',
  view: { stroke: null },
  // Mid-tone marks read on the light and the dark page alike (vega's default rule is black).
  rule: { color: '#5b8cc6' },
  axis: { labelFontSize: 11, titleFontSize: 12, titleFontWeight: 600, gridOpacity: 0.35, labelLimit: 260 },
  legend: { labelFontSize: 11, titleFontSize: 12, orient: 'bottom', labelLimit: 320 },
  title: { fontSize: 13, anchor: 'start', fontWeight: 600 },
} as const;

/**
 * Compiles a Vega-Lite spec and renders it to an SVG string, with the shared look (`CHART_WIDTH`, fonts,
 * transparent background). The SVG carries `role="img"` and an `aria-label` with `description`, so a screen reader
 * (and a test) can tell the charts apart.
 *
 * @param spec - a Vega-Lite spec; `config` keys it sets override the shared ones.
 * @param description - a one-line description of what the chart shows.
 * @returns the `<svg>` element as text, ready to inline in HTML.
 * @throws `RlAdvantagesError` (code `chart_failed`) if vega-lite rejects the spec or vega fails to render it.
 * @example
 * ```ts
 * const svg = await renderChartSvg({ mark: 'point', data: { values: [{ x: 1, y: 2 }] },
 *   encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'y', type: 'quantitative' } } }, 'one point');
 * svg.startsWith('<svg'); // true
 * ```
 */
export async function renderChartSvg(spec: VegaLiteSpec, description: string): Promise<string> {
  const [vega, vegaLite] = await Promise.all([import('vega'), import('vega-lite')]);
  const userConfig = (spec.config ?? {}) as Record<string, unknown>;
  const full = { ...spec, config: { ...CONFIG, ...userConfig } };
  let svg: string;
  try {
    const compiled = vegaLite.compile(full as unknown as Parameters<typeof vegaLite.compile>[0]).spec;
    const view = new vega.View(vega.parse(compiled), { renderer: 'none' });
    svg = await view.toSVG();
    view.finalize();
  } catch (error) {
    throw new RlAdvantagesError(`chart "${description}" could not be rendered: ${(error as Error).message}`, { code: 'chart_failed' });
  }
  const label = escapeXml(description);
  return svg.replace(/^<svg /, `<svg role="img" aria-label="${label}" `).replace(/(<svg[^>]*>)/, `$1<title>${label}</title>`);
}

/** Escapes the five XML special characters, for text placed inside SVG or HTML. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}
