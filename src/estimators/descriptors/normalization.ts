// The normalisation step (docs/method.md section 2.6) in the catalogue: `normalized` (the step on the rewards with
// every option a parameter), one descriptor per framework preset (the same parameters, the preset's defaults),
// `roll_running` (stateful), and the estimators `maxrl` and `gdpo`.
import { RlAdvantagesError } from '../../errors.js';
import type { EstimatorDescriptor, EstimatorParams, ParameterDescriptor } from '../descriptor.js';
import { gdpo, type GdpoOptions } from '../gdpo.js';
import { maxrl, type MaxrlOptions } from '../maxrl.js';
import { normalized } from '../normalized.js';
import { NORMALIZATION_PRESETS, type NormalizationPreset } from '../normalization/presets.js';
import { RunningNormalization } from '../normalization/stateful.js';
import { DEFAULT_NORMALIZATION, NORMALIZATION_CHOICES, readNormalization, type NormalizationSpec } from '../normalization/spec.js';

const DESCRIPTIONS: Record<keyof typeof DEFAULT_NORMALIZATION, string> = {
  centre: "what is subtracted: the group's mean, the batch's, the running mean (ROLL), or nothing",
  leaveOneOut: "leave the rollout out of its centre's mean (RLOO; AReaL mean_leave1out; NeMo-RL's baseline)",
  scale: "what is divided by: the group's std, the batch's, the std of the group's other rollouts (NeMo-RL), the running std, or nothing",
  variance: 'unbiased (W - 1) or biased (W) variance, W the total weight',
  epsilon: 'added to the std (or the variance), or a floor under it, as epsilon_mode says',
  epsilonMode: "s + eps ('add_std'), max(s, eps) ('floor_std'), sqrt(s^2 + eps) ('add_variance'), sqrt(max(s^2, eps)) ('floor_variance')",
  minStd: 'a minimum std, applied before epsilon',
  zeroStd: "'skip': a std of exactly 0 leaves r - m undivided (NeMo-RL's std > 0 guard)",
  stdAround: "the std measures deviations from the plain mean ('mean') or from each row's own centre ('centre', AReaL)",
  weights: "each rollout weighs 1 ('rollout') or its length in tokens ('tokens', needs lengths)",
  singleton: "a group of one: error, A = 0 ('zero'), A = 0 and dropped from the statistics and the loss ('drop'), or verl's mean 0 and std 1 ('raw')",
  zeroVariance: "a group of equal rewards: A = 0 ('keep') or A = 0 and its rows dropped from the loss ('mask')",
  whiten: 'whiten the advantages over the batch after centring and scaling',
  whitenVariance: "the whitening's variance",
  whitenEpsilon: "the whitening's epsilon",
  whitenEpsilonMode: "where the whitening's epsilon enters (as epsilon_mode)",
  whitenWeights: "the whitening's weights ('tokens' needs lengths)",
  whitenZeroStd: "'skip': a whitening std of 0 only re-centres",
  whitenCountEpsilon: "added to the count in the whitening's mean and variance (verl's masked_mean: 1e-8)",
  clipLow: 'clip the advantages below at this value (NeMo-RL advantage_clip_low; ROLL -advantage_clip)',
  clipHigh: 'clip the advantages above at this value (NeMo-RL advantage_clip_high; ROLL advantage_clip)',
};

/** The step's options as parameters, their defaults those of `spec` over the step's defaults. */
function stepParameters(spec: NormalizationSpec = {}): ParameterDescriptor[] {
  const defaults = { ...DEFAULT_NORMALIZATION, ...spec } as Record<string, unknown>;
  return (Object.keys(DEFAULT_NORMALIZATION) as (keyof typeof DEFAULT_NORMALIZATION)[]).map((name) => {
    const value = defaults[name];
    const choices = (NORMALIZATION_CHOICES as Record<string, readonly string[]>)[name];
    const base = { name, required: false, description: DESCRIPTIONS[name] };
    if (choices !== undefined) return { ...base, type: 'string', default: value as string, choices };
    if (typeof value === 'boolean') return { ...base, type: 'boolean', default: value };
    if (name === 'clipLow' || name === 'clipHigh') return { ...base, type: 'number', default: (value as number | undefined) ?? null };
    return { ...base, type: 'number', default: value as number, minimum: 0 };
  });
}

const STEP_FIELDS = { required: ['rewards'], optional: ['groupIds', 'lengths', 'mask'] } as const;

function refuseRunning(spec: NormalizationSpec, name: string): NormalizationSpec {
  const s = readNormalization(spec);
  if (s.centre === 'running' || s.scale === 'running') {
    throw new RlAdvantagesError(`${name} is one-step: a running centre or scale keeps state across steps; use roll_running (stateful), which takes the same parameters`, {
      code: 'bad_option',
      field: s.centre === 'running' ? 'centre' : 'scale',
    });
  }
  return spec;
}

