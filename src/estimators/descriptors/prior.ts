// The estimators with a prior over other prompts (docs/method.md section 2.2): shrinkage_loo (one step) and
// prompt_value (stateful), each optionally with a TF-IDF kernel prior.
import type { EstimatorDescriptor, ParameterDescriptor } from '../descriptor.js';
import { PromptValueEstimator, type PromptValueOptions } from '../prompt-value.js';
import { shrinkageLoo } from '../shrinkage-loo.js';
import type { NormalizeOptions } from '../types.js';
import { requireVectorizer, tfidfPriorName } from './kernel.js';
import { NORMALIZE_PARAMETERS, SOURCES, temperatureParameter } from './params.js';

const PRIOR_TEMPERATURE: ParameterDescriptor = temperatureParameter(
  'priorTemperature',
  "T of a TF-IDF kernel prior over other prompts (needs the vectorizer); absent: the constant prior",
  false,
);

/** The estimators with a prior. */
export const PRIOR_ESTIMATORS: readonly EstimatorDescriptor[] = [
  {
    name: 'shrinkage_loo',
    family: 'prior',
    summary: "b = (1 - lambda) (mean of the group's others) + lambda m_i, m_i a prior over other groups, lambda from the other groups (after JSPO)",
    parameters: [...NORMALIZE_PARAMETERS, { ...PRIOR_TEMPERATURE, description: 'T of a TF-IDF kernel prior m_i over other prompts (needs the vectorizer); absent: the plain mean of the other groups' }],
    fields: { required: ['rewards', 'groupIds'], optional: ['prompts', 'mask'] },
    needsVectorizer: 'with_short_form',
    needsKernelFile: false,
    groupOfOne: 'b = m_i (the prior)',
    sources: [SOURCES.jspo],
    shortForm: { prefix: 'shrinkage_loo_tfidf_kernel_loo_T', parameter: 'priorTemperature', bare: true },
    create: (params, resources) => {
      const { priorTemperature, ...normalize } = params as NormalizeOptions & { priorTemperature?: number };
      const options =
        priorTemperature === undefined
          ? normalize
          : { ...normalize, prior: tfidfPriorName(priorTemperature), vectorizer: requireVectorizer('shrinkage_loo with a kernel prior', resources) };
      return (batch) => shrinkageLoo(batch, options);
    },
  },
  {
    name: 'prompt_value',
    family: 'prior',
    summary: "b = v(x_i), a per-prompt value learnt across steps (EMA or discounted Beta), before this step's update (after SPO; stateful)",
    parameters: [
      { name: 'kind', type: 'string', default: 'ema', required: false, choices: ['ema', 'beta'], description: "'ema': v <- decay v + (1 - decay) mean(r); 'beta': discounted Beta counts (rewards in [0, 1])" },
      { name: 'decay', type: 'number', default: null, required: false, minimum: 0, maximum: 1, description: "forgetting per step: [0, 1) for 'ema' (default 0.9), (0, 1] for 'beta' (default 1)" },
      { name: 'prior', type: 'number', default: 0.5, required: false, description: "the value of an unseen prompt (and the kernel prior's fallback); in [0, 1] for 'beta'" },
      { name: 'priorStrength', type: 'number', default: 2, required: false, exclusiveMinimum: 0, description: "n0, the pseudo-count of a 'beta' prior" },
      PRIOR_TEMPERATURE,
    ],
    fields: { required: ['rewards', 'prompts'], optional: ['mask'] },
    needsVectorizer: 'with_short_form',
    needsKernelFile: false,
    groupOfOne: 'b = v(x)',
    sources: [SOURCES.spo],
    shortForm: { prefix: 'prompt_value_tfidf_kernel_loo_T', parameter: 'priorTemperature', bare: true },
    createStateful: (params, resources, name) => {
      const { priorTemperature, ...options } = params as PromptValueOptions & { priorTemperature?: number };
      const vectorizer = priorTemperature === undefined ? undefined : requireVectorizer(name, resources);
      return new PromptValueEstimator(name, options, priorTemperature, vectorizer);
    },
  },
];
