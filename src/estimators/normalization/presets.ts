// The frameworks' normalisation settings as named presets of the normalisation step (docs/estimators.md,
// "Normalisation presets"). Each applies to the raw rewards (x = r); each cites the code it restates.
import { RlAdvantagesError } from '../../errors.js';
import type { NormalizationSpec } from './spec.js';

/** One named preset: the step's options and where they come from. */
export interface NormalizationPreset {
  readonly name: string;
  readonly summary: string;
  readonly spec: Readonly<NormalizationSpec>;
  /** The framework file and commit the settings restate. */
  readonly source: { readonly title: string; readonly url: string };
}

const VERL = 'https://github.com/verl-project/verl/blob/1dda039b9c6311889a9c9a26040677e1254814f9/verl/trainer/ppo/core_algos.py';
const TRL = 'https://github.com/huggingface/trl/blob/f2cd57710ae345ea6428ae95363267fcf38a3dc8/trl/trainer/';
const OPENRLHF = 'https://github.com/OpenRLHF/OpenRLHF/blob/3c3be6234e0cb353e76bb8019947db9dfe99fca7/openrlhf/trainer/ppo_utils/experience_maker.py';
const NEMO = 'https://github.com/NVIDIA-NeMo/RL/blob/7ea279abfbeb698b092856d0dab61e7cf39bc909/nemo_rl/algorithms/';
const AREAL = 'https://github.com/inclusionAI/AReaL/blob/4aef98d8d818af55b43621aaadba047ae10f4e77/areal/utils/data.py';
const ROLL = 'https://github.com/alibaba/ROLL/blob/8eb27cc2dc34c4d1310b169d9b86d339004d811a/roll/utils/functionals.py';

const OPENRLHF_WHITEN: NormalizationSpec = {
  whiten: true,
  whitenWeights: 'tokens',
  whitenVariance: 'biased',
  whitenEpsilon: 1e-8,
  whitenEpsilonMode: 'floor_variance',
};

function preset(name: string, summary: string, spec: NormalizationSpec, title: string, url: string): NormalizationPreset {
  return Object.freeze({ name, summary, spec: Object.freeze(spec), source: Object.freeze({ title, url }) });
}

