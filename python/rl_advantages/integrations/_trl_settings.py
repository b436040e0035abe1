"""What the TRL adapter decides at construction: the estimator name, TRL's settings that shape advantages, the
TF-IDF vectorizer when no server is given, and whether the dataset fills one generation batch.

Nothing here imports TRL; ``trl.py`` passes in what it read from ``GRPOConfig`` and the trainer. Line numbers are
of ``trl/trainer/grpo_trainer.py`` in the trl 1.13.0 release (huggingface/trl f2cd57710ae345ea6428ae95363267fcf38a3dc8).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from typing import Any, Callable, Mapping

import rl_advantages

from ._common import estimator_name, prompt_text, reads_field, requires_field

logger = logging.getLogger("rl_advantages.integrations.trl")

#: TRL's epsilon in ``advantages / (std_rewards + 1e-4)`` (grpo_trainer.py:2812-2813).
TRL_EPSILON = 1e-4

#: The prefix verl's and SkyRL's adapters register estimators under (``rl_adv:<name>``).
PREFIX = "rl_adv:"


def _error(code: str, message: str, field: str, index: int | None = None) -> Exception:
    return rl_advantages.RlAdvantagesError(code, message, field=field, index=index)


def strip_prefix(spec: Any) -> Any:
    """``"rl_adv:NAME"`` (the spelling of the verl and SkyRL adapters) as ``"NAME"``; the wire form's ``name`` alike."""
    if isinstance(spec, str) and spec.startswith(PREFIX):
        return spec[len(PREFIX):]
    if isinstance(spec, Mapping) and isinstance(spec.get("name"), str) and spec["name"].startswith(PREFIX):
        return {**spec, "name": spec["name"][len(PREFIX):]}
    return spec


def _given(spec: Any, options: Mapping[str, Any], key: str) -> Any:
    if key in options:
        return options[key]
    return spec.get(key) if isinstance(spec, Mapping) else None


#: Estimators whose ``scale`` parameter is TRL's ``scale_rewards`` itself (TRL's own GRPO, catalogue preset
#: ``trl_grpo``): the adapter sets it from ``GRPOConfig.scale_rewards``, so it is stock TRL's advantage in every mode.
FOLLOWS_SCALE_REWARDS = frozenset({"trl_grpo"})

#: What each ``scale`` of the catalogue's presets divides by, for messages.
_SCALE_WORDS = {
    "none": "divides by nothing",
    "group": "divides by the std of the group",
    "batch": "divides by the std of the batch",
    "loo": "divides by the std of the group's other rollouts",
    "running": "divides by a running std",
}


def _default(entry: Mapping[str, Any], key: str) -> Any:
    for parameter in entry.get("parameters") or []:
        if parameter.get("name") == key:
            return parameter.get("default")
    return None


def scaling_options(entry: Mapping[str, Any], spec: Any, options: Mapping[str, Any], scale_rewards: str, num_generations: int) -> dict[str, Any]:
    """The request options that make the estimator apply TRL's ``scale_rewards`` (grpo_trainer.py:2793-2813).

    ``"group"``: A = (r - b) / (std of the group + 1e-4), ``"batch"``: / (std of the batch + 1e-4) (both Bessel;
    docs/method.md section 2.1), ``"none"``: A = r - b. An estimator with a ``normalize`` parameter gets
    ``normalize=scale_rewards`` and ``epsilon=1e-4`` (so ``group_mean`` is stock TRL's advantage in every mode). At
    ``num_generations=1``, ``"group"`` (TRL's default) has no group to scale by (stock TRL's advantage is then 0):
    it is read as ``"none"``, and logged. A preset with a ``scale`` parameter (``trl_grpo``, ``verl_grpo``, ...)
    must already divide as ``scale_rewards`` asks (:func:`_preset_scaling`); ``trl_grpo`` takes it from ``scale_rewards``.

    Raises:
        RlAdvantagesError: ``scale_rewards`` is not one of TRL's; the estimator's own ``normalize`` or ``scale`` (in
            the spec or ``advantage_options``, or a preset's) contradicts it; or the estimator has neither and
            ``scale_rewards`` asks for scaling (field ``scale_rewards``).
    """
    if scale_rewards not in ("group", "batch", "none"):
        raise _error("bad_option", f"GRPOConfig(scale_rewards={scale_rewards!r}): expected 'group', 'batch' or 'none'", "scale_rewards")
    name = estimator_name(spec)
    target = scale_rewards
    if num_generations == 1 and scale_rewards == "group":
        target = "none"
        logger.info(
            "scale_rewards='group' (TRL's default) has no group to scale by at num_generations=1 (stock TRL's advantage "
            "would be 0): %s's advantages are left unscaled, A = r - b. Set GRPOConfig(scale_rewards='none') to say so.",
            name,
        )
    parameters = {p.get("name") for p in entry.get("parameters") or []}
    if "normalize" in parameters:
        return _normalize_options(entry, spec, options, scale_rewards, target, num_generations)
    if "scale" in parameters:
        return _preset_scaling(entry, spec, options, scale_rewards, target)
    if target != "none":
        raise _error(
            "bad_option",
            f"GRPOConfig(scale_rewards={scale_rewards!r}) divides the advantages by a std, but advantage_estimator "
            f"{name!r} has no normalize option to do it with: set scale_rewards='none' (the adapter then divides by "
            f"nothing and the advantages are {name}'s formula as the catalogue states it) or use an estimator with a "
            "normalize option (group_mean, loo_batch_mean, rloo, ...)",
            "scale_rewards",
        )
    return {}


