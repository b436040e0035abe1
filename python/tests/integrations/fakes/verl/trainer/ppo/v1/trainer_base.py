"""Fake verl/trainer/ppo/v1/trainer_base.py at 1dda039b: ``PPOTrainer._compute_advantage`` (:1638), the v1
advantage step, with the names this module binds when it loads (``import transfer_queue as tq``; ``from
verl.trainer.ppo.v1.utils import compute_advantage_for_multi_trajectories``).

The body follows the method as stored for verl-project/verl (the commit 1dda039b itself was not in the snapshots
readable here; :1638 is that commit's line): the seven fields read, the padded ``DataProto``, ``rm_scores`` as
token-level scores, ``uid`` moved to ``non_tensor_batch``, no KL in the reward, no rollout correction, the call,
and ``advantages``/``returns`` written back."""
import numpy as np

import transfer_queue as tq
from verl.protocol import DataProto
from verl.trainer.ppo.v1.utils import compute_advantage_for_multi_trajectories

TRAINER_REGISTRY = {}


def register_trainer(name):  # the registry the sync / colocate_async / separate_async trainers use
    def decorator(cls):
        TRAINER_REGISTRY[name] = cls
        return cls

    return decorator


class PPOTrainer:
    def __init__(self, config):
        self.config = config

    def _compute_advantage(self, batch, metrics):
        # the fields read from the TransferQueue (no raw_prompt); a DataProto with only uid non-tensor
        fields = ["uid", "response_mask", "rm_scores", "rollout_log_probs", "old_log_probs", "ref_log_prob", "values"]
        data = tq.kv_batch_get(keys=batch.keys, partition_id=batch.partition_id, select_fields=fields)
        data = DataProto(batch=data.to_padded_tensor())
        data.batch["token_level_scores"] = data.batch["rm_scores"]
        data.non_tensor_batch["uid"] = np.array(data.batch.pop("uid").tolist(), dtype=object)
        # use_kl_in_reward false, no rollout correction: the token-level rewards are the scores
        data.batch["token_level_rewards"] = data.batch["token_level_scores"]
        data = compute_advantage_for_multi_trajectories(
            data,
            batch_keys=batch.keys,
            adv_estimator=self.config.algorithm.adv_estimator,
            gamma=self.config.algorithm.gamma,
            lam=self.config.algorithm.lam,
            num_repeat=self.config.actor_rollout_ref.rollout.n,
            norm_adv_by_std_in_grpo=self.config.algorithm.get("norm_adv_by_std_in_grpo", True),
            config=self.config.algorithm,
        )
        # advantages and returns back to the TransferQueue (response_to_nested: rows here are not ragged)
        return tq.kv_batch_put(keys=batch.keys, partition_id=batch.partition_id, fields={f: data.batch[f] for f in ("advantages", "returns")})
