"""Fake verl/trainer/ppo/v1/trainer_separate_async.py: ``PPOTrainerSeparateAsync`` inherits ``_compute_advantage``."""
from verl.trainer.ppo.v1.trainer_base import PPOTrainer, register_trainer


@register_trainer("separate_async")
class PPOTrainerSeparateAsync(PPOTrainer):
    pass
