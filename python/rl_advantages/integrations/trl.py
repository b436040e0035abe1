"""TRL: ``GRPOTrainer``, a drop-in subclass of ``trl.GRPOTrainer`` whose advantages come from a catalogue estimator.

Written against trl 1.13.0 (PyPI; ``trl/trainer/grpo_trainer.py`` and ``grpo_config.py`` of that release;
the same code at huggingface/trl f2cd57710ae345ea6428ae95363267fcf38a3dc8). TRL has no hook for the advantage
alone: the maintainers' answer in huggingface/trl#4525 is to subclass ``GRPOTrainer`` and override only
``_generate_and_score_completions``, returning its output dict with new ``advantages``. That is what this
class does:

1. Before the stock method runs, the batch's prompt texts are gathered across processes
   (``accelerate.utils.gather_object``), in the same order as TRL gathers the rewards.
2. The stock method runs unchanged. Its ``_calculate_rewards`` returns ``rewards_per_func``, already gathered
   across processes (grpo_trainer.py:1730-1731 in 1.13.0); this class keeps that tensor.
3. The reward of a completion is TRL's: the weighted sum of the reward functions (``reward_weights``),
   NaN when every function returned None (such a completion is masked and its advantage is 0, as in TRL).
   Group ids are ``position // num_generations`` over the gathered batch (TRL's ``rewards.view(-1, G)``).
4. ``rl_advantages.compute_advantages`` gives the float64 advantages of the whole gathered batch; this process
   keeps its slice (TRL's ``process_slice``), cast to the dtype TRL uses, and the logged ``advantages`` column
   of the completions table is rewritten with them. The estimator's diagnostics ``zero_advantage_fraction`` and
   ``groups_of_one`` are logged as ``rl_adv/...`` metrics.

``num_generations=1`` (group size 1, GS1): ``trl.GRPOConfig`` refuses it (grpo_config.py:1124-1128 in 1.13.0,
"GRPO requires at least 2 generations per prompt"). :class:`GRPOConfig` here accepts it: it runs TRL's checks
with ``num_generations`` set to a divisor of the generation batch, then sets it back to 1. Nothing else in
TRL divides by ``num_generations - 1``; the stock advantage that is thrown away is 0 at G = 1. The trainer
refuses ``num_generations=1`` for an estimator that requires group ids (its catalogue entry says so).

Example::

    from rl_advantages import Server
    from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer

    args = GRPOConfig(output_dir="out", num_generations=1, per_device_train_batch_size=8)
    trainer = GRPOTrainer(
        model=model, reward_funcs=reward_fn, args=args, train_dataset=dataset,
        advantage_estimator="tfidf_kernel_loo_T0.1",
        advantage_server=Server(corpus="train.jsonl"),   # the TF-IDF vocabulary
    )
    trainer.train()
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

try:
    import torch
    import trl
    from accelerate.utils import gather_object
except ImportError as _error:  # pragma: no cover - exercised only without TRL
    raise ImportError(
        f"rl_advantages.integrations.trl needs TRL and PyTorch ({_error}): pip install trl"
    ) from _error

import rl_advantages

from ._common import RolloutBatch, prompt_text

__all__ = ["GRPOConfig", "GRPOTrainer"]


class GRPOConfig(trl.GRPOConfig):
    """``trl.GRPOConfig`` that also accepts ``num_generations=1`` (one completion per prompt).

    TRL's own checks run unchanged with ``num_generations`` temporarily set to the number of completions one
    process generates per generation step (``generation_batch_size`` when given, else
    ``per_device_train_batch_size * steps_per_generation`` or ``* gradient_accumulation_steps``), which
    divides the global generation batch; ``num_generations_eval`` left unset becomes 1.

    Raises:
        ValueError: ``num_generations=1`` with a generation batch of one completion (no other rollout to
            baseline against), or whatever ``trl.GRPOConfig`` raises.
    """

    def __post_init__(self) -> None:
        if self.num_generations != 1:
            super().__post_init__()
            return
        if self.generation_batch_size is not None:
            stand_in = int(self.generation_batch_size)
        else:
            steps = self.steps_per_generation if self.steps_per_generation is not None else self.gradient_accumulation_steps
            stand_in = int(self.per_device_train_batch_size) * int(steps)
        if stand_in < 2:
            raise ValueError(
                "num_generations=1 needs at least 2 completions per generation step (per_device_train_batch_size * "
                f"steps_per_generation, or generation_batch_size), got {stand_in}: a batch of one has no other rollout "
                "to baseline against"
            )
        if self.num_generations_eval is None:
            self.num_generations_eval = 1
        self.num_generations = stand_in
        try:
            super().__post_init__()
        finally:
            self.num_generations = 1


class GRPOTrainer(trl.GRPOTrainer):
    """``trl.GRPOTrainer`` with its advantages computed by a catalogue estimator.

    Args:
        *args: as ``trl.GRPOTrainer``.
        advantage_estimator: a catalogue name (``"group_mean"``, ``"tfidf_kernel_loo_T0.1"``) or the wire form
            (``{"name": "tfidf_kernel_loo", "temperature": 0.1}``). Required.
        advantage_server: the ``rl_advantages.Server`` to use (one started with a TF-IDF corpus or vectorizer for
            the text kernels); the process's default server if None.
        advantage_prompt_text: ``f(example) -> str``, the text of one dataset row the estimator sees; default: the
            row's ``"prompt"`` (a string as is, a chat's last user message).
        advantage_options: more request options (``normalize``, ``std_floor``, ...).
        **kwargs: as ``trl.GRPOTrainer``.

    Attributes:
        last_advantage_result: the last ``rl_advantages`` result (whole gathered batch), with
            ``last_advantage_inputs`` the rewards, prompts and group ids it was computed from.

    Raises:
        RlAdvantagesError: the estimator is not in the catalogue, or it requires group ids and
            ``num_generations`` is 1.
    """

    def __init__(
        self,
        *args: Any,
        advantage_estimator: Any = None,
        advantage_server: Any = None,
        advantage_prompt_text: Callable[[Mapping[str, Any]], str] | None = None,
        advantage_options: Mapping[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if advantage_estimator is None:
            raise TypeError("GRPOTrainer needs advantage_estimator (a catalogue name or {'name': ...}); use trl.GRPOTrainer for TRL's own")
        self._rl_adv = RolloutBatch(advantage_estimator, advantage_server, **dict(advantage_options or {}))
        self._rl_adv_prompt_text = advantage_prompt_text or (lambda row: prompt_text(row.get("prompt"), "dataset row"))
        super().__init__(*args, **kwargs)
        if self.num_generations == 1 and self._rl_adv.needs_groups:
            raise rl_advantages.RlAdvantagesError(
                "bad_request",
                f"advantage_estimator {self._rl_adv.entry['name']} needs groups of completions (group_ids); "
                "with num_generations=1 use an estimator that does not (e.g. tfidf_kernel_loo_T0.1, loo_batch_mean)",
                field="num_generations",
            )
        self._rl_adv_rewards: Any = None
        self.last_advantage_result: Any = None
        self.last_advantage_inputs: dict[str, Any] | None = None

    def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, completion_ids_list: Any) -> Any:
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._rl_adv_rewards = rewards_per_func  # gathered across processes by TRL
        return rewards_per_func

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        texts = [self._rl_adv_prompt_text(row) for row in inputs]
        all_texts = gather_object(texts)  # same order as TRL's gather of the rewards
        self._rl_adv_rewards = None
        output = super()._generate_and_score_completions(inputs)
        rewards_per_func = self._rl_adv_rewards
        if rewards_per_func is None:
            raise RuntimeError("TRL's _generate_and_score_completions did not call _calculate_rewards: this TRL version is not supported")
        mode = "train" if self.model.training else "eval"
        group_size = self.num_generations if mode == "train" else self.num_generations_eval
        weights = self.reward_weights.to(rewards_per_func.device).unsqueeze(0)
        unscorable = torch.isnan(rewards_per_func).all(dim=1)
        rewards = (rewards_per_func * weights).nansum(dim=1).double()
        rewards[unscorable] = float("nan")
        n = rewards.shape[0]
        if len(all_texts) != n:
            raise RuntimeError(f"{len(all_texts)} prompts for {n} gathered rewards")
        group_ids = [i // group_size for i in range(n)]
        mask = unscorable.tolist() if bool(unscorable.any()) else None  # True = masked: no baseline reads it, A = 0
        lengths = self.accelerator.gather(output["completion_mask"].sum(dim=1)).double().cpu().numpy()  # collective, as TRL's
        result = self._rl_adv.compute(rewards.cpu().numpy(), group_ids=group_ids, prompts=all_texts, mask=mask, lengths=lengths)
        stock = output["advantages"]
        advantages = torch.as_tensor(result.advantages, dtype=stock.dtype, device=stock.device)
        advantages[unscorable.to(stock.device)] = 0.0
        local = len(inputs)
        start = self.accelerator.process_index * local
        output["advantages"] = advantages[start : start + local]
        logged = self._logs["advantages"]
        for _ in range(min(n, len(logged))):
            logged.pop()
        logged.extend(advantages.tolist())
        for key in ("zero_advantage_fraction", "groups_of_one"):
            if key in result.diagnostics:
                self._metrics[mode][f"rl_adv/{key}"].append(float(result.diagnostics[key]))
        self.last_advantage_result = result
        self.last_advantage_inputs = {"rewards": rewards.cpu().numpy(), "prompts": list(all_texts), "group_ids": group_ids}
        return output
