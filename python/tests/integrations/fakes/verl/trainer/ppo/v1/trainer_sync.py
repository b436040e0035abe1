"""Fake verl/trainer/ppo/v1/trainer_sync.py: ``PPOTrainerSync`` inherits ``_compute_advantage`` unchanged."""
from verl.trainer.ppo.v1.trainer_base import PPOTrainer, register_trainer


@register_trainer("sync")
class PPOTrainerSync(PPOTrainer):
    pass
