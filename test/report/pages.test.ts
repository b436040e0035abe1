// The one-chart pages of calibrate, decide, plan and tune-kernel: one document, the chart, no script.
import { describe, expect, it } from 'vitest';
import { calibrationPage, decisionPage, kernelPage, powerPage } from '../../src/report/pages.js';
import { markLabels } from './svg.js';

const selfContained = (html: string): void => {
  expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
  expect(html).not.toMatch(/<script|<link|src="http/);
};

describe('one-chart pages', () => {
  it('calibration: a point per estimator, the table, the interval method named', async () => {
    const html = await calibrationPage(
      {
        tasks: 64, rollouts: 512, mean_reward: 0.3, sigma_eps2: 0.12, batch_size: 32, batches: 2000, reference: 'loo_batch_mean', interval_method: 'jackknife',
        estimators: {
          loo_batch_mean: { mse_corrected: 0.16, ratio: 1, ratio_se: 0, ratio_ci95: [1, 1] },
          'tfidf_kernel_loo_T0.1': { mse_corrected: 0.17, ratio: 0.9762, ratio_se: 0.002, ratio_ci95: [0.95, 1.0] },
        },
      },
      1.03,
    );
    selfContained(html);
    expect(markLabels(html, 'point')).toHaveLength(2);
    expect(html).toContain('<th>95% interval (jackknife)</th>');
    expect(html).toContain('<td class="num">0.9762</td>');
  });

  it('decision: the verdict in the heading and, with accuracies, the eval chart', async () => {
    const html = await decisionPage(
      { method: 'paired_hoeffding', alpha: 0.05, n: 1319, verdict: 'validated', criteria: [{ id: 'primary', estimate: 0.04, lower: -0.03, upper: 0.11, margin: -0.05, verdict: 'validated' }] },
      [{ arm: 'treatment', correct: 700, n: 1319 }, { arm: 'baseline', correct: 650, n: 1319 }],
    );
    selfContained(html);
    expect(html).toContain('<h2>Decision: validated</h2>');
    expect(html).toContain('aria-label="Eval accuracy per arm"');
  });

  it('plan and tune-kernel pages hold their chart', async () => {
    const power = await powerPage([{ method: 'paired_hoeffding', difference: 0, p_validated: 0.023, p_failed: 0 }], -0.05, 'n = 1319');
    selfContained(power);
    expect(power).toContain('aria-label="What this design can conclude"');
    const kernel = await kernelPage([{ family: 'difficulty', tuning: 1.05, heldOut: 1.04, heldOutCi95: [1.01, 1.07] }], '1319 tasks');
    expect(markLabels(kernel, 'point')).toHaveLength(2);
  });
});
