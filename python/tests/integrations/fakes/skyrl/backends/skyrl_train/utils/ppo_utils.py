"""Fake skyrl/backends/skyrl_train/utils/ppo_utils.py at a9564572: the advantage-estimator registry without Ray
(:286-351 local path: a second registration of a name is an error), register_advantage_estimator (:518-529),
GRPO's outcome advantage (:1343-1385; a group of one gets mean 0, std 1) and the dispatcher
compute_advantages_and_returns (:1436-1460)."""
from collections import defaultdict
from functools import wraps

import torch


class AdvantageEstimatorRegistry:
    _functions = {}

    @classmethod
    def register(cls, name, func):
        if name in cls._functions:
            raise ValueError(f"advantage estimator '{name}' already registered")
        cls._functions[name] = func

    @classmethod
    def get(cls, name):
        if name not in cls._functions:
            raise ValueError(f"Unknown advantage estimator '{name}'. Available: {list(cls._functions)}")
        return cls._functions[name]

    @classmethod
    def list_available(cls):
        return list(cls._functions)


def register_advantage_estimator(name):
    def decorator(func):
        @wraps(func)
        def wrapper(*args, **kwargs):
            return func(*args, **kwargs)

        AdvantageEstimatorRegistry.register(name, wrapper)
        return wrapper

    return decorator


@register_advantage_estimator("grpo")
def compute_grpo_outcome_advantage(token_level_rewards, response_mask, index, epsilon=1e-6, grpo_norm_by_std=True, **kwargs):
    scores = token_level_rewards.sum(dim=-1)
    id2score, id2mean, id2std = defaultdict(list), {}, {}
    with torch.no_grad():
        for i in range(scores.shape[0]):
            id2score[index[i]].append(scores[i])
        for idx, group in id2score.items():
            if len(group) == 1:
                id2mean[idx], id2std[idx] = torch.tensor(0.0), torch.tensor(1.0)
            else:
                id2mean[idx] = torch.mean(torch.tensor(group))
                id2std[idx] = torch.std(torch.tensor([group]))
        for i in range(scores.shape[0]):
            if grpo_norm_by_std:
                scores[i] = (scores[i] - id2mean[index[i]]) / (id2std[index[i]] + epsilon)
            else:
                scores[i] = scores[i] - id2mean[index[i]]
        scores = scores.unsqueeze(-1) * response_mask
    return scores, scores


def compute_advantages_and_returns(token_level_rewards, response_mask, index, adv_estimator, config, values=None, grpo_norm_by_std=True, gamma=1.0, lambd=1.0, **kwargs):
    estimator_func = AdvantageEstimatorRegistry.get(adv_estimator)
    return estimator_func(
        token_level_rewards=token_level_rewards,
        response_mask=response_mask,
        index=index,
        values=values,
        grpo_norm_by_std=grpo_norm_by_std,
        gamma=gamma,
        lambd=lambd,
        config=config,
        **kwargs,
    )
