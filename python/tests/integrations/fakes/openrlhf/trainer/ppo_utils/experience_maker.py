"""Fake openrlhf/trainer/ppo_utils/experience_maker.py at 3c3be623: RemoteExperienceMaker's advantage step.

``make_experience_batch`` calls ``self.compute_advantages_and_returns(experiences)`` (:95); the stock method
(:238-328) is kept here for its ``dr_grpo`` path only (group-mean baseline, no whitening): reward shaping in
prompt order (:246-273), ``compute_reward`` then cumulative returns (:276-306)."""
import itertools

import torch

from openrlhf.models.utils import compute_reward
from openrlhf.trainer.ppo_utils.length_penalty import apply_length_penalties


class RemoteExperienceMaker:
    def __init__(self, strategy, kl_controller):
        self.strategy = strategy
        self.args = strategy.args
        self.advantage_estimator = strategy.args.algo.advantage.estimator
        self.kl_ctl = kl_controller

    def make_experience_batch(self, experiences):
        return self.compute_advantages_and_returns(experiences)

    @torch.no_grad()
    def compute_advantages_and_returns(self, experiences):
        args = self.strategy.args
        apply_length_penalties(experiences, args)
        exp_len = [len(e.index) for e in experiences]
        indices = torch.tensor(list(itertools.chain.from_iterable(e.index for e in experiences)))
        raw_rewards = torch.cat([e.rewards for e in experiences], dim=0)
        rewards = torch.empty_like(raw_rewards)
        rewards[indices] = raw_rewards
        rewards = rewards.reshape(-1, args.rollout.n_samples_per_prompt)
        if args.algo.advantage.estimator != "dr_grpo":
            raise NotImplementedError("the fake keeps the dr_grpo path only")
        rewards = rewards - rewards.mean(-1, keepdim=True)
        rewards = rewards.reshape(-1)[indices].split(exp_len)
        for e, reward in zip(experiences, rewards):
            reward = compute_reward(reward, self.kl_ctl.value, e.kl, action_mask=e.action_mask, reward_clip_range=args.reward.clip_range)
            e.returns = self.get_cumulative_returns(reward, e.action_mask, args.algo.advantage.gamma)
            e.advantages = e.returns.clone()
            e.info["return"] = reward.sum(dim=-1)
            e.kl = None
        return experiences

    @torch.no_grad()
    def get_cumulative_returns(self, rewards, action_mask, gamma):  # :380-411
        response_length = rewards.size(1)
        returns = torch.zeros_like(rewards)
        cumulative_return = torch.zeros(rewards.size(0), device=rewards.device)
        if action_mask is not None:
            rewards = action_mask * rewards
        for t in reversed(range(response_length)):
            cumulative_return = rewards[:, t] + gamma * cumulative_return
            returns[:, t] = cumulative_return
        return returns
