import { writeFileSync } from 'node:fs';
import { it } from 'vitest';
import { renderChartSvg } from '../../../src/report/charts/render.js';
import { rewardChartSpec } from '../../../src/report/charts/reward.js';
import { beffChartSpec } from '../../../src/report/charts/beff.js';
import { gateChartSpec } from '../../../src/report/charts/gate.js';
import { decisionChartSpec } from '../../../src/report/charts/decision.js';
import { powerChartSpec } from '../../../src/report/charts/power.js';
import { accuracyChartSpec } from '../../../src/report/charts/accuracy.js';
import { kernelChartSpec } from '../../../src/report/charts/kernel.js';

it('smoke', async () => {
  const t0 = Date.now();
  const svgs = [
    await renderChartSvg(rewardChartSpec([{ arm: 'a', phase: 'pilot', rewardPerStep: [0.1, 0.2, 0.3] }, { arm: 'a', phase: 'full', rewardPerStep: Array.from({length:60},(_, i)=>0.3+0.005*i+0.05*Math.sin(i)) }, { arm: 'b', phase: 'full', rewardPerStep: Array.from({length:60},(_, i)=>0.32+0.004*i) }]), 'reward'),
    await renderChartSvg(beffChartSpec([{ estimator: 'tfidf_kernel_loo_T0.1', ratio: 0.99, ci95: [0.95, 1.02] }, { estimator: 'length_bucket_loo', ratio: 0.96, ci95: [0.93, 0.99] }], { bar: 1.03, reference: 'loo_batch_mean', intervalMethod: 'jackknife' }), 'beff'),
    await renderChartSvg(gateChartSpec([{ metric: 'offline_beff_ratio_tfidf_vs_loo_mean', value: 0.99, min: 1.03, max: null, status: 'fail' }, { metric: 'self_weight_max', value: 0, min: 0, max: 0, status: 'pass' }, { metric: 'x', value: null, min: 1, max: null, status: 'missing' }]), 'gate'),
    await renderChartSvg(decisionChartSpec([{ id: 'primary', estimate: 0.01, lower: -0.065, upper: 0.085, margin: -0.05, verdict: 'inconclusive' }], 'paired_hoeffding'), 'decision'),
    await renderChartSvg(powerChartSpec([-0.05, -0.04, 0, 0.05].flatMap((d) => [{ method: 'paired_hoeffding', difference: d, p_validated: Math.max(0, d * 10 + 0.02), p_failed: 0.01 }]), -0.05), 'power'),
    await renderChartSvg(accuracyChartSpec([{ arm: 'grpo', correct: 600, n: 1319 }, { arm: 'gs1', correct: 620, n: 1319 }]), 'acc'),
    await renderChartSvg(kernelChartSpec([{ family: 'tfidf', tuning: 1.0, heldOut: 0.99, heldOutCi95: [0.97, 1.01] }, { family: 'difficulty', tuning: 1.05, heldOut: 1.04, heldOutCi95: [1.01, 1.07] }], 1.03), 'kernel'),
  ];
  console.log('ms', Date.now() - t0, svgs.map((s) => s.length));
  writeFileSync('/tmp/charts.html', `<html><body style="background:#fff">${svgs.join('<hr>')}</body></html>`);
});
