// Parameters several estimators share (docs/method.md section 2.1), and the sources the descriptors cite.
import type { EstimatorSource, ParameterDescriptor } from '../descriptor.js';

/** `normalize` with the given modes (the first is the default). */
export function normalizeParameter(modes: readonly ('none' | 'group' | 'batch')[] = ['none', 'group', 'batch']): ParameterDescriptor {
  return {
    name: 'normalize',
    type: 'string',
    default: modes[0] as string,
    required: false,
    choices: modes,
    description: "divide r - b by the group's std ('group'), the batch's ('batch'), or not ('none')",
  };
}

/** `epsilon`, added to the std before dividing. */
export function epsilonParameter(fallback = 1e-6): ParameterDescriptor {
  return {
    name: 'epsilon',
    type: 'number',
    default: fallback,
    required: false,
    minimum: 0,
    description: 'added to the std before dividing (verl 1e-6, TRL 1e-4, OpenRLHF 1e-9)',
  };
}

/** `stdFloor`, a minimum std. */
export const STD_FLOOR: ParameterDescriptor = {
  name: 'stdFloor',
  type: 'number',
  default: 0,
  required: false,
  minimum: 0,
  description: "a minimum std (NeMo-RL's guard for near-constant groups)",
};

/** The normalisation parameters of a centred estimator. */
export const NORMALIZE_PARAMETERS: readonly ParameterDescriptor[] = [normalizeParameter(), epsilonParameter(), STD_FLOOR];

/** A kernel temperature T > 0 (required unless `required` is false). */
export function temperatureParameter(name: string, description: string, required: boolean): ParameterDescriptor {
  return { name, type: 'number', default: null, required, exclusiveMinimum: 0, unit: 'similarity / T', description };
}

/** The framework files docs/estimators.md cites, at the commits read. */
const VERL = 'https://github.com/volcengine/verl/blob/b178a3cd56f58b2d502255daba591e92833930a7/verl/trainer/ppo/core_algos.py';
const TRL = 'https://github.com/huggingface/trl/blob/f2cd5771/trl/trainer/grpo_trainer.py';
const OPENRLHF = 'https://github.com/OpenRLHF/OpenRLHF/blob/3c3be623/openrlhf/trainer/ppo_utils/experience_maker.py';
const COOKBOOK = 'https://github.com/thinking-machines-lab/tinker-cookbook/blob/9dfcc3a2cf44432d621a01005073dc6d76a1e87a/tinker_cookbook/rl/data_processing.py';

/** A framework's implementation: its name for the estimator, and the file. */
function framework(title: string, url: string): EstimatorSource {
  return { title, url };
}

/** The sources the descriptors cite, by key: papers, then framework files (verl, TRL, OpenRLHF, the cookbook). */
export const SOURCES = {
  deepseekMath: { title: 'Shao et al., DeepSeekMath (GRPO), arXiv 2402.03300', url: 'https://arxiv.org/abs/2402.03300' },
  drGrpo: { title: 'Liu et al., Dr. GRPO, arXiv 2503.20783', url: 'https://arxiv.org/abs/2503.20783' },
  rloo: { title: 'Ahmadian et al., Back to Basics (RLOO), arXiv 2402.14740', url: 'https://arxiv.org/abs/2402.14740' },
  reinforcePlusPlus: { title: 'Hu, REINFORCE++, arXiv 2501.03262', url: 'https://arxiv.org/abs/2501.03262' },
  remax: { title: 'Li et al., ReMax, arXiv 2310.10505', url: 'https://arxiv.org/abs/2310.10505' },
  opo: { title: 'Hao et al., OPO, arXiv 2505.23585', url: 'https://arxiv.org/abs/2505.23585' },
  gpg: { title: 'Chu et al., GPG, arXiv 2504.02546', url: 'https://arxiv.org/abs/2504.02546' },
  grpoPassk: { title: 'best-of-group advantage, arXiv 2503.19595', url: 'https://arxiv.org/abs/2503.19595' },
  passk: { title: 'Chen et al., Pass@k Training, arXiv 2508.10751', url: 'https://arxiv.org/abs/2508.10751' },
  passkCode: { title: 'RUCAIBox/Passk_Training@00474d78 code/passk_adv.py', url: 'https://github.com/RUCAIBox/Passk_Training/blob/00474d78dc80afd0a3dde1bda476efec32db34ed/code/passk_adv.py' },
  codex: { title: 'Chen et al., pass@k estimator, arXiv 2107.03374', url: 'https://arxiv.org/abs/2107.03374' },
  jspo: { title: 'JSPO (James-Stein baseline, ours after it), arXiv 2511.03710', url: 'https://arxiv.org/abs/2511.03710' },
  spo: { title: 'SPO (per-prompt value, ours after it), arXiv 2509.13232', url: 'https://arxiv.org/abs/2509.13232' },
  gs1: { title: 'GS1 kernel baseline (docs/method.md section 2)', url: null },
  ours: { title: 'rl-advantages (docs/method.md section 2)', url: null },
  cookbookGroupMean: framework('tinker-cookbook compute_advantages', COOKBOOK),
  verlGrpoNoStd: framework('verl grpo, norm_adv_by_std_in_grpo=False', VERL),
  verlGrpo: framework('verl grpo (epsilon 1e-6)', VERL),
  verlRloo: framework('verl rloo', VERL),
  verlReinforce: framework('verl reinforce_plus_plus_baseline', VERL),
  verlRemax: framework('verl remax', VERL),
  verlOpo: framework('verl opo', VERL),
  verlGpg: framework('verl gpg', VERL),
  verlGrpoPassk: framework('verl grpo_passk', VERL),
  trlNone: framework('TRL scale_rewards="none"', TRL),
  trlGroup: framework('TRL scale_rewards="group" (epsilon 1e-4)', TRL),
  openrlhfDrGrpo: framework('OpenRLHF dr_grpo', OPENRLHF),
  openrlhfGroupNorm: framework('OpenRLHF group_norm (epsilon 1e-9)', OPENRLHF),
  openrlhfRloo: framework('OpenRLHF rloo', OPENRLHF),
  openrlhfReinforce: framework('OpenRLHF reinforce_baseline', OPENRLHF),
} as const satisfies Record<string, EstimatorSource>;
