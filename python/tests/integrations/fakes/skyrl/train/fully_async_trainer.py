"""Fake skyrl/train/fully_async_trainer.py at a9564572: ``FullyAsyncRayPPOTrainer(RayPPOTrainer)`` (:329) binds
``prepare_generator_input`` by name (:41) and calls it from its own module (:897); it inherits the advantage step."""
from skyrl.train.generators.utils import prepare_generator_input
from skyrl.train.trainer import RayPPOTrainer


class FullyAsyncRayPPOTrainer(RayPPOTrainer):
    def prepare(self, rand_prompts):
        """The async generation loop's call (:897): this module's ``prepare_generator_input``."""
        return prepare_generator_input(rand_prompts, self.cfg["n_samples_per_prompt"], {}, "env", "train", 0)
