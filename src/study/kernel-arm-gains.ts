// Each kernel arm's training gain beside its B_eff ratio (summary.json's `kernel_arms`, docs/study.md "Kernel arms"):
// the arm's mean accuracy minus the batch-mean arm's, taken from the decided comparison of the two (its estimate,
// interval at its level under the multiplicity procedure, verdict) with each seed's difference.
import type { ComparisonJson } from './decide-comparisons.js';
import type { KernelArmsSummary } from './summary.js';

/**
 * Fills `gain` of every kernel arm that has a comparison against the batch-mean arm (the arm as treatment, the
 * batch-mean arm as reference); the others keep `gain: null`.
 *
 * @example
 * ```ts
 * addKernelArmGains(summary.kernel_arms, summary.comparisons ?? []);
 * ```
 */
export function addKernelArmGains(kernelArms: KernelArmsSummary, comparisons: readonly ComparisonJson[]): void {
  const ref = kernelArms.reference_arm;
  for (const arm of kernelArms.arms) {
    const c = ref === null ? undefined : comparisons.find((x) => x.treatment === arm.arm && x.reference === ref);
    arm.gain =
      c === undefined
        ? null
        : {
            comparison: c.id,
            estimate: c.estimate,
            interval: [c.interval[0], c.interval[1]],
            level: c.level,
            verdict: c.verdict,
            per_seed: c.per_seed.map((s) => ({ seed: s.seed, gain: s.estimate })),
          };
  }
}