function presetDescriptor(p: NormalizationPreset): EstimatorDescriptor {
  const running = p.spec.centre === 'running' || p.spec.scale === 'running';
  const needs = readNormalization(p.spec);
  const required = ['rewards', ...(needs.centre === 'group' || needs.scale === 'group' || needs.scale === 'loo' ? ['groupIds'] : []), ...(needs.weights === 'tokens' || (needs.whiten && needs.whitenWeights === 'tokens') ? ['lengths'] : [])];
  const base = {
    name: p.name,
    family: 'preset',
    summary: p.summary,
    parameters: stepParameters(p.spec),
    fields: { required, optional: ['groupIds', 'lengths', 'mask'].filter((f) => !required.includes(f)) } as EstimatorDescriptor['fields'],
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: needs.singleton === 'raw' ? 'A = r / (1 + epsilon) (verl: mean 0, std 1)' : needs.singleton === 'drop' ? 'A = 0, dropped from the statistics and the loss' : needs.singleton === 'error' ? 'error' : 'A = 0',
    sources: [p.source],
  };
  if (running) return { ...base, createStateful: (params, _resources, name) => new RunningNormalization(name, { ...p.spec, ...(params as NormalizationSpec) }) };
  return { ...base, create: (params) => {
    const spec = refuseRunning({ ...p.spec, ...(params as NormalizationSpec) }, p.name);
    return (batch) => normalized(batch, spec);
  } };
}

const SINGLETON: ParameterDescriptor = {
  name: 'singleton',
  type: 'string',
  default: 'zero',
  required: false,
  choices: ['error', 'zero', 'raw'],
  description: "a group of one: error, A = 0 ('zero'), or verl's baseline 0 so A = r ('raw')",
};

/** The normalisation step, its presets, maxrl and gdpo. */
export const NORMALIZATION_ESTIMATORS: readonly EstimatorDescriptor[] = [
  {
    name: 'maxrl',
    family: 'group',
    summary: 'A = (r - mean of the group) / (mean of the group + epsilon); 0 when that mean <= 0 (MaxRL)',
    parameters: [{ name: 'epsilon', type: 'number', default: 1e-6, required: false, minimum: 0, description: 'added to the group mean in the denominator (SkyRL 1e-6, prime-rl 0)' }, SINGLETON],
    fields: { required: ['rewards', 'groupIds'], optional: ['mask'] },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "A = 0 (SkyRL: A = r with singleton 'raw')",
    sources: [
      { title: 'MaxRL, arXiv 2602.02710', url: 'https://arxiv.org/abs/2602.02710' },
      { title: 'SkyRL compute_maxrl_advantage', url: 'https://github.com/NovaSky-AI/SkyRL/blob/a9564572eb8e91076be43c1bd5e4615e3de17265/skyrl/backends/skyrl_train/utils/ppo_utils.py' },
      { title: 'prime-rl MaxRLAlgorithm', url: 'https://github.com/PrimeIntellect-ai/prime-rl/blob/559b44772e471d1538537b8805cc77f3824a5e64/src/prime_rl/orchestrator/algo/max_rl.py' },
    ],
    create: (params: EstimatorParams) => (batch) => maxrl(batch, params as MaxrlOptions),
  },
  {
    name: 'gdpo',
    family: 'group',
    summary: 'each reward component normalised within its group, summed with weights, whitened over the batch (GDPO)',
    parameters: [
      { name: 'componentWeights', type: 'object', default: null, required: false, description: 'one weight per reward component (an array of numbers; default 1 each)' },
      { name: 'flavour', type: 'string', default: 'verl', required: false, choices: ['verl', 'trl', 'nemo'], description: "verl's compute_gdpo_outcome_advantage, TRL's normalize_then_sum, or NeMo-RL's GDPO" },
      SINGLETON,
    ],
    fields: { required: ['rewards', 'groupIds', 'rewardComponents'], optional: ['lengths', 'mask'] },
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "component A = 0 (verl: x / (1 + epsilon) with singleton 'raw')",
    sources: [
      { title: 'GDPO, arXiv 2601.05242', url: 'https://arxiv.org/abs/2601.05242' },
      { title: 'verl compute_gdpo_outcome_advantage', url: 'https://github.com/verl-project/verl/blob/1dda039b9c6311889a9c9a26040677e1254814f9/verl/trainer/ppo/core_algos.py' },
      { title: 'TRL normalize_then_sum', url: 'https://github.com/huggingface/trl/blob/f2cd57710ae345ea6428ae95363267fcf38a3dc8/trl/trainer/grpo_trainer.py' },
      { title: 'NeMo-RL GDPOAdvantageEstimator', url: 'https://github.com/NVIDIA-NeMo/RL/blob/7ea279abfbeb698b092856d0dab61e7cf39bc909/nemo_rl/algorithms/advantage_estimator.py' },
    ],
    create: (params: EstimatorParams) => (batch) => gdpo(batch, params as GdpoOptions),
  },
  {
    name: 'normalized',
    family: 'step',
    summary: 'the normalisation step on the rewards: A = (r - centre) / d(scale), then whitened and clipped, every option a parameter',
    parameters: stepParameters(),
    fields: STEP_FIELDS as unknown as EstimatorDescriptor['fields'],
    needsVectorizer: false,
    needsKernelFile: false,
    groupOfOne: "by singleton: A = 0 (default), dropped, verl's raw, or an error",
    sources: [{ title: 'rl-advantages normalisation step (docs/method.md section 2.6)', url: null }],
    create: (params: EstimatorParams) => {
      const spec = refuseRunning(params as NormalizationSpec, 'normalized');
      return (batch) => normalized(batch, spec);
    },
  },
  ...Object.values(NORMALIZATION_PRESETS).map(presetDescriptor),
];
