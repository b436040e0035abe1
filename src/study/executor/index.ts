// The executors of `rl-adv study --executor local|ray` and the one factory the CLI and runStudy call. The local
// executor is local.ts, the Ray executor ray.ts (a factory set by setRayFactory replaces it, e.g. in tests).
import { RlAdvantagesError } from '../../errors.js';
import { LocalExecutor } from './local.js';
import { RayExecutor } from './ray.js';
import type { Executor } from './types.js';

export { LocalExecutor, type LocalExecutorOptions } from './local.js';
export { RayExecutor, type RayExecutorOptions } from './ray.js';
export * from './types.js';

/** The executors `--executor` names. */
export const EXECUTOR_NAMES = ['local', 'ray'] as const;
export type ExecutorName = (typeof EXECUTOR_NAMES)[number];

/** What {@link createExecutor} needs: the CLI's executor flags. */
export interface ExecutorOptions {
  /** `--executor` (default `local`). */
  readonly executor?: ExecutorName;
  /** `--ray-address` (default: $RAY_ADDRESS); ray only. */
  readonly rayAddress?: string;
  /** `--gpus 0,1,...`: the local executor runs one job per listed GPU at a time; local only. */
  readonly gpus?: readonly string[];
  /** The Python that runs the Ray bridge (`--python`; default $RL_ADV_PYTHON, else `python3`); ray only. */
  readonly python?: string;
  /** The environment the executor's processes start from (default: process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** How the Ray executor is built: set by src/study/executor/ray.ts (the `ray` helper) through {@link setRayFactory}. */
export type RayFactory = (options: ExecutorOptions) => Promise<Executor>;
let RAY_FACTORY: RayFactory | undefined;

/**
 * Installs the Ray executor's factory (called once by the module that implements it).
 *
 * @example
 * ```ts
 * setRayFactory(async (options) => connectRayExecutor(options.rayAddress));
 * ```
 */
export function setRayFactory(factory: RayFactory): void {
  RAY_FACTORY = factory;
}

/**
 * The executor `--executor` names, ready to run jobs.
 *
 * @throws {RlAdvantagesError} `bad_option` (field `gpus`) for `--gpus` with `--executor ray`; `ray_unavailable` when
 *   the Ray executor is not installed or cannot connect (its own message).
 * @example
 * ```ts
 * const executor = await createExecutor({ executor: 'local', gpus: ['0', '1'] });
 * ```
 */
export async function createExecutor(options: ExecutorOptions = {}): Promise<Executor> {
  const name = options.executor ?? 'local';
  if (name === 'local') {
    return new LocalExecutor({ ...(options.gpus ? { gpus: options.gpus } : {}), ...(options.env ? { env: options.env } : {}) });
  }
  if (options.gpus !== undefined) {
    throw new RlAdvantagesError('--gpus applies to --executor local only (Ray places each job on a GPU itself: use --job-gpus)', { code: 'bad_option', field: 'gpus' });
  }
  if (RAY_FACTORY !== undefined) return RAY_FACTORY(options);
  return RayExecutor.connect({
    ...(options.rayAddress === undefined ? {} : { address: options.rayAddress }),
    ...(options.python === undefined ? {} : { python: options.python }),
    ...(options.env === undefined ? {} : { env: options.env }),
  });
}
