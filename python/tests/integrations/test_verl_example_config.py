"""python/examples/verl_gs1.sh passes verl's own configuration validation (verl/utils/config.py validate_config and
ActorConfig's checks at verl-project/verl 1dda039b, run from a fetched copy by fixtures/verl_example_config.py, whose
verdicts are fixtures/verl-example-config.json); the example as it was (train batch 64, no mini/micro batch sizes)
did not."""

from __future__ import annotations

import json
import os

from fixtures.verl_example_config import example_overrides

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = json.load(open(os.path.join(HERE, "fixtures", "verl-example-config.json"), encoding="utf-8"))


def test_the_example_is_the_one_verl_validated():
    assert example_overrides() == FIXTURE["overrides"], "the example changed: rerun fixtures/verl_example_config.py"


def test_verl_accepts_the_example_and_rejected_the_old_one():
    assert FIXTURE["verdicts"]["example"] == "valid"
    assert "ppo_micro_batch_size" in FIXTURE["verdicts"]["example_without_batch_sizes"]
    assert FIXTURE["verdicts"]["example_without_ppo_mini_batch_size"].startswith("ValueError: train_batch_size (64) must be >= actor.ppo_mini_batch_size (256)")