def _normalize_options(entry: Mapping[str, Any], spec: Any, options: Mapping[str, Any], scale_rewards: str, target: str, num_generations: int) -> dict[str, Any]:
    """``normalize`` (and TRL's epsilon) from ``scale_rewards``, for an estimator with a ``normalize`` parameter."""
    name = estimator_name(spec)
    given = _given(spec, options, "normalize")
    if given is not None and given != target:
        if num_generations == 1 and given == "group":  # "group" is read as "none" here: suggesting it would loop
            remedy = "set normalize to 'batch' or 'none' (a group of one has no std), or drop normalize"
        else:
            remedy = f"set scale_rewards={given!r} (or drop normalize: the adapter sets it from scale_rewards)"
        raise _error(
            "bad_option",
            f"advantage_estimator {name!r} has normalize={given!r} but GRPOConfig(scale_rewards={scale_rewards!r}) asks for "
            f"{target!r}{' at num_generations=1' if target != scale_rewards else ''}: {remedy}",
            "scale_rewards",
        )
    if target == "group" and not requires_field(entry, "group_ids"):
        logger.warning(
            "scale_rewards='group' divides %s's r - b by the std of the completions' group + 1e-4, but its baseline is not "
            "the group's mean: a group of equal rewards gives |A| = |r - b| * 1e4. Set GRPOConfig(scale_rewards='batch' "
            "or 'none') unless that is meant.",
            name,
        )
    parameters = {p.get("name") for p in entry.get("parameters") or []}
    extra: dict[str, Any] = {} if given is not None else {"normalize": target}
    if target != "none" and "epsilon" in parameters and _given(spec, options, "epsilon") is None:
        extra["epsilon"] = TRL_EPSILON
    return extra


def _preset_scaling(entry: Mapping[str, Any], spec: Any, options: Mapping[str, Any], scale_rewards: str, target: str) -> dict[str, Any]:
    """A preset's ``scale`` against ``scale_rewards``: equal, accepted as is; ``trl_grpo`` (TRL's own GRPO, whose
    ``scale`` is ``scale_rewards``) takes it, and is then stock TRL (:2793-2813) in every mode; anything else is
    refused, since the preset would go on dividing as it does whatever ``scale_rewards`` says.

    Raises:
        RlAdvantagesError: the preset's ``scale`` (its own, or given) differs from ``scale_rewards`` (field ``scale_rewards``).
    """
    name = estimator_name(spec)
    given = _given(spec, options, "scale")
    scale = given if given is not None else _default(entry, "scale")
    if scale == target:
        return {}
    if given is None and entry.get("name") in FOLLOWS_SCALE_REWARDS:
        extra: dict[str, Any] = {"scale": target}
        if target != "none" and _given(spec, options, "epsilon") is None:
            extra["epsilon"] = TRL_EPSILON
        return extra
    remedies = []
    if scale in ("group", "batch", "none"):
        remedies.append(f"set scale_rewards={scale!r} ({name} is then as the catalogue states it)")
    remedies.append(f"give advantage_estimator={{'name': {entry.get('name')!r}, 'scale': {target!r}}}")
    if target in ("group", "batch", "none"):
        remedies.append(f"use 'trl_grpo' (stock TRL's advantage under scale_rewards={scale_rewards!r})")
    raise _error(
        "bad_option",
        f"advantage_estimator {name!r} {_SCALE_WORDS.get(str(scale), f'has scale={scale!r}')} (scale={scale!r}) but "
        f"GRPOConfig(scale_rewards={scale_rewards!r}) asks for {target!r}, which it would not follow: " + ", or ".join(remedies),
        "scale_rewards",
    )


