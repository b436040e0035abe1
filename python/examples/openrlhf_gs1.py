"""GS1 in OpenRLHF (OpenRLHF/OpenRLHF 3c3be623): one sample per prompt, tfidf_kernel_loo_T0.1 advantages in place
of OpenRLHF's per-prompt baselines (which refuse n_samples_per_prompt = 1, cli/train_ppo_ray.py:612-615).

The advantage step runs inside the PPOTrainer Ray actor, so the replacement is installed there by Ray's
``worker_process_setup_hook`` before OpenRLHF's own ``train(args)`` (which keeps an initialised Ray). Pass
OpenRLHF's usual arguments; this script adds ``--algo.advantage.estimator reinforce`` and
``--rollout.n_samples_per_prompt 1``. Needs: pip install rl-advantages openrlhf.

    CORPUS=~/gsm8k/train.jsonl python python/examples/openrlhf_gs1.py --actor.model_name_or_path ... --data.prompt_data ...
"""

from __future__ import annotations

import os
import sys

import ray


def main() -> None:
    corpus = os.environ.get("CORPUS")
    if not corpus:
        sys.exit("openrlhf_gs1.py: set CORPUS to the TF-IDF corpus (JSON lines with a question field)")
    ray.init(
        runtime_env={
            "worker_process_setup_hook": "rl_advantages.integrations.openrlhf.install_from_env",
            "env_vars": {"RL_ADV_ESTIMATOR": "tfidf_kernel_loo_T0.1", "RL_ADV_CORPUS": os.path.abspath(corpus)},
        }
    )
    sys.argv += ["--algo.advantage.estimator", "reinforce", "--rollout.n_samples_per_prompt", "1"]
    import runpy

    runpy.run_module("openrlhf.cli.train_ppo_ray", run_name="__main__")


if __name__ == "__main__":
    main()
