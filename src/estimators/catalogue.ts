// The estimator catalogue: one descriptor per estimator (src/estimators/descriptors/), plus the ones a user
// registers. createEstimator, the CLI, serve, docs/estimators.md and the Python drivers all read it.
import { RlAdvantagesError } from '../errors.js';
import { looMeans } from '../internal/batch.js';
import { readRewards } from './batch.js';
import { computeDiagnostics } from './diagnostics.js';
import { runMasked } from './mask.js';
import { describe } from '../internal/validate.js';
import type { BatchField, EstimatorDescriptor, EstimatorParams, EstimatorResources, ParameterDescriptor, UserEstimatorDescriptor } from './descriptor.js';
import { GROUP_ESTIMATORS } from './descriptors/group.js';
import { KERNEL_ESTIMATORS } from './descriptors/kernel.js';
import { NORMALIZATION_ESTIMATORS } from './descriptors/normalization.js';
import { PRIOR_ESTIMATORS } from './descriptors/prior.js';
import type { Batch, EstimatorResult } from './types.js';

/**
 * The base names of the built-in estimators, in catalogue order: {@link EstimatorBaseName} derives from it, and a
 * test keeps the built-in descriptors equal to it.
 */
export const ESTIMATOR_BASE_NAMES = Object.freeze([
  'group_mean',
  'group_mean_std',
  'rloo',
  'loo_batch_mean',
  'tfidf_kernel_loo',
  'length_bucket_loo',
  'kernel_loo',
  'reinforce_plus_plus_baseline',
  'remax',
  'opo',
  'gpg',
  'grpo_passk',
  'passk',
  'shrinkage_loo',
  'prompt_value',
  'kernel_file',
  'maxrl',
  'gdpo',
  'normalized',
  'verl_grpo',
  'verl_dr_grpo',
  'verl_rfpp_baseline',
  'trl_grpo',
  'trl_grpo_batch',
  'trl_grpo_none',
  'trl_rloo',
  'openrlhf_reinforce',
  'openrlhf_reinforce_baseline',
  'openrlhf_group_norm',
  'openrlhf_rloo',
  'nemo_grpo',
  'nemo_grpo_no_loo',
  'nemo_reinforce_plus_plus',
  'areal_grpo',
  'areal_batch',
  'areal_dr_grpo',
  'areal_leave1out',
  'roll_grpo',
  'roll_running',
] as const);

/** Base names of the built-in estimators. */
export type EstimatorBaseName = (typeof ESTIMATOR_BASE_NAMES)[number];

const BUILT_IN: ReadonlyMap<string, EstimatorDescriptor> = (() => {
  const all = new Map([...GROUP_ESTIMATORS, ...KERNEL_ESTIMATORS, ...PRIOR_ESTIMATORS, ...NORMALIZATION_ESTIMATORS].map((d) => [d.name, d]));
  return new Map(ESTIMATOR_BASE_NAMES.map((name) => [name, all.get(name) as EstimatorDescriptor]));
})();

/** The user's descriptors, in registration order (validated, their outputs checked). */
const USER = new Map<string, EstimatorDescriptor>();

/**
 * Every descriptor: the built-in ones in catalogue order, then the user's in registration order.
 *
 * @example
 * ```ts
 * estimatorDescriptors().find((d) => d.name === 'rloo')?.parameters.map((p) => p.name); // ['normalize', 'epsilon', 'stdFloor', 'singleton']
 * ```
 */
export function estimatorDescriptors(): readonly EstimatorDescriptor[] {
  return [...BUILT_IN.values(), ...USER.values()];
}

/** The descriptor of a base name, or undefined. */
export function findDescriptor(name: string): EstimatorDescriptor | undefined {
  return BUILT_IN.get(name) ?? USER.get(name);
}

/** Whether a descriptor was added by {@link registerEstimator}. */
export function isUserEstimator(descriptor: EstimatorDescriptor): boolean {
  return USER.get(descriptor.name) === descriptor;
}

const FIELDS: readonly BatchField[] = ['rewards', 'prompts', 'groupIds', 'features', 'mask', 'lengths', 'greedyRewards'];
const TYPES = ['number', 'integer', 'string', 'boolean', 'object'];

function bad(message: string, field: string, index?: number): never {
  throw new RlAdvantagesError(message, { code: 'bad_descriptor', field, ...(index === undefined ? {} : { index }) });
}

