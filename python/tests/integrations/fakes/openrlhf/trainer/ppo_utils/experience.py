"""Fake openrlhf/trainer/ppo_utils/experience.py at 3c3be623: the Experience fields the advantage step reads
and writes (:41-69)."""
from dataclasses import dataclass, field


@dataclass
class Experience:
    sequences: object = None
    action_mask: object = None
    returns: object = None
    advantages: object = None
    kl: object = None
    rewards: object = None  # (B,)
    index: list = None
    prompts: list = field(default_factory=list)
    info: dict = field(default_factory=dict)