#: ``gdpo``'s flavour that is TRL's ``normalize_then_sum``; the others (verl, NeMo-RL) train on other advantages.
_GDPO_FLAVOURS = {
    "verl": "verl's compute_gdpo_outcome_advantage",
    "nemo": "NeMo-RL's GDPO",
}


def check_aggregation(entry: Mapping[str, Any], spec: Any, aggregation: str, options: Mapping[str, Any] | None = None) -> None:
    """TRL's ``multi_objective_aggregation``: ``"sum_then_normalize"`` is what the adapter does (the estimator
    runs on the weighted sum of the reward functions); ``"normalize_then_sum"`` normalises each reward function
    within its group first (grpo_trainer.py:2816-2826), which only ``gdpo`` in flavour ``"trl"`` computes as TRL
    does (verl's and NeMo-RL's flavours differ from it by up to 0.082 and 1.77 on TRL's own suite).

    Raises:
        RlAdvantagesError: ``normalize_then_sum`` for any estimator but ``gdpo`` flavour ``"trl"``, or an unknown
            value (field ``multi_objective_aggregation``).
    """
    if aggregation == "sum_then_normalize":
        return
    if aggregation != "normalize_then_sum":
        raise _error("bad_option", f"GRPOConfig(multi_objective_aggregation={aggregation!r}): expected 'sum_then_normalize' or 'normalize_then_sum'", "multi_objective_aggregation")
    name = estimator_name(spec)
    if entry.get("name") == "gdpo":
        flavour = _given(spec, options or {}, "flavour")
        flavour = flavour if flavour is not None else _default(entry, "flavour")
        if flavour == "trl":
            return
        raise _error(
            "bad_option",
            f"GRPOConfig(multi_objective_aggregation='normalize_then_sum') is TRL's GDPO (grpo_trainer.py:2816-2826), but "
            f"advantage_estimator {name!r} has flavour {flavour!r} ({_GDPO_FLAVOURS.get(str(flavour), 'another formula')}), "
            "which trains on other advantages: use {'name': 'gdpo', 'flavour': 'trl'} (stock TRL's), or keep flavour "
            f"{flavour!r} with multi_objective_aggregation='sum_then_normalize' and scale_rewards='none' (gdpo's "
            f"{flavour} advantages)",
            "multi_objective_aggregation",
        )
    raise _error(
        "bad_option",
        "GRPOConfig(multi_objective_aggregation='normalize_then_sum') normalises each reward function within its group "
        f"before summing; advantage_estimator {name!r} sees one summed reward: set "
        "multi_objective_aggregation='sum_then_normalize' (the default), or use {'name': 'gdpo', 'flavour': 'trl'}",
        "multi_objective_aggregation",
    )


def train_prompts(dataset: Any, text_of: Callable[[Mapping[str, Any]], str] | None) -> list[str]:
    """The prompt text of every row of TRL's ``train_dataset`` (a map-style ``datasets.Dataset``).

    Raises:
        RlAdvantagesError: the dataset is iterable (no length), has no ``prompt`` column (the environment supplies
            prompts at ``reset()``, grpo_trainer.py:2355-2361) and no ``advantage_prompt_text``, or a prompt is
            empty (TRL's placeholder rows when there is no train dataset, :872-873); field ``advantage_server``.
    """
    remedy = "pass advantage_server=rl_advantages.Server(corpus=...) (a JSON-lines file of your training questions)"
    if dataset is None or not hasattr(dataset, "__len__"):
        raise _error("missing_field", f"the TF-IDF vectorizer is fitted on train_dataset's prompts, and this train_dataset has no length (iterable): {remedy}", "advantage_server")
    if text_of is None and "prompt" not in (getattr(dataset, "column_names", None) or []):
        raise _error("missing_field", f"the TF-IDF vectorizer is fitted on train_dataset's prompts, and train_dataset has no \"prompt\" column (the environment gives the prompts): {remedy}", "advantage_server")
    rows = dataset if text_of is not None else dataset["prompt"]
    texts = [text_of(row) if text_of is not None else prompt_text(row, f"train_dataset[{i}]['prompt']") for i, row in enumerate(rows)]
    for i, text in enumerate(texts):
        if not text.strip():
            raise _error(
                "bad_value",
                f"train_dataset[{i}]'s prompt is empty (TRL builds such rows when there is no train_dataset): the TF-IDF "
                f"vectorizer needs the training questions: {remedy}",
                "advantage_server",
                i,
            )
    return texts