function checkParameter(p: ParameterDescriptor, i: number, seen: Set<string>): void {
  const field = `parameters[${i}]`;
  if (typeof p !== 'object' || p === null) bad(`${field} must be a parameter descriptor, got ${describe(p)}`, field, i);
  if (typeof p.name !== 'string' || !/^[a-z][A-Za-z0-9]*$/.test(p.name)) bad(`${field}.name must be a camelCase name, got ${describe(p.name)}`, `${field}.name`, i);
  if (seen.has(p.name) || ['name', 'vectorizer', 'similarity', 'kernel', 'baseDir'].includes(p.name)) bad(`${field}.name ${JSON.stringify(p.name)} is taken`, `${field}.name`, i);
  seen.add(p.name);
  if (!TYPES.includes(p.type)) bad(`${field}.type must be one of ${TYPES.join(', ')}, got ${describe(p.type)}`, `${field}.type`, i);
  if (typeof p.required !== 'boolean') bad(`${field}.required must be true or false`, `${field}.required`, i);
  if (typeof p.description !== 'string' || p.description === '') bad(`${field}.description must be a non-empty string`, `${field}.description`, i);
}

function checkDescriptor(d: UserEstimatorDescriptor): void {
  if (typeof d !== 'object' || d === null) bad(`an estimator descriptor must be an object, got ${describe(d)}`, 'descriptor');
  if (typeof d.name !== 'string' || !/^[a-z][a-z0-9_]*$/.test(d.name)) bad(`name must be lower case letters, digits and underscores, starting with a letter, got ${describe(d.name)}`, 'name');
  if (BUILT_IN.has(d.name) || USER.has(d.name)) {
    throw new RlAdvantagesError(`estimator "${d.name}" is already in the catalogue; give yours another name`, { code: 'duplicate_estimator', field: 'name' });
  }
  for (const key of ['family', 'summary', 'groupOfOne'] as const) {
    if (typeof d[key] !== 'string' || d[key] === '') bad(`${key} must be a non-empty string, got ${describe(d[key])}`, key);
  }
  if (!Array.isArray(d.parameters)) bad(`parameters must be an array, got ${describe(d.parameters)}`, 'parameters');
  const seen = new Set<string>();
  d.parameters.forEach((p, i) => checkParameter(p, i, seen));
  for (const part of ['required', 'optional'] as const) {
    const list = d.fields?.[part];
    if (!Array.isArray(list)) bad(`fields.${part} must be an array of batch fields (${FIELDS.join(', ')})`, `fields.${part}`);
    list.forEach((f, i) => {
      if (!FIELDS.includes(f)) bad(`fields.${part}[${i}] must be one of ${FIELDS.join(', ')}, got ${describe(f)}`, `fields.${part}`, i);
    });
  }
  if (!d.fields.required.includes('rewards')) bad('fields.required must include rewards', 'fields.required');
  if (!(typeof d.needsVectorizer === 'boolean' || d.needsVectorizer === 'with_short_form')) bad('needsVectorizer must be true, false or "with_short_form"', 'needsVectorizer');
  if (typeof d.needsKernelFile !== 'boolean') bad('needsKernelFile must be true or false', 'needsKernelFile');
  if (!Array.isArray(d.sources)) bad('sources must be an array of { title, url }', 'sources');
  if ((typeof d.create === 'function') === (typeof d.createStateful === 'function')) bad('give exactly one of create (one step) and createStateful', 'create');
  if (d.shortForm !== undefined) {
    const { prefix, parameter } = d.shortForm;
    if (typeof prefix !== 'string' || !prefix.startsWith(`${d.name}_`)) bad(`shortForm.prefix must start with "${d.name}_", got ${describe(prefix)}`, 'shortForm.prefix');
    if (!seen.has(parameter)) bad(`shortForm.parameter must name one of the parameters, got ${describe(parameter)}`, 'shortForm.parameter');
    if (estimatorDescriptors().some((o) => o.shortForm !== undefined && (o.shortForm.prefix.startsWith(prefix) || prefix.startsWith(o.shortForm.prefix)))) {
      bad(`shortForm.prefix ${JSON.stringify(prefix)} overlaps another estimator's short form`, 'shortForm.prefix');
    }
  }
}

