// The charts, read back from their SVG: marks present, one point per step, axis titles, the gate's bar.
import { describe, expect, it, vi } from 'vitest';
import { accuracyChartSpec, pairedTable, wilsonInterval } from '../../src/report/charts/accuracy.js';
import { beffChartSpec } from '../../src/report/charts/beff.js';
import { decisionChartSpec, decisionDomain } from '../../src/report/charts/decision.js';
import { paddedDomain } from '../../src/report/charts/domain.js';
import { gateChartSpec } from '../../src/report/charts/gate.js';
import { kernelChartSpec } from '../../src/report/charts/kernel.js';
import { powerChartSpec } from '../../src/report/charts/power.js';
import { renderChartSvg } from '../../src/report/charts/render.js';
import { rewardChartSpec, rewardPoints } from '../../src/report/charts/reward.js';
import { axisTitles, markLabels, texts } from './svg.js';

describe('reward per step', () => {
  it('running means are the averages of steps 1..s', () => {
    const points = rewardPoints([{ arm: 'a', phase: 'full', rewardPerStep: [1, 0, 0.5, 0.5] }]);
    expect(points.map((p) => p.runningMean)).toEqual([1, 0.5, 0.5, 0.5]);
    expect(points.map((p) => p.step)).toEqual([1, 2, 3, 4]);
  });

  it('draws one point per logged step, a line per arm and panel, and titled axes', async () => {
    const full = Array.from({ length: 60 }, (_, i) => 0.3 + i / 200);
    const svg = await renderChartSvg(
      rewardChartSpec([
        { arm: 'grpo', phase: 'pilot', rewardPerStep: [0.1, 0.2, 0.3] },
        { arm: 'gs1', phase: 'pilot', rewardPerStep: [0.2, 0.2, 0.1] },
        { arm: 'grpo', phase: 'full', rewardPerStep: full },
        { arm: 'gs1', phase: 'full', rewardPerStep: full },
      ]),
      'rewards',
    );
    expect(markLabels(svg, 'point')).toHaveLength(3 + 3 + 60 + 60);
    expect(markLabels(svg, 'line mark').length).toBeGreaterThanOrEqual(4);
    expect(axisTitles(svg)).toEqual(expect.arrayContaining(['Training step', 'Mean reward per step']));
    expect(texts(svg)).toEqual(expect.arrayContaining(['Timing pilot: reward per step (points) and running mean (line)']));
  });
});

describe('B_eff ratios', () => {
  it('draws a point per estimator, its interval, and rules at 1 and at the gate bar 1.03', async () => {
    const svg = await renderChartSvg(
      beffChartSpec(
        [
          { estimator: 'tfidf_kernel_loo_T0.1', ratio: 0.99, ci95: [0.95, 1.02] },
          { estimator: 'length_bucket_loo', ratio: 0.96, ci95: null },
        ],
        { bar: 1.03, reference: 'loo_batch_mean', intervalMethod: 'jackknife' },
      ),
      'beff',
    );
    const points = markLabels(svg, 'point');
    expect(points).toHaveLength(2);
    expect(points[0]).toContain('ratio: 0.9900');
    const rules = markLabels(svg, 'rule mark');
    expect(rules.some((r) => r.includes('gate bar 1.03'))).toBe(true);
    expect(rules.some((r) => r.includes('1 (= loo_batch_mean)'))).toBe(true);
    expect(axisTitles(svg)).toContain('B_eff ratio to loo_batch_mean (1 = no better)');
  });

  it('keeps the bar inside the axis range even when every ratio is far below it', () => {
    expect(paddedDomain([0.5, 0.6, 1, 1.03], 0.12)[1]).toBeGreaterThan(1.03);
  });
});

describe('activation gate', () => {
  it('one strip per check, PASS/FAIL/MISSING in its title, a mark for each measured value', async () => {
    const svg = await renderChartSvg(
      gateChartSpec([
        { metric: 'offline_beff_ratio_tfidf_vs_loo_mean', value: 0.9953, min: 1.03, max: null, status: 'fail' },
        { metric: 'self_weight_max', value: 0, min: 0, max: 0, status: 'pass' },
        { metric: 'nonzero_advantage_fraction_gs1', value: null, min: 0.3, max: null, status: 'missing' },
      ]),
      'gate',
    );
    const t = texts(svg);
    expect(t).toEqual(expect.arrayContaining(['FAIL  offline_beff_ratio_tfidf_vs_loo_mean', 'PASS  self_weight_max', 'MISSING  nonzero_advantage_fraction_gs1']));
    expect(t).toEqual(expect.arrayContaining(['value 0.9953; allowed min 1.03', 'value missing; allowed min 0.3']));
    expect(markLabels(svg, 'point')).toHaveLength(2);
  });
});

