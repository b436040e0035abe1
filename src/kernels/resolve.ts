// The estimator name form `kernel:PATH` (docs/method.md section 2.4): a kernel file read relative to a directory.
import { createHash } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { RlAdvantagesError } from '../errors.js';
import { BoundedReadError, readBoundedFile, sizeWords } from '../internal/bounded-read.js';
import { loadKernel, type LoadedKernel } from './kernel-file.js';

/** The prefix of the estimator name form that names a kernel file. */
export const KERNEL_NAME_PREFIX = 'kernel:' as const;

/** A resolved `kernel:PATH` name. */
export interface ResolvedKernelName {
  /** The name as given (`kernel:PATH`): the estimator's name in outputs. */
  readonly name: string;
  /** The absolute path of the file. */
  readonly path: string;
  /** sha256 (hex) of the file's bytes. */
  readonly sha256: string;
  readonly kernel: LoadedKernel;
}

/**
 * The largest kernel file read: 256 MiB (a kernel of 10^5 prompts with 64-dimensional embeddings is about 130 MiB
 * of JSON). Checked before reading, with the file's kind: a device or FIFO (`kernel:/dev/zero`) is refused at once.
 */
export const KERNEL_FILE_MAX_BYTES = 256 * 1024 * 1024;

/** Whether an estimator name is the form `kernel:PATH`. */
export function isKernelEstimatorName(name: unknown): name is string {
  return typeof name === 'string' && name.startsWith(KERNEL_NAME_PREFIX);
}

/**
 * Resolves an estimator name of the form `kernel:PATH`: reads PATH (relative to `baseDir`: the current directory on
 * the command line, the spec file's directory for a spec's `arms[].advantage`) and loads it with {@link loadKernel}.
 * Returns null for any other name.
 *
 * @throws {@link RlAdvantagesError} (code `bad_kernel`) for an empty path, a file that cannot be read, is not a
 *   regular file, is larger than {@link KERNEL_FILE_MAX_BYTES} or is not a kernel file (the message names the path
 *   and the field).
 * @example
 * ```ts
 * const resolved = resolveKernelEstimatorName('kernel:kernel.json', process.cwd());
 * const estimator = createEstimator('kernel_file', { kernel: resolved!.kernel });
 * ```
 */
export function resolveKernelEstimatorName(name: string, baseDir: string): ResolvedKernelName | null {
  if (!isKernelEstimatorName(name)) return null;
  const given = name.slice(KERNEL_NAME_PREFIX.length);
  if (given === '') {
    throw new RlAdvantagesError(`estimator "${name}" names no file: write kernel:PATH, e.g. kernel:kernel.json`, { code: 'bad_kernel', field: 'estimator' });
  }
  const path = isAbsolute(given) ? given : resolve(baseDir, given);
  let bytes: Buffer;
  try {
    bytes = readBoundedFile(path, KERNEL_FILE_MAX_BYTES);
  } catch (error) {
    if (!(error instanceof BoundedReadError)) throw error;
    const message =
      error.reason === 'unreadable'
        ? `cannot read the kernel file ${path}: ${error.cause instanceof Error ? error.cause.message : error.message}`
        : `the kernel file ${error.message}${error.reason === 'too_large' ? ` (kernel files are read up to ${sizeWords(KERNEL_FILE_MAX_BYTES)})` : ''}`;
    throw new RlAdvantagesError(`estimator "${name}": ${message}`, { code: 'bad_kernel', field: 'estimator' });
  }
  let kernel: LoadedKernel;
  try {
    kernel = loadKernel(bytes.toString('utf8'));
  } catch (error) {
    if (error instanceof RlAdvantagesError) {
      throw new RlAdvantagesError(`estimator "${name}": ${path}: ${error.message}`, { code: error.code, field: error.field ?? 'estimator' });
    }
    throw error;
  }
  return Object.freeze({ name, path, sha256: createHash('sha256').update(bytes).digest('hex'), kernel });
}
