"""Fake slime/utils/types.py at 624b824a: the Sample fields the post-processing reads (:94-108, :246-247)."""
from dataclasses import dataclass


@dataclass
class Sample:
    group_index: int | None = None
    index: int | None = None
    prompt: object = ""
    response: str = ""
    response_length: int = 0
    reward: object = None

    def get_reward_value(self, args):
        return self.reward if not args.reward_key else self.reward[args.reward_key]
