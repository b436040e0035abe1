"""Fake openrlhf/trainer/ppo_utils/length_penalty.py at 3c3be623: apply_length_penalties(experiences, args), a
no-op unless a length penalty is configured (the fake records that it was called)."""

CALLS = []


def apply_length_penalties(experiences, args):
    CALLS.append(len(experiences))