describe('paired decision', () => {
  const rows = [{ id: 'primary', estimate: 0.0167, lower: -0.0581, upper: 0.0915, margin: -0.05, verdict: 'inconclusive' }];

  it('shows the interval, the estimate, the margin and the verdict, on a range that holds them all and 0', async () => {
    const [lo, hi] = decisionDomain(rows);
    expect(lo).toBeLessThan(-0.0581);
    expect(hi).toBeGreaterThan(0.0915);
    const svg = await renderChartSvg(decisionChartSpec(rows, 'paired_hoeffding'), 'decision');
    expect(markLabels(svg, 'point')).toHaveLength(1);
    expect(markLabels(svg, 'tick')).toEqual(['margin: −0.05; Criterion: primary']);
    expect(texts(svg)).toContain('inconclusive');
    expect(texts(svg)).toEqual(expect.arrayContaining(['validated if the interval lies here', 'failed if the interval lies here']));
    expect(axisTitles(svg)).toContain('Difference in accuracy, treatment − baseline (proportion of items)');
  });
});

describe('power', () => {
  it('two curves per method (validated, failed), one point per true difference each', async () => {
    const differences = [-0.05, -0.04, -0.03, -0.02, -0.01, 0, 0.01, 0.02, 0.03, 0.04, 0.05];
    const rows = ['paired_hoeffding', 'paired_exact_binomial'].flatMap((method) =>
      differences.map((difference) => ({ method, difference, p_validated: 0.5 + difference * 5, p_failed: 0.01 })),
    );
    const svg = await renderChartSvg(powerChartSpec(rows, -0.05), 'power');
    expect(markLabels(svg, 'point')).toHaveLength(2 * 2 * differences.length);
    expect(axisTitles(svg)).toEqual(expect.arrayContaining(['True difference in accuracy, treatment − baseline', 'Probability of the verdict']));
  });
});

describe('eval accuracy', () => {
  it('Wilson intervals: the closed form z^2 / (n + z^2) at k = 0, and the textbook [0.4038, 0.5962] at 50/100', () => {
    const z = 1.959963984540054;
    const [lo0, hi0] = wilsonInterval(0, 10);
    expect(lo0).toBe(0);
    expect(Math.abs(hi0 - (z * z) / (10 + z * z))).toBeLessThan(1e-15);
    const [lo, hi] = wilsonInterval(50, 100);
    expect(Math.abs(lo + hi - 1)).toBeLessThan(1e-15);
    expect(lo.toFixed(4)).toBe('0.4038');
    expect(hi.toFixed(4)).toBe('0.5962');
  });

  it('counts the paired 2x2 table over the items both arms have', () => {
    const t = new Map([['a', true], ['b', true], ['c', false], ['d', false], ['e', true]]);
    const b = new Map([['a', true], ['b', false], ['c', true], ['d', false]]);
    expect(pairedTable(t, b)).toEqual({ bothCorrect: 1, treatmentOnly: 1, baselineOnly: 1, bothWrong: 1 });
  });

  it('draws a point per arm', async () => {
    const svg = await renderChartSvg(accuracyChartSpec([{ arm: 'grpo', correct: 526, n: 1319 }, { arm: 'gs1', correct: 548, n: 1319 }]), 'acc');
    expect(markLabels(svg, 'point')).toHaveLength(2);
    expect(axisTitles(svg)).toContain('Accuracy (proportion of test items correct)');
  });
});

describe('kernel tuning', () => {
  it('a tuning and a held-out point per family, the bar at 1.03', async () => {
    // Vega-Lite warns on stderr (console.warn) when a log scale asks for zero: every report with kernel charts did.
    const warn = vi.spyOn(console, 'warn');
    const svg = await renderChartSvg(
      kernelChartSpec(
        [
          { family: 'tfidf', tuning: 1.0, heldOut: 0.99, heldOutCi95: [0.97, 1.01] },
          { family: 'difficulty', tuning: 1.05, heldOut: 1.04, heldOutCi95: [1.01, 1.07] },
        ],
        1.03,
      ),
      'kernel',
    );
    expect(markLabels(svg, 'point')).toHaveLength(4);
    expect(markLabels(svg, 'rule mark').some((r) => r.includes('gate bar 1.03'))).toBe(true);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });
});
