"""TRL: ``GRPOTrainer``, a drop-in subclass of ``trl.GRPOTrainer`` whose advantages come from a catalogue estimator.

Written against trl 1.13.0 (PyPI; ``trl/trainer/grpo_trainer.py`` and ``grpo_config.py`` of that release;
the same code at huggingface/trl f2cd57710ae345ea6428ae95363267fcf38a3dc8). TRL has no hook for the advantage
alone: the maintainers' answer in huggingface/trl#4525 is to subclass ``GRPOTrainer`` and override
``_generate_and_score_completions``, returning its output dict with new ``advantages``. This class overrides it
and ``_calculate_rewards`` (to keep what TRL computed there):

1. The stock method runs unchanged. Its ``_calculate_rewards(inputs, prompts, ...)`` (grpo_trainer.py:1636)
   returns ``rewards_per_func``, already gathered across processes (:1730-1731); this class keeps that tensor and
   the ``prompts`` TRL generated from (the dataset's, with an environment's ``reset()`` observation, :2355-2420).
2. The reward of a completion is TRL's: the weighted sum of the reward functions (``reward_weights``),
   NaN when every function returned None (such a completion is masked and its advantage is 0, as in TRL).
   Group ids are ``position // num_generations`` over the gathered batch (TRL's ``rewards.view(-1, G)``).
   Only an estimator that reads prompts gets them: their text gathered across processes
   (``accelerate.utils.gather_object``, the order of TRL's gather of the rewards); an empty one is refused.
3. ``rl_advantages.compute_advantages`` gives the float64 advantages of the whole gathered batch; this process
   keeps its slice (TRL's ``process_slice``), cast to the dtype TRL uses, and the logged ``advantages`` column
   of the completions table is rewritten with them. ``rl_adv/zero_advantage_fraction`` (the estimator's) and
   ``rl_adv/groups_of_one`` (TRL's groups with one scorable completion) are logged.

TRL's settings that shape advantages are applied, or refused at construction: ``scale_rewards`` through the
estimator's ``normalize`` with TRL's epsilon 1e-4 (:2793-2813), so ``group_mean`` equals stock TRL in every mode;
the preset ``trl_grpo`` takes it as its ``scale`` (stock TRL in every mode too); any other preset must already
divide as ``scale_rewards`` says; ``multi_objective_aggregation="normalize_then_sum"`` (:2816-2826) only with
``gdpo`` in flavour ``"trl"`` (verl's and NeMo-RL's flavours would train on other advantages).

``num_generations=1`` (group size 1, GS1): ``trl.GRPOConfig`` refuses it (grpo_config.py:1124-1128 in 1.13.0,
"GRPO requires at least 2 generations per prompt"). :class:`GRPOConfig` here accepts it: it runs TRL's checks
with ``num_generations`` set to a divisor of the generation batch, then sets it back to 1. Nothing else in
TRL divides by ``num_generations - 1``; the stock advantage that is thrown away is 0 at G = 1. The trainer
refuses ``num_generations=1`` for an estimator that requires group ids (its catalogue entry says so). With no
``advantage_server``, GS1's TF-IDF vectorizer is fitted on ``train_dataset``'s prompts.

Example (a stock TRL script, changed in the import, ``num_generations=1`` and ``advantage_estimator``)::

    from rl_advantages.integrations.trl import GRPOConfig, GRPOTrainer

    args = GRPOConfig(output_dir="out", num_generations=1, per_device_train_batch_size=8)
    trainer = GRPOTrainer(
        model=model, reward_funcs=reward_fn, args=args, train_dataset=dataset,
        advantage_estimator="tfidf_kernel_loo_T0.1",
    )
    trainer.train()
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

try:
    import torch
    import trl
    from accelerate.utils import gather_object
except ImportError as _error:  # pragma: no cover - exercised only without TRL
    raise ImportError(
        f"rl_advantages.integrations.trl needs TRL and PyTorch ({_error}): pip install trl"
    ) from _error

import rl_advantages

from ._common import RolloutBatch, describe_estimator, estimator_name, prompt_text, reads_field, requires_field
from ._trl_settings import check_aggregation, check_dataset_size, component_options, check_server_vectorizer, fitted_server, scaling_options, strip_prefix, train_prompts

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
        advantage_estimator: a catalogue name (``"group_mean"``, ``"tfidf_kernel_loo_T0.1"``, also spelled
            ``"rl_adv:group_mean"`` as in verl and SkyRL) or the wire form (``{"name": "tfidf_kernel_loo",
            "temperature": 0.1}``). Required.
        advantage_server: the ``rl_advantages.Server`` to use. If None and the estimator needs a TF-IDF vectorizer
            (GS1), one is started at construction with the vectorizer fitted on ``train_dataset``'s prompts (logged,
            with their number); else the process's default server.
        advantage_prompt_text: ``f(example) -> str``, the text of one dataset row the estimator sees; default: the
            prompt TRL generates from (the row's ``"prompt"``, with an environment's ``reset()`` observation
            appended, grpo_trainer.py:2355-2420): a string as is, a chat's last user message.
        advantage_options: more request options (``std_floor``, ...).
        **kwargs: as ``trl.GRPOTrainer``.

    TRL's ``scale_rewards`` is applied by the estimator (``normalize``, epsilon 1e-4: ``group_mean`` is then stock
    TRL's advantage in every mode; ``trl_grpo`` takes it as its ``scale``, also stock TRL's in every mode); at
    ``num_generations=1`` its default ``"group"`` is read as ``"none"``. TRL's
    ``multi_objective_aggregation="normalize_then_sum"`` needs ``{"name": "gdpo", "flavour": "trl"}``.

    Attributes:
        last_advantage_result: the last ``rl_advantages`` result (whole gathered batch), with
            ``last_advantage_inputs`` the rewards, prompts and group ids it was computed from.

    Raises:
        RlAdvantagesError: the estimator is not in the catalogue; it requires group ids and ``num_generations`` is 1
            (field ``num_generations``); ``scale_rewards`` or ``multi_objective_aggregation`` cannot be applied to it
            as stock TRL would (a preset dividing otherwise, ``gdpo`` in another flavour, ``component_weights`` that
            are not TRL's ``reward_weights`` under ``normalize_then_sum``);
            ``train_dataset`` has fewer prompts than one generation batch (field ``train_dataset``); no
            ``advantage_server`` and no prompts to fit the vectorizer on, or one without a vectorizer (field
            ``advantage_server``); at a step, an
            empty prompt for an estimator that reads prompts (field ``prompts``).
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
        spec = strip_prefix(advantage_estimator)
        options = dict(advantage_options or {})
        try:  # an unknown name fails before TRL builds anything
            entry = describe_estimator(spec, advantage_server)
        except rl_advantages.RlAdvantagesError as error:
            raise rl_advantages.RlAdvantagesError(error.code, f"advantage_estimator: {error.message}", field="advantage_estimator") from None
        super().__init__(*args, **kwargs)
        if self.num_generations == 1 and requires_field(entry, "group_ids"):
            raise rl_advantages.RlAdvantagesError(
                "bad_request",
                f"advantage_estimator {entry['name']} needs groups of completions (group_ids); "
                "with num_generations=1 use an estimator that does not (e.g. tfidf_kernel_loo_T0.1, loo_batch_mean)",
                field="num_generations",
            )
        check_aggregation(entry, spec, self.multi_objective_aggregation, options)
        if self.multi_objective_aggregation == "sum_then_normalize":  # TRL reads scale_rewards only there (:2787-2813)
            options.update(scaling_options(entry, spec, options, self.scale_rewards, self.num_generations))
        weights = [float(w) for w in self.reward_weights.tolist()]  # TRL's (float32, as it multiplies by them)
        options.update(component_options(entry, spec, options, weights, self.multi_objective_aggregation))
        check_dataset_size(self.train_dataset, int(self.args.generation_batch_size), self.num_generations)
        self._rl_adv_corpus_dir = None
        server = advantage_server
        if server is None and entry.get("needs_vectorizer"):
            server, self._rl_adv_corpus_dir = fitted_server(train_prompts(self.train_dataset, advantage_prompt_text))
        elif entry.get("needs_vectorizer"):
            check_server_vectorizer(server)
        self._rl_adv = RolloutBatch(spec, server, **options)
        self._rl_adv_prompt_text = advantage_prompt_text
        self._rl_adv_rewards: Any = None
        self._rl_adv_seen: tuple[Any, Any] | None = None
        self.last_advantage_result: Any = None
        self.last_advantage_inputs: dict[str, Any] | None = None

    def _calculate_rewards(self, inputs: Any, prompts: Any, completions: Any, completion_ids_list: Any) -> Any:
        rewards_per_func = super()._calculate_rewards(inputs, prompts, completions, completion_ids_list)
        self._rl_adv_rewards = rewards_per_func  # gathered across processes by TRL
        self._rl_adv_seen = (inputs, prompts)  # this process's rows and the prompts TRL generated from
        return rewards_per_func

    def _gathered_prompts(self) -> list[str] | None:
        """The prompt text of every completion of the gathered batch, for an estimator that reads prompts (else None).

        Raises:
            RlAdvantagesError: a prompt is empty (TRL's placeholder rows when there is no train dataset,
                grpo_trainer.py:872-873, with an environment whose ``reset()`` added nothing); field ``prompts``.
        """
        if not reads_field(self._rl_adv.entry, "prompts"):
            return None
        rows, prompts = self._rl_adv_seen or ([], [])
        if self._rl_adv_prompt_text is not None:
            texts = [self._rl_adv_prompt_text(row) for row in rows]
        else:
            texts = [prompt_text(p, "the prompt TRL generated from") for p in prompts]
        all_texts = list(gather_object(texts))  # same order as TRL's gather of the rewards
        for i, text in enumerate(all_texts):
            if not text.strip():
                raise rl_advantages.RlAdvantagesError(
                    "bad_value",
                    f'field "prompts"[{i}] is empty: {estimator_name(self._rl_adv.estimator)} weighs completions by their '
                    "prompt's text (with no train_dataset TRL's rows have an empty prompt, which the environment's reset() "
                    "must fill)",
                    field="prompts",
                    index=i,
                )
        return all_texts

    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
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
        all_texts = self._gathered_prompts()
        if all_texts is not None and len(all_texts) != n:
            raise RuntimeError(f"{len(all_texts)} prompts for {n} gathered rewards")
        group_ids = [i // group_size for i in range(n)]
        mask = unscorable.tolist() if bool(unscorable.any()) else None  # True = masked: no baseline reads it, A = 0
        lengths = self.accelerator.gather(output["completion_mask"].sum(dim=1)).double().cpu().numpy()  # collective, as TRL's
        fields: dict[str, Any] = {"lengths": lengths}
        if reads_field(self._rl_adv.entry, "reward_components"):
            components = rewards_per_func.double().cpu().numpy()
            partial = np.isnan(components).any(axis=1) & ~unscorable.cpu().numpy()
            if partial.any():
                i = int(np.flatnonzero(partial)[0])
                raise rl_advantages.RlAdvantagesError("bad_value", f'field "reward_components"[{i}]: a reward function returned None for a completion others scored', field="reward_components", index=i)
            fields["reward_components"] = np.nan_to_num(components, nan=0.0)  # only all-None rows, which are masked
        result = self._rl_adv.compute(rewards.cpu().numpy(), group_ids=group_ids, prompts=all_texts, mask=mask, **fields)
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
        self._log_advantage_metrics(mode, result, group_ids, unscorable.tolist())
        self.last_advantage_result = result
        self.last_advantage_inputs = {"rewards": rewards.cpu().numpy(), "prompts": all_texts, "group_ids": group_ids}
        return output

    def _log_advantage_metrics(self, mode: str, result: Any, group_ids: list[int], masked: list[bool]) -> None:
        """``rl_adv/zero_advantage_fraction`` (the estimator's) and ``rl_adv/groups_of_one``: TRL's groups (the
        ``num_generations`` completions of one dataset row) with one scorable completion, counted here because an
        estimator that reads no group ids (GS1) would count prompts of equal text instead."""
        if "zero_advantage_fraction" in result.diagnostics:
            self._metrics[mode]["rl_adv/zero_advantage_fraction"].append(float(result.diagnostics["zero_advantage_fraction"]))
        sizes: dict[int, int] = {}
        for g, m in zip(group_ids, masked):
            if not m:
                sizes[g] = sizes.get(g, 0) + 1
        self._metrics[mode]["rl_adv/groups_of_one"].append(float(sum(1 for s in sizes.values() if s == 1)))