/** A user's output array: finite numbers, one per rollout. */
function checkedOutput(name: string, field: string, values: unknown, size: number): Float64Array {
  if (typeof values !== 'object' || values === null || typeof (values as ArrayLike<number>).length !== 'number') {
    throw new RlAdvantagesError(`estimator "${name}" returned ${field} = ${describe(values)}; it must return an array of ${size} finite numbers`, { code: 'bad_estimator_output', field });
  }
  const array = values as ArrayLike<unknown>;
  if (array.length !== size) {
    throw new RlAdvantagesError(`estimator "${name}" returned ${array.length} ${field} for a batch of ${size}; it must return one per rollout`, { code: 'bad_estimator_output', field });
  }
  const out = new Float64Array(size);
  for (let i = 0; i < size; i++) {
    const x = array[i];
    if (typeof x !== 'number' || !Number.isFinite(x)) {
      throw new RlAdvantagesError(`estimator "${name}" returned ${field}[${i}] = ${describe(x)}; its outputs must be finite numbers`, { code: 'bad_estimator_output', field, index: i });
    }
    out[i] = x;
  }
  return out;
}

/**
 * A user's compute, checked like ours: the rewards are validated first, masked rollouts are removed before the call
 * (and get A = 0 after), and the output must hold `advantages` and `baselines`, finite, one per rollout;
 * `maxSelfWeight` (default 0, a leave-one-out baseline) in [0, 1]. `looMean` and `diagnostics` are filled in.
 */
function checkedCompute(name: string, compute: (batch: Batch) => unknown): (batch: Batch) => EstimatorResult {
  return (batch) =>
    runMasked(batch, (b) => {
      const rewards = readRewards(b, 1, name);
      const out = compute(b) as { advantages?: unknown; baselines?: unknown; maxSelfWeight?: unknown } | null;
      if (typeof out !== 'object' || out === null) {
        throw new RlAdvantagesError(`estimator "${name}" returned ${describe(out)}; it must return { advantages, baselines }`, { code: 'bad_estimator_output', field: 'result' });
      }
      const advantages = checkedOutput(name, 'advantages', out.advantages, rewards.length);
      const baselines = checkedOutput(name, 'baselines', out.baselines, rewards.length);
      const maxSelfWeight = out.maxSelfWeight ?? 0;
      if (typeof maxSelfWeight !== 'number' || !(maxSelfWeight >= 0 && maxSelfWeight <= 1)) {
        throw new RlAdvantagesError(`estimator "${name}" returned maxSelfWeight = ${describe(maxSelfWeight)}; it must be a number in [0, 1]`, { code: 'bad_estimator_output', field: 'maxSelfWeight' });
      }
      const looMean = rewards.length === 1 ? Float64Array.of(rewards[0] as number) : looMeans(rewards);
      return Object.freeze({ advantages, baselines, looMean, maxSelfWeight, diagnostics: computeDiagnostics(b, rewards, advantages) });
    });
}

/**
 * Adds a user's estimator to the catalogue: it is then usable by name (and with its short form) in
 * `createEstimator`, `calibrateBeff`, a study spec's arms, and on the command line and in `serve` through
 * `--estimator-module FILE`. Its outputs are checked like ours (finite, one per rollout).
 *
 * @returns a function that removes it again.
 * @throws {@link RlAdvantagesError} (`duplicate_estimator`) for a name already in the catalogue; (`bad_descriptor`)
 *   for a malformed descriptor, naming the field.
 * @example
 * ```ts
 * registerEstimator({
 *   name: 'median_baseline', family: 'user', summary: 'b = the median reward of the batch', parameters: [],
 *   fields: { required: ['rewards'], optional: [] }, needsVectorizer: false, needsKernelFile: false,
 *   groupOfOne: 'n/a', sources: [],
 *   create: () => (batch) => { const b = median(batch.rewards); return { advantages: [...batch.rewards].map((r) => r - b), baselines: [...batch.rewards].map(() => b) }; },
 * });
 * createEstimator('median_baseline').compute({ rewards: [1, 0, 1] });
 * ```
 */
export function registerEstimator(descriptor: UserEstimatorDescriptor): () => void {
  checkDescriptor(descriptor);
  const name = descriptor.name;
  const { create, createStateful, ...rest } = descriptor;
  const checked: EstimatorDescriptor = Object.freeze({
    ...rest,
    parameters: Object.freeze(descriptor.parameters.map((p) => Object.freeze({ ...p }))),
    ...(create === undefined ? {} : { create: (params: EstimatorParams, resources: EstimatorResources) => checkedCompute(name, create(params, resources)) }),
    ...(createStateful === undefined
      ? {}
      : {
          createStateful: (params, resources, canonical) => {
            const inner = createStateful(params, resources, canonical);
            const compute = checkedCompute(name, (b) => inner.compute(b));
            return { name: canonical, compute, update: (b: Batch) => inner.update(b), toJSON: () => inner.toJSON() };
          },
        }),
  } satisfies EstimatorDescriptor);
  USER.set(name, checked);
  return () => {
    if (USER.get(name) === checked) USER.delete(name);
  };
}