/** Every preset, by name (docs/estimators.md lists them with their differences from the framework code). */
export const NORMALIZATION_PRESETS: Readonly<Record<string, NormalizationPreset>> = Object.freeze(
  Object.fromEntries(
    [
      preset('verl_grpo', "verl GRPO: (r - mean_g) / (std_g + 1e-6); a group of one gets mean 0, std 1", { singleton: 'raw' }, 'verl compute_grpo_outcome_advantage', VERL),
      preset('verl_dr_grpo', 'verl GRPO without std (Dr. GRPO, norm_adv_by_std_in_grpo=False): r - mean_g; a group of one keeps r', { scale: 'none', singleton: 'raw' }, 'verl compute_grpo_outcome_advantage', VERL),
      preset(
        'verl_rfpp_baseline',
        "verl REINFORCE++ baseline: r - mean_g (a group of one keeps r), whitened over tokens as masked_whiten",
        { scale: 'none', singleton: 'raw', whiten: true, whitenWeights: 'tokens', whitenCountEpsilon: 1e-8 },
        'verl compute_reinforce_plus_plus_baseline_outcome_advantage',
        VERL,
      ),
      preset('trl_grpo', 'TRL GRPO scale_rewards="group": (r - mean_g) / (std_g + 1e-4)', { epsilon: 1e-4, singleton: 'drop' }, 'TRL grpo_trainer.py', `${TRL}grpo_trainer.py`),
      preset('trl_grpo_batch', 'TRL GRPO scale_rewards="batch": (r - mean_g) / (std_batch + 1e-4)', { scale: 'batch', epsilon: 1e-4, singleton: 'drop' }, 'TRL grpo_trainer.py', `${TRL}grpo_trainer.py`),
      preset('trl_grpo_none', 'TRL GRPO scale_rewards="none": r - mean_g', { scale: 'none', singleton: 'drop' }, 'TRL grpo_trainer.py', `${TRL}grpo_trainer.py`),
      preset(
        'trl_rloo',
        'TRL RLOO normalize_advantages=True: r - mean of the others, whitened (A - mean A) / (std A + 1e-4)',
        { leaveOneOut: true, scale: 'none', singleton: 'drop', whiten: true, whitenEpsilon: 1e-4, whitenEpsilonMode: 'add_std' },
        'TRL rloo_trainer.py',
        `${TRL}rloo_trainer.py`,
      ),
      preset('openrlhf_reinforce', 'OpenRLHF reinforce: r whitened over tokens, biased variance clamped at 1e-8', { centre: 'none', scale: 'none', ...OPENRLHF_WHITEN }, 'OpenRLHF experience_maker.py', OPENRLHF),
      preset('openrlhf_reinforce_baseline', 'OpenRLHF reinforce_baseline: r - mean_g, whitened over tokens, biased variance clamped at 1e-8', { scale: 'none', singleton: 'error', ...OPENRLHF_WHITEN }, 'OpenRLHF experience_maker.py', OPENRLHF),
      preset('openrlhf_group_norm', 'OpenRLHF group_norm: (r - mean_g) / (std_g + 1e-9)', { epsilon: 1e-9, singleton: 'error' }, 'OpenRLHF experience_maker.py', OPENRLHF),
      preset('openrlhf_rloo', 'OpenRLHF rloo: r - mean of the others', { leaveOneOut: true, scale: 'none', singleton: 'error' }, 'OpenRLHF experience_maker.py', OPENRLHF),
      preset(
        'nemo_grpo',
        'NeMo-RL GRPO: r - mean of the others, divided by (std of the others + 1e-6) only when that std > 0',
        { leaveOneOut: true, scale: 'loo', zeroStd: 'skip' },
        'NeMo-RL advantage_estimator.py GRPOAdvantageEstimator, utils.py calculate_baseline_and_std_per_prompt',
        `${NEMO}advantage_estimator.py`,
      ),
      preset('nemo_grpo_no_loo', 'NeMo-RL GRPO, use_leave_one_out_baseline=False: (r - mean_g) / (std_g + 1e-6) when std_g > 0', { zeroStd: 'skip' }, 'NeMo-RL advantage_estimator.py', `${NEMO}advantage_estimator.py`),
      preset(
        'nemo_reinforce_plus_plus',
        'NeMo-RL Reinforce++ (minus_baseline): r - mean_g, whitened over tokens, biased variance clamped at 1e-8',
        { scale: 'none', ...OPENRLHF_WHITEN },
        'NeMo-RL advantage_estimator.py ReinforcePlusPlusAdvantageEstimator',
        `${NEMO}advantage_estimator.py`,
      ),
      preset('areal_grpo', 'AReaL adv_norm mean_level=group, std_level=group: token-weighted, unbiased, eps 1e-5', { weights: 'tokens', epsilon: 1e-5 }, 'AReaL Normalization', AREAL),
      preset('areal_batch', "AReaL's default adv_norm mean_level=batch, std_level=batch: token-weighted, unbiased, eps 1e-5", { centre: 'batch', scale: 'batch', weights: 'tokens', epsilon: 1e-5 }, 'AReaL Normalization', AREAL),
      preset('areal_dr_grpo', 'AReaL mean_level=group, std_level=None: token-weighted group centring', { scale: 'none', weights: 'tokens' }, 'AReaL Normalization', AREAL),
      preset(
        'areal_leave1out',
        'AReaL mean_level=group, mean_leave1out=True, std_level=group: LOO centre, std around the LOO centres',
        { leaveOneOut: true, stdAround: 'centre', epsilon: 1e-5 },
        'AReaL Normalization',
        AREAL,
      ),
      preset('roll_grpo', 'ROLL grpo (norm_mean_type=group, norm_std_type=group): (r - mean_g) / (std_g + 1e-6)', {}, 'ROLL reward_norm', ROLL),
      preset('roll_running', 'ROLL norm_mean_type=running, norm_std_type=running: running moments updated with the batch, then (r - mean) / (std + 1e-6)', { centre: 'running', scale: 'running' }, 'ROLL reward_norm, RunningMoments', ROLL),
    ].map((p) => [p.name, p]),
  ),
);

/** The preset names, in the order the docs list them. */
export const NORMALIZATION_PRESET_NAMES: readonly string[] = Object.freeze(Object.keys(NORMALIZATION_PRESETS));

/**
 * A preset by name.
 *
 * @throws {@link RlAdvantagesError} (code `unknown_preset`) listing the presets.
 * @example
 * ```ts
 * normalizationPreset('trl_rloo').spec.whiten; // true
 * ```
 */
export function normalizationPreset(name: string): NormalizationPreset {
  const found = typeof name === 'string' && Object.hasOwn(NORMALIZATION_PRESETS, name) ? NORMALIZATION_PRESETS[name] : undefined;
  if (found === undefined) {
    throw new RlAdvantagesError(`unknown normalisation preset "${String(name)}"; presets: ${NORMALIZATION_PRESET_NAMES.join(', ')}`, {
      code: 'unknown_preset',
      field: 'preset',
    });
  }
  return found;
}
