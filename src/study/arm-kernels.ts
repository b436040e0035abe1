// The kernel files of a spec's arms (`arms[].advantage: "kernel:PATH"`, PATH relative to the spec file), loaded
// once when a study starts, before its folder is touched: a missing or invalid file is refused up front.
import { RlAdvantagesError } from '../errors.js';
import type { LoadedKernel } from '../kernels/kernel-file.js';
import { resolveKernelEstimatorName } from '../kernels/resolve.js';
import type { StudySpec } from './spec.js';

/**
 * Loads the kernel file of every arm whose advantage is `kernel:PATH` (PATH relative to `specDir`), by that name.
 *
 * @throws {RlAdvantagesError} (code `bad_kernel` or the loader's) naming the arm, the path and the field.
 * @example
 * ```ts
 * const kernels = armKernels(loadStudySpec(text), path.dirname(specFile));
 * createEstimator('kernel_file', { kernel: kernels['kernel:kernel.json'] });
 * ```
 */
export function armKernels(spec: StudySpec, specDir: string): Readonly<Record<string, LoadedKernel>> {
  const kernels: Record<string, LoadedKernel> = {};
  spec.arms.forEach((arm, i) => {
    try {
      const resolved = resolveKernelEstimatorName(arm.advantage, specDir);
      if (resolved !== null) kernels[arm.advantage] = resolved.kernel;
    } catch (error) {
      if (!(error instanceof RlAdvantagesError)) throw error;
      throw new RlAdvantagesError(`spec field "arms[${i}].advantage" (PATH relative to the spec file): ${error.message}`, {
        code: error.code,
        field: `arms[${i}].advantage`,
      });
    }
  });
  return Object.freeze(kernels);
}
