"""GS1 in SkyRL (NovaSky-AI/SkyRL a9564572): one sample per prompt, tfidf_kernel_loo_T0.1 advantages in place of
SkyRL's grpo, which gives a lone rollout A = r (ppo_utils.py:1378-1380).

Follows SkyRL's own custom-estimator example (examples/train/algorithms/custom_advantage_estimator): register in
the driver (``validate_cfg`` checks the name) and again inside the Ray entrypoint, where the trainer runs, so the
uid -> prompt capture is installed in that process. Needs: pip install rl-advantages skyrl.

    CORPUS=~/gsm8k/train.jsonl python python/examples/skyrl_gs1.py \\
        trainer.algorithm.advantage_estimator=rl_adv:tfidf_kernel_loo_T0.1 generator.n_samples_per_prompt=1 ...
"""

from __future__ import annotations

import os
import sys

import ray

from rl_advantages import Server
from rl_advantages.integrations import skyrl as rl_adv_skyrl

ESTIMATORS = ["tfidf_kernel_loo_T0.1"]


@ray.remote(num_cpus=1)
def skyrl_entrypoint(cfg, corpus):
    from skyrl.train.entrypoints.main_base import BasePPOExp

    rl_adv_skyrl.register(ESTIMATORS, server=Server(corpus=corpus))
    BasePPOExp(cfg).run()


def main() -> None:
    from skyrl.train.config import SkyRLTrainConfig
    from skyrl.train.entrypoints.main_base import validate_cfg
    from skyrl.train.utils import initialize_ray

    corpus = os.environ.get("CORPUS")
    if not corpus:
        sys.exit("skyrl_gs1.py: set CORPUS to the TF-IDF corpus (JSON lines with a question field)")
    rl_adv_skyrl.register(ESTIMATORS, server=Server(corpus=corpus))
    cfg = SkyRLTrainConfig.from_cli_overrides(sys.argv[1:])
    validate_cfg(cfg)
    initialize_ray(cfg)
    ray.get(skyrl_entrypoint.remote(cfg, os.path.abspath(corpus)))


if __name__ == "__main__":
    main()