def fitted_server(texts: list[str]) -> tuple[Any, tempfile.TemporaryDirectory[str]]:
    """An ``rl_advantages.Server`` whose TF-IDF vectorizer is fitted on ``texts`` (docs/method.md section 3: "fitted
    once, before training, on the train questions"), started now so that a bad corpus fails at construction. The
    corpus file lives in the returned directory (kept while the server may restart)."""
    folder = tempfile.TemporaryDirectory(prefix="rl_adv_trl_")
    path = os.path.join(folder.name, "train_prompts.jsonl")
    with open(path, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps({"question": t}) + "\n" for t in texts)
    server = rl_advantages.Server(corpus=path).start()
    logger.warning(
        "advantage_server not given: fitted the TF-IDF vectorizer on the %d prompts of train_dataset "
        "(pass advantage_server=rl_advantages.Server(corpus=...) to fit it on other questions)", len(texts)
    )
    return server, folder


def check_server_vectorizer(server: Any) -> None:
    """A given ``advantage_server`` for an estimator that needs a TF-IDF vectorizer must have one (started with
    ``corpus=`` or ``vectorizer=``); else the first step would fail naming ``rl-adv serve --corpus``.

    Raises:
        RlAdvantagesError: the server was started with neither (field ``advantage_server``).
    """
    args = getattr(server, "_args", None)  # rl_advantages.Server's command-line flags (this package's own class)
    if isinstance(args, list) and "--corpus" not in args and "--vectorizer" not in args:
        raise _error(
            "missing_vectorizer",
            "advantage_server has no TF-IDF vectorizer, which this estimator needs: give it one "
            "(rl_advantages.Server(corpus=...) or Server(vectorizer=...)), or leave advantage_server out to fit it on "
            "train_dataset's prompts",
            "advantage_server",
        )


def check_dataset_size(dataset: Any, generation_batch_size: int, num_generations: int) -> None:
    """TRL's sampler yields only whole generation batches of ``generation_batch_size // num_generations`` distinct
    prompts and drops the rest (``RepeatSampler``, grpo_trainer.py:1277-1286, trl/trainer/utils.py:786): a smaller
    dataset trains 0 steps without an error (or, with ``max_steps=-1``, fails in transformers with "max_steps must be set").

    Raises:
        RlAdvantagesError: the dataset has fewer rows than one generation batch needs (field ``train_dataset``).
    """
    if dataset is None or not hasattr(dataset, "__len__"):
        return
    needed = generation_batch_size // max(num_generations, 1)
    if len(dataset) < needed:
        raise _error(
            "bad_value",
            f"train_dataset has {len(dataset)} prompts, but one generation step takes {needed} distinct prompts "
            f"(generation_batch_size {generation_batch_size} / num_generations {num_generations}) and TRL's sampler drops an "
            f"incomplete batch, so training would run 0 steps: give at least {needed} prompts or a smaller "
            "per_device_train_batch_size / steps_per_generation",
            "train_dataset",
        )


def component_options(entry: Mapping[str, Any], spec: Any, options: Mapping[str, Any], reward_weights: list[float], aggregation: str) -> dict[str, Any]:
    """``component_weights`` for an estimator reading ``reward_components`` (``gdpo``): TRL's ``reward_weights``
    (grpo_trainer.py:536-544) unless given. Under ``normalize_then_sum`` stock TRL weighs the components by
    ``reward_weights`` (:2822), so other given weights would train on other advantages than stock's.

    Raises:
        RlAdvantagesError: under ``normalize_then_sum``, given ``component_weights`` that are not TRL's
            ``reward_weights`` (field ``component_weights``).
    """
    if not reads_field(entry, "reward_components"):
        return {}
    given = _given(spec, options, "component_weights")
    if given is None:
        return {"component_weights": list(reward_weights)}
    if aggregation == "normalize_then_sum":
        try:
            same = [float(w) for w in given] == list(reward_weights)
        except (TypeError, ValueError):
            same = False
        if not same:
            raise _error(
                "bad_option",
                f"component_weights {given!r} under GRPOConfig(multi_objective_aggregation='normalize_then_sum'), whose sum "
                f"stock TRL weighs by reward_weights {list(reward_weights)!r}: set GRPOConfig(reward_weights={given!r}) "
                "instead and drop component_weights (the adapter passes TRL's reward_weights to gdpo)",
                "component_weights",
            )
    return {}
