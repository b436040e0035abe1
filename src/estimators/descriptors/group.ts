// The group and batch estimators (docs/method.md section 2): group means, leave-one-out, and the framework
// baselines built on group means. One entry per estimator; the factories pass the given parameters through.
import type { EstimatorDescriptor, EstimatorParams, ParameterDescriptor } from '../descriptor.js';
import { groupMean, groupMeanStd, rloo } from '../group.js';
import { looBatchMean } from '../loo-batch-mean.js';
import { gpg, opo, remax } from '../outcome-baselines.js';
import { grpoPassk, passk } from '../passk.js';
import { reinforcePlusPlusBaseline } from '../reinforce-plus-plus.js';
import type { NormalizeOptions } from '../types.js';
import { epsilonParameter, normalizeParameter, NORMALIZE_PARAMETERS, SOURCES, STD_FLOOR } from './params.js';

/** The given normalisation parameters, as the estimator functions take them. */
function normalizeOptions(params: EstimatorParams): NormalizeOptions {
  return params as NormalizeOptions;
}

const MASK = ['mask'] as const;

/** `singleton`: what a group of one gets (docs/method.md section 2.2). */
function singletonParameter(fallback: 'error' | 'zero'): ParameterDescriptor {
  return {
    name: 'singleton',
    type: 'string',
    default: fallback,
    required: false,
    choices: ['error', 'zero', 'raw'],
    description: "a group of one: an error ('error'), A = 0 ('zero'), or verl's baseline 0 so that A = r ('raw')",
  };
}

/** The group and batch estimators. */
export const GROUP_ESTIMATORS: readonly EstimatorDescriptor[] = [
  {
    name: 'group_mean',
    family: 'group',
    summary: "b = the mean reward of the rollout's group (stock GRPO without std; the tinker cookbook's)",
    parameters: [...NORMALIZE_PARAMETERS, singletonParameter('zero')],
    fields: { required: ['rewards', 'groupIds'], optional: MASK },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "A = 0 (verl: A = r, singleton 'raw')",
    sources: [SOURCES.deepseekMath, SOURCES.drGrpo, SOURCES.cookbookGroupMean, SOURCES.verlGrpoNoStd, SOURCES.trlNone, SOURCES.openrlhfDrGrpo],
    create: (params) => (batch) => groupMean(batch, params),
  },
  {
    name: 'group_mean_std',
    family: 'group',
    summary: "A = (r - mean of the group) / (max(std of the group, the std floor) + epsilon) (verl's grpo)",
    parameters: [epsilonParameter(), STD_FLOOR, singletonParameter('zero')],
    fields: { required: ['rewards', 'groupIds'], optional: MASK },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "A = 0 (verl: r / (1 + epsilon), singleton 'raw')",
    sources: [SOURCES.deepseekMath, SOURCES.verlGrpo, SOURCES.trlGroup, SOURCES.openrlhfGroupNorm],
    create: (params) => (batch) => groupMeanStd(batch, params),
  },
  {
    name: 'rloo',
    family: 'group',
    summary: 'b = the mean reward of the other rollouts of the group (leave-one-out)',
    parameters: [
      ...NORMALIZE_PARAMETERS,
      singletonParameter('error'),
    ],
    fields: { required: ['rewards', 'groupIds'], optional: MASK },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "error, or A = 0 with singleton 'zero' (verl: A = r, singleton 'raw')",
    sources: [SOURCES.rloo, SOURCES.verlRloo, SOURCES.openrlhfRloo],
    create: (params) => (batch) => rloo(batch, params),
  },
  {
    name: 'loo_batch_mean',
    family: 'batch',
    summary: 'b = the mean reward of every other rollout of the batch (the reference of B_eff calibration)',
    parameters: NORMALIZE_PARAMETERS,
    fields: { required: ['rewards'], optional: ['groupIds', 'mask'] },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: 'n/a (no groups; B >= 2)',
    sources: [SOURCES.ours],
    create: (params) => (batch) => looBatchMean(batch, normalizeOptions(params)),
  },
  {
    name: 'reinforce_plus_plus_baseline',
    family: 'group',
    summary: 'c = r - mean of the group, then whitened over the batch with length weights (REINFORCE++ baseline)',
    parameters: [epsilonParameter(1e-8), singletonParameter('zero')],
    fields: { required: ['rewards', 'groupIds'], optional: ['lengths', 'mask'] },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "c = 0 (verl: c = r in the whitening, singleton 'raw')",
    sources: [SOURCES.reinforcePlusPlus, SOURCES.verlReinforce, SOURCES.openrlhfReinforce],
    create: (params) => (batch) => reinforcePlusPlusBaseline(batch, params),
  },
  {
    name: 'remax',
    family: 'outcome',
    summary: 'b = the reward of the greedy response to the prompt (ReMax)',
    parameters: NORMALIZE_PARAMETERS,
    fields: { required: ['rewards', 'greedyRewards'], optional: ['groupIds', 'mask'] },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: 'A = r - greedy reward (no groups needed)',
    sources: [SOURCES.remax, SOURCES.verlRemax],
    create: (params) => (batch) => remax(batch, normalizeOptions(params)),
  },
  {
    name: 'opo',
    family: 'outcome',
    summary: 'b = the length-weighted mean reward of the group, the rollout included (OPO)',
    parameters: [...NORMALIZE_PARAMETERS, singletonParameter('zero')],
    fields: { required: ['rewards', 'groupIds', 'lengths'], optional: MASK },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "A = 0 (verl: A = r, singleton 'raw')",
    sources: [SOURCES.opo, SOURCES.verlOpo],
    create: (params) => (batch) => opo(batch, params),
  },
  {
    name: 'gpg',
    family: 'group',
    summary: 'A = alpha (r - mean of the group), alpha = B / max(1, number of non-zero rewards) (GPG)',
    parameters: [...NORMALIZE_PARAMETERS, singletonParameter('zero')],
    fields: { required: ['rewards', 'groupIds'], optional: MASK },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "A = 0 (verl: alpha r, singleton 'raw')",
    sources: [SOURCES.gpg, SOURCES.verlGpg],
    create: (params) => (batch) => gpg(batch, params),
  },
  {
    name: 'grpo_passk',
    family: 'passk',
    summary: "the group's best rollout gets (r_max - r_second) / (std + epsilon), the others 0 (verl's grpo_passk)",
    parameters: [normalizeParameter(['group', 'none']), epsilonParameter(), STD_FLOOR],
    fields: { required: ['rewards', 'groupIds'], optional: MASK },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: 'error (as verl)',
    sources: [SOURCES.grpoPassk, SOURCES.verlGrpoPassk],
    create: (params) => (batch) => grpoPassk(batch, params as { normalize?: 'group' | 'none' }),
  },
  {
    name: 'passk',
    family: 'passk',
    summary: 'the unbiased pass@k advantage for binary rewards (Pass@k Training)',
    parameters: [
      { name: 'k', type: 'integer', default: null, required: true, minimum: 1, unit: 'rollouts', description: 'k of pass@k, at most every group size' },
      normalizeParameter(['group', 'none']),
      epsilonParameter(),
    ],
    fields: { required: ['rewards', 'groupIds'], optional: MASK },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: 'k = 1: A = 0',
    sources: [SOURCES.passk, SOURCES.passkCode, SOURCES.codex],
    shortForm: { prefix: 'passk_k', parameter: 'k', bare: true },
    create: (params) => (batch) => passk(batch, params as { k: number; normalize?: 'group' | 'none' }),
  },
];
