// Chart 3: the activation gate, one strip per check: the allowed range shaded, the measured value marked pass/fail.
import { formatFigure } from '../../internal/figures.js';
import { paddedDomain } from './domain.js';
import { CHART_WIDTH, type VegaLiteSpec } from './render.js';

/** One gate check as `gateJson` writes it (summary.json `gate.checks[]`). */
export interface GateCheckRow {
  readonly metric: string;
  readonly value: number | null;
  readonly min: number | null;
  readonly max: number | null;
  /** `pass`, `fail` or `missing`. */
  readonly status: string;
}

/** The x range a strip shows: the bounds and the value, padded by 10% of their span (or 0.5 for a single point). */
export function gateStripDomain(check: GateCheckRow): [number, number] {
  return paddedDomain([check.min, check.max, check.value], 0.1, 0.5);
}

function strip(check: GateCheckRow): VegaLiteSpec {
  const [lo, hi] = gateStripDomain(check);
  const band = { from: check.min ?? lo, to: check.max ?? hi };
  const x = { type: 'quantitative', scale: { domain: [lo, hi], nice: false, zero: false }, title: null };
  const verdict = check.status === 'pass' ? 'PASS' : check.status === 'fail' ? 'FAIL' : 'MISSING';
  const bounds = [check.min !== null ? `min ${check.min}` : null, check.max !== null ? `max ${check.max}` : null].filter(Boolean).join(', ');
  const layers: VegaLiteSpec[] = [
    {
      data: { values: [band] },
      mark: { type: 'rect', color: '#27ae60', opacity: 0.18 },
      encoding: { x: { ...x, field: 'from' }, x2: { field: 'to' } },
    },
  ];
  if (check.value !== null) {
    layers.push({
      data: { values: [{ value: check.value, status: check.status }] },
      mark: { type: 'point', filled: true, size: 110, shape: check.status === 'pass' ? 'circle' : 'cross' },
      encoding: {
        x: { ...x, field: 'value' },
        color: { value: check.status === 'pass' ? '#27ae60' : '#c0392b' },
        tooltip: [{ field: 'value', format: '.4f' }],
      },
    });
  }
  return {
    title: { text: `${verdict}  ${check.metric}`, subtitle: `value ${check.value === null ? 'missing' : formatFigure(check.value)}; allowed ${bounds || 'any'}` },
    width: CHART_WIDTH,
    height: 26,
    layer: layers,
  };
}


/**
 * Vega-Lite spec of chart 3: one strip per gate check, each on its own scale (the checks measure different things),
 * with the allowed range [min, max] shaded green and the measured value as a green dot (pass) or a red cross (fail);
 * a missing metric shows no mark and says MISSING in its title.
 *
 * @param checks - the gate's checks in the spec's order (at least one).
 */
export function gateChartSpec(checks: readonly GateCheckRow[]): VegaLiteSpec {
  return { vconcat: checks.map(strip), spacing: 14 };
}
