"""Fake verl/trainer/ppo/ray_trainer.py at 1dda039b: compute_advantage (:187-282) and its call in fit (:1667-1675)."""
from verl.trainer.ppo import core_algos
from verl.trainer.ppo.core_algos import AdvantageEstimator


def compute_advantage(data, adv_estimator, gamma=1.0, lam=1.0, num_repeat=1, norm_adv_by_std_in_grpo=True, config=None):
    if adv_estimator == AdvantageEstimator.GAE:
        raise NotImplementedError("the fake has no critic")
    elif adv_estimator == AdvantageEstimator.GRPO:  # :235-248
        advantages, returns = core_algos.compute_grpo_outcome_advantage(
            token_level_rewards=data.batch["token_level_rewards"],
            response_mask=data.batch["response_mask"],
            index=data.non_tensor_batch["uid"],
            norm_adv_by_std_in_grpo=norm_adv_by_std_in_grpo,
        )
    else:  # :249-279, the call every registered estimator gets
        adv_estimator_fn = core_algos.get_adv_estimator_fn(adv_estimator)
        adv_kwargs = {
            "token_level_rewards": data.batch["token_level_rewards"],
            "response_mask": data.batch["response_mask"],
            "config": config,
        }
        if "uid" in data.non_tensor_batch:
            adv_kwargs["index"] = data.non_tensor_batch["uid"]
        if "reward_baselines" in data.batch:
            adv_kwargs["reward_baselines"] = data.batch["reward_baselines"]
        advantages, returns = adv_estimator_fn(**adv_kwargs)
    data.batch["advantages"] = advantages
    data.batch["returns"] = returns
    return data


class RayPPOTrainer:
    """Only the advantage step of fit(): the module-level name is looked up at call time (:1667)."""

    def __init__(self, config):
        self.config = config

    def advantage_step(self, batch):
        return compute_advantage(
            batch,
            adv_estimator=self.config["algorithm"]["adv_estimator"],
            gamma=1.0,
            lam=1.0,
            num_repeat=self.config["rollout_n"],
            norm_adv_by_std_in_grpo=self.config["algorithm"].get("norm_adv_by_std_in_grpo", True),
            config=self.config["algorithm"],
        )
