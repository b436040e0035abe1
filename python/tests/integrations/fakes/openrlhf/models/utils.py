"""Fake openrlhf/models/utils.py at 3c3be623: compute_reward (:98-126), the outcome reward on the last action
token plus the per-token KL penalty."""
import torch


def compute_reward(r, kl_coef, kl, action_mask=None, reward_clip_range=None):
    if kl_coef <= 0.0:
        kl_coef = 0.0
    if reward_clip_range:
        r = r.clamp(min=reward_clip_range[0], max=reward_clip_range[1])
    kl_reward = -kl_coef * kl
    eos_indices = action_mask.size(1) - 1 - action_mask.long().fliplr().argmax(dim=1, keepdim=True)
    last_reward = torch.zeros_like(kl).scatter_(dim=1, index=eos_indices, src=r.unsqueeze(1).to(kl.dtype))
    return last_reward + kl_reward
