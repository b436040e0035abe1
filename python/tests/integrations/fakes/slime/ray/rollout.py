"""Fake slime/ray/rollout.py at 624b824a: how the custom post-processing is loaded (:388-390, load_function of
slime/utils/misc.py:39) and called (:608-630, the stock group normalisation when none is given)."""
import importlib

import torch


def load_function(path):
    module, _, name = path.rpartition(".")
    return getattr(importlib.import_module(module), name)


class RolloutManager:
    def __init__(self, args):
        self.args = args
        self.custom_reward_post_process_func = None
        if args.custom_reward_post_process_path is not None:
            self.custom_reward_post_process_func = load_function(args.custom_reward_post_process_path)

    def _post_process_rewards(self, samples):
        if self.custom_reward_post_process_func is not None:
            return self.custom_reward_post_process_func(self.args, samples)
        raw_rewards = [sample.get_reward_value(self.args) for sample in samples]
        if self.args.advantage_estimator in ["grpo", "gspo", "cispo", "reinforce_plus_plus_baseline"] and self.args.rewards_normalization:
            rewards = torch.tensor(raw_rewards, dtype=torch.float)
            if rewards.shape[-1] == self.args.n_samples_per_prompt * self.args.rollout_batch_size:
                rewards = rewards.reshape(-1, self.args.n_samples_per_prompt)
            else:
                rewards = rewards.view(-1, rewards.shape[-1])
            mean = rewards.mean(dim=-1, keepdim=True)
            rewards = rewards - mean
            if self.args.advantage_estimator in ["grpo", "gspo", "cispo"] and self.args.grpo_std_normalization:
                std = rewards.std(dim=-1, keepdim=True)
                rewards = rewards / (std + 1e-6)
            return raw_rewards, rewards.flatten().tolist()
        return raw_rewards, raw_rewards
