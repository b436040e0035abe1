"""The estimator catalogue as ``rl-adv`` reports it (``rl-adv estimators --json``, docs/cli.md): the drivers keep no
list of estimator names or of the fields each reads; they ask the CLI, once per process.

Standard library only.
"""

from __future__ import annotations

import functools
import json
import subprocess
from typing import Any, Sequence

from .serve_client import RlAdvServeError, resolve_rl_adv_command

__all__ = ["catalogue", "estimator_entry", "is_kernel_estimator", "served_fields", "served_estimator_problem"]

#: The catalogue protocol this module reads.
PROTOCOL = 1

#: The batch fields the drivers can send to ``rl-adv serve`` besides the rewards.
_SENDABLE = ("prompts", "group_ids")


@functools.lru_cache(maxsize=8)
def _catalogue(command: tuple[str, ...]) -> tuple[dict[str, Any], ...]:
    try:
        run = subprocess.run([*command, "estimators", "--json"], capture_output=True, text=True, timeout=120, check=False)
    except OSError as error:
        raise RlAdvServeError(f"cannot run {' '.join(command)} estimators --json: {error}", "not_found") from error
    if run.returncode != 0:
        raise RlAdvServeError(f"{' '.join(command)} estimators --json exited {run.returncode}: {run.stderr.strip()}", "catalogue")
    data = json.loads(run.stdout)
    if not isinstance(data, dict) or data.get("protocol") != PROTOCOL or not isinstance(data.get("estimators"), list):
        raise RlAdvServeError(f"rl-adv estimators --json is not catalogue protocol {PROTOCOL}: {run.stdout[:200]}", "catalogue")
    return tuple(data["estimators"])


def catalogue(command: str | Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Every estimator ``rl-adv`` knows: one dict per estimator (``name``, ``family``, ``parameters``, ``fields``,
    ``stateful``, ``short_form``, ...), as ``rl-adv estimators --json`` prints it.

    Args:
        command: the rl-adv command, as words or a string (see :func:`resolve_rl_adv_command`).
    """
    argv = list(command) if isinstance(command, (list, tuple)) else resolve_rl_adv_command(command)  # type: ignore[arg-type]
    return list(_catalogue(tuple(argv)))


def estimator_entry(name: str, command: str | Sequence[str] | None = None) -> dict[str, Any] | None:
    """The catalogue entry of an estimator name: its base name, or a short form that carries a parameter
    (``tfidf_kernel_loo_T0.1``, ``kernel_loo_T0.5``, ``passk_k4``, ``kernel:PATH``); None for a name it does not
    know. The value in a short form is checked by rl-adv itself when the estimator is used."""
    entries = catalogue(command)
    for entry in entries:
        if entry["name"] == name:
            return entry
    best: tuple[str, dict[str, Any]] | None = None
    for entry in entries:
        short = entry.get("short_form")
        if not short:
            continue
        prefix = short[: short.index("<")]
        if name.startswith(prefix) and name[len(prefix) :].strip() != "" and (best is None or len(prefix) > len(best[0])):
            best = (prefix, entry)
    return None if best is None else best[1]


def is_kernel_estimator(name: str, command: str | Sequence[str] | None = None) -> bool:
    """True for the estimators of the catalogue's ``kernel`` family, whose baseline weighs the other rollouts by their
    prompts (``tfidf_kernel_loo_T<T>``, ``length_bucket_loo``, ``kernel_loo_T<T>``, a kernel file ``kernel:PATH``)."""
    entry = estimator_entry(name, command)
    return entry is not None and entry["family"] == "kernel"


def served_fields(name: str, command: str | Sequence[str] | None = None) -> set[str]:
    """The batch fields (``prompts``, ``group_ids``) a request for this estimator carries: those it reads."""
    entry = estimator_entry(name, command)
    if entry is None:
        return set()
    fields = entry["fields"]
    return {field for field in (*fields["required"], *fields["optional"]) if field in _SENDABLE}


def served_estimator_problem(name: str, command: str | Sequence[str] | None = None) -> str | None:
    """Why a driver cannot compute this estimator through ``rl-adv serve`` one step at a time, or None when it can:
    an unknown name, a stateful estimator (no session across steps here), or one that needs a field the drivers do not
    have (``features``, ``lengths``, ``greedy_rewards``)."""
    entry = estimator_entry(name, command)
    if entry is None:
        known = ", ".join(e["short_form"] or e["name"] for e in catalogue(command))
        return f"rl-adv knows no estimator {name!r} (known: {known})"
    if entry["stateful"]:
        return f"{name} keeps state across steps; the drivers compute one step at a time"
    missing = [field for field in entry["fields"]["required"] if field != "rewards" and field not in _SENDABLE]
    if missing:
        return f"{name} needs {', '.join(missing)}, which the drivers do not send (they send rewards, prompts and group ids)"
    return None
