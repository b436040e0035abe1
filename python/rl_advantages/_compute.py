"""``compute_advantages`` and the session calls: one request to the server each."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Union

import numpy as np

from ._arrays import float_list, id_list, mask_list, matrix_list, string_list, to_numpy
from ._errors import RlAdvantagesError
from ._default import default_server
from ._server import Server

__all__ = ["EstimatorSpec", "Result", "catalogue", "compute_advantages", "load_state_dict", "state_dict"]

#: An estimator: a catalogue name or short form (``"tfidf_kernel_loo_T0.1"``), or the wire form
#: (``{"name": "tfidf_kernel_loo", "temperature": 0.1}``, snake_case parameter keys).
EstimatorSpec = Union[str, Mapping[str, Any]]


@dataclass(frozen=True)
class Result:
    """One batch's advantages (float64 numpy arrays, one entry per rollout) and what the server says about them.

    Attributes:
        advantages: A_i = r_i - b_i (normalised if the estimator's options say so); masked rollouts get 0.
        baselines: b_i.
        loo_mean: the leave-one-out mean of the rewards the baseline saw, per rollout.
        max_self_weight: the largest normalised self-weight used (0 for leave-one-out baselines).
        diagnostics: ``{"groups", "groups_of_one", "zero_variance_groups", "zero_advantage_fraction", "masked", ...}``.
        estimator: the canonical estimator name the server used.
    """

    advantages: np.ndarray
    baselines: np.ndarray
    loo_mean: np.ndarray
    max_self_weight: float
    diagnostics: dict[str, Any] = field(default_factory=dict)
    estimator: str = ""


def _estimator_fields(estimator: EstimatorSpec, options: dict[str, Any]) -> dict[str, Any]:
    """The request's estimator: a name, or the wire-form object, with the options inside it, where no option name
    can shadow a field of the protocol (an option called ``id`` is the estimator's unknown option, not the request id)."""
    if isinstance(estimator, str):
        return {"estimator": {"name": estimator, **options} if options else estimator}
    if isinstance(estimator, Mapping):
        return {"estimator": {**dict(estimator), **options}}
    raise RlAdvantagesError(
        "bad_type",
        f"estimator must be a name such as 'group_mean' or a dict such as {{'name': 'tfidf_kernel_loo', 'temperature': 0.1}}, got {type(estimator).__name__}",
        field="estimator",
    )


def _check_length(name: str, items: list[Any], size: int) -> None:
    if len(items) != size:
        raise RlAdvantagesError(
            "length_mismatch",
            f"field {name!r} has {len(items)} entries but rewards has {size}: one per rollout",
            field=name,
            index=min(len(items), size),
        )


def _batch(
    rewards: Any,
    group_ids: Any,
    prompts: Any,
    lengths: Any,
    greedy_rewards: Any,
    mask: Any,
    features: Any,
    reward_components: Any = None,
) -> dict[str, Any]:
    batch: dict[str, Any] = {}
    masked = None
    if mask is not None:
        batch["mask"] = mask_list(mask)
        masked = np.asarray(batch["mask"], dtype=bool)
    # A list stays a list, so float_list can name the index of a non-number in it.
    rewards_in = rewards if isinstance(rewards, (list, tuple)) else to_numpy("rewards", rewards)
    size = len(rewards_in) if isinstance(rewards_in, (list, tuple)) or rewards_in.ndim == 1 else None
    if masked is not None and size is not None and len(masked) != size:
        raise RlAdvantagesError(
            "length_mismatch", f"field 'mask' has {len(masked)} entries but rewards has {size}: one per rollout", field="mask", index=min(len(masked), size)
        )
    batch["rewards"] = float_list("rewards", rewards_in, allow_nan_at=masked)
    size = len(batch["rewards"])
    if group_ids is not None:
        batch["group_ids"] = id_list("group_ids", group_ids)
    if prompts is not None:
        batch["prompts"] = string_list("prompts", prompts)
    if lengths is not None:
        batch["lengths"] = float_list("lengths", lengths)
    if greedy_rewards is not None:
        batch["greedy_rewards"] = float_list("greedy_rewards", greedy_rewards)
    if features is not None:
        batch["features"] = matrix_list("features", features)
    if reward_components is not None:
        batch["reward_components"] = matrix_list("reward_components", reward_components)
    for name, items in batch.items():
        if name != "rewards":
            _check_length(name, items, size)
    return batch


def compute_advantages(
    estimator: EstimatorSpec,
    rewards: Any,
    *,
    group_ids: Any = None,
    prompts: Any = None,
    lengths: Any = None,
    greedy_rewards: Any = None,
    mask: Any = None,
    features: Any = None,
    reward_components: Any = None,
    session: str | int | None = None,
    update: bool | None = None,
    server: Server | None = None,
    **options: Any,
) -> Result:
    """The advantage of every rollout of one batch, computed by the named estimator (docs/method.md section 2).

    Inputs may be lists, numpy arrays of any numeric dtype, or torch tensors (read on the CPU; torch is never
    imported for other inputs); the results are float64 whatever came in. Nothing is sent until every field
    is checked: NaN and infinities, wrong types and lengths raise here, naming the field and index.

    Args:
        estimator: a catalogue name (``"group_mean"``, ``"tfidf_kernel_loo_T0.1"``) or its wire form
            (``{"name": "tfidf_kernel_loo", "temperature": 0.1}``); :func:`catalogue` lists them.
        rewards: one reward per rollout; a masked rollout's may be NaN.
        group_ids: the prompt group of each rollout (integers or strings), for the group estimators.
        prompts: each rollout's prompt text, for the prompt-kernel estimators.
        lengths: response lengths (``opo``, ``reinforce_plus_plus_baseline``).
        greedy_rewards: the greedy rollout's reward (``remax``).
        mask: True where a rollout is masked out (it gets advantage 0 and is no one's baseline).
        features: one feature vector per rollout (``kernel_loo_T<T>``).
        reward_components: one vector of reward components per rollout, B x k (``gdpo``).
        session: the session id of a stateful estimator (``prompt_value``), kept by the server across calls.
        update: for a session, False computes without updating the state (default: update).
        server: the :class:`Server` to use (default :func:`default_server`).
        **options: estimator parameters, snake_case (``normalize="group"``, ``std_floor=0.1``, ``temperature``...).

    Returns:
        a :class:`Result`.

    Raises:
        RlAdvantagesError: bad input (``code``, ``field``, ``index``), an unknown estimator or option, or a
            server that could not answer.

    Example:
        >>> import rl_advantages as r
        >>> r.compute_advantages("group_mean", [1, 0, 0, 1], group_ids=[0, 0, 1, 1]).advantages
        array([ 0.5, -0.5, -0.5,  0.5])
    """
    request = _estimator_fields(estimator, options)
    request.update(_batch(rewards, group_ids, prompts, lengths, greedy_rewards, mask, features, reward_components))
    if session is not None:
        if isinstance(session, bool) or not isinstance(session, (str, int)):
            raise RlAdvantagesError("bad_type", f"session must be a string or an integer, got {type(session).__name__}", field="session")
        request["session"] = session
    if update is not None:
        request["update"] = bool(update)
    response = (server or default_server()).request(request)
    try:
        return Result(
            advantages=np.asarray(response["advantages"], dtype=np.float64),
            baselines=np.asarray(response["baselines"], dtype=np.float64),
            loo_mean=np.asarray(response["loo_mean"], dtype=np.float64),
            max_self_weight=float(response["max_self_weight"]),
            diagnostics=dict(response.get("diagnostics", {})),
            estimator=str(response.get("estimator", estimator if isinstance(estimator, str) else "")),
        )
    except (KeyError, TypeError, ValueError) as error:
        raise RlAdvantagesError("bad_response", f"rl-adv serve answered without {error}: {str(response)[:300]}") from None


def catalogue(server: Server | None = None) -> list[dict[str, Any]]:
    """The estimator catalogue from the server's ``describe``: one descriptor dict per estimator (name, family,
    summary, parameters, fields, needs_vectorizer, stateful, group_of_one, sources, short_form, ...)."""
    return (server or default_server()).catalogue()


def state_dict(session: str | int, server: Server | None = None) -> dict[str, Any]:
    """A checkpoint of a stateful estimator's session: ``{"session", "estimator", "state"}`` (plain JSON).

    Save it with the training checkpoint; :func:`load_state_dict` resumes bit for bit.
    """
    return (server or default_server()).state_dict(session)


def load_state_dict(session: str | int, estimator: EstimatorSpec, state: Mapping[str, Any], server: Server | None = None) -> None:
    """Restores a session from :func:`state_dict`'s ``estimator`` and ``state`` (on this or a new server)."""
    (server or default_server()).load_state_dict(session, estimator, state)
