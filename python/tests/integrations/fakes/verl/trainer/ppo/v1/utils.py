"""Fake verl/trainer/ppo/v1/utils.py at 1dda039b: ``compute_advantage_for_multi_trajectories``.

At that commit this module binds ``compute_advantage`` by name when it loads (``from
verl.trainer.ppo.ray_trainer import compute_advantage``; later verl imports it from ``trainer_utils``): wrapping
``ray_trainer.compute_advantage`` after this import does not reach the call below. Any estimator but GRPO goes to that ``compute_advantage`` with the whole
batch unchanged; GRPO keeps the final output of each ``{uid}_{session_id}`` session and broadcasts its score."""
import torch

from verl.trainer.ppo import core_algos
from verl.trainer.ppo.ray_trainer import compute_advantage


def compute_advantage_for_multi_trajectories(data, batch_keys, adv_estimator, gamma=1.0, lam=1.0, num_repeat=1, norm_adv_by_std_in_grpo=True, config=None):
    if adv_estimator != core_algos.AdvantageEstimator.GRPO:
        return compute_advantage(data, adv_estimator=adv_estimator, gamma=gamma, lam=lam, num_repeat=num_repeat, norm_adv_by_std_in_grpo=norm_adv_by_std_in_grpo, config=config)
    final_sessions, row_session_keys = {}, []
    for i, key in enumerate(batch_keys):  # keys are "{uid}_{session_id}_{index}"
        uid, session_id, index = key.rsplit("_", 2)
        session_key = f"{uid}_{session_id}"
        row_session_keys.append(session_key)
        if session_key not in final_sessions or final_sessions[session_key][0] < int(index):
            final_sessions[session_key] = (int(index), i)
    final_indices = [row for _, row in final_sessions.values()]
    local = {key: j for j, key in enumerate(final_sessions)}
    final_data = compute_advantage(data.select_idxs(final_indices), adv_estimator=adv_estimator, gamma=gamma, lam=lam, num_repeat=num_repeat, norm_adv_by_std_in_grpo=norm_adv_by_std_in_grpo, config=config)
    first = final_data.batch["response_mask"].argmax(dim=1)
    final_scores = final_data.batch["advantages"][torch.arange(len(final_indices)), first]
    scores = final_scores[[local[k] for k in row_session_keys]].unsqueeze(-1) * data.batch["response_mask"]
    data.batch["advantages"] = scores
    data.batch["returns"] = scores
    return data
