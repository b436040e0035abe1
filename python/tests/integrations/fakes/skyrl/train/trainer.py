"""Fake skyrl/train/trainer.py at a9564572: prepare_generator_input imported by name (:67-71) and called in the
training step (:347-355); ``RayPPOTrainer.compute_advantages_and_returns(self, data)`` (:1124-1192, the
non-step-wise branch: ``index=data.metadata["uids"]``, the padded batch's rows)."""
import numpy as np

from skyrl.backends.skyrl_train.utils import ppo_utils
from skyrl.train.generators.utils import prepare_generator_input


class RayPPOTrainer:
    def __init__(self, cfg):
        self.cfg = cfg

    def step(self, rand_prompts, rewards_for, response_length=4):
        """Prepare the generator input, 'generate' (rewards_for(prompt_text, k) gives each sample's reward),
        then compute the advantages as the trainer does."""
        import torch

        generator_input, uids = prepare_generator_input(rand_prompts, self.cfg["n_samples_per_prompt"], {}, "env", "train", 0)
        rewards = [rewards_for(p, k) for k, p in enumerate(generator_input["prompts"])]
        n = len(rewards)
        mask = torch.ones(n, response_length)
        for i in range(n):
            mask[i, response_length - 1 - (i % 2) :] = 0
        token_level = torch.zeros(n, response_length)
        for i, r in enumerate(rewards):
            token_level[i, int(mask[i].sum()) - 1] = r
        advantages, returns = ppo_utils.compute_advantages_and_returns(
            token_level_rewards=token_level,
            response_mask=mask,
            index=uids,
            adv_estimator=self.cfg["advantage_estimator"],
            config=self.cfg,
            values=None,
            gamma=1.0,
            lambd=1.0,
            grpo_norm_by_std=self.cfg.get("grpo_norm_by_std", True),
        )
        return np.array(rewards), mask, advantages, returns

    def compute_advantages_and_returns(self, data):
        """trainer.py:1182-1194: the registered estimator on the (padded) batch; advantages and returns stored."""
        advantages, returns = ppo_utils.compute_advantages_and_returns(
            token_level_rewards=data["rewards"],
            response_mask=data["response_mask"],
            index=data.metadata["uids"],
            adv_estimator=self.cfg["advantage_estimator"],
            config=self.cfg,
            values=data.get("values"),
            gamma=1.0,
            lambd=1.0,
            grpo_norm_by_std=self.cfg.get("grpo_norm_by_std", True),
        )
        data["returns"] = returns
        data["advantages"] = advantages
        return data


class TrainingInputBatch(dict):
    """skyrl/backends/skyrl_train/training_batch.py:492: a dict of tensors with ``metadata``."""

    metadata = None
