"""What every adapter shares: the estimator's catalogue entry, prompt text, and one batch call.

Nothing here imports a training framework. The estimator list is ``rl_advantages.catalogue()``; the batch
call is ``rl_advantages.compute_advantages``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Mapping, Sequence

import numpy as np

import rl_advantages

__all__ = [
    "RolloutBatch",
    "describe_estimator",
    "estimator_name",
    "prompt_text",
    "reads_field",
    "requires_field",
    "server_from_env",
    "spec_from_env",
    "supplied_by_adapters",
]

def _error(code: str, message: str, field: str | None = None, index: int | None = None) -> Exception:
    return rl_advantages.RlAdvantagesError(code, message, field=field, index=index)


def _catalogue(server: Any = None) -> list[dict[str, Any]]:
    return list(rl_advantages.catalogue() if server is None else rl_advantages.catalogue(server=server))


def estimator_name(spec: Any) -> str:
    """The name an estimator spec starts with: the string itself, or the wire form's ``"name"``.

    Raises:
        RlAdvantagesError: ``spec`` is neither a non-empty string nor a mapping with a string ``"name"``.
    """
    if isinstance(spec, str) and spec:
        return spec
    if isinstance(spec, Mapping) and isinstance(spec.get("name"), str) and spec["name"]:
        return str(spec["name"])
    raise _error("bad_type", f'field "estimator" must be a catalogue name or {{"name": ...}}, got {spec!r}', field="estimator")


def describe_estimator(spec: Any, server: Any = None) -> dict[str, Any]:
    """The catalogue entry of ``spec``: the entry of that name, else the one whose ``short_form`` it is written in
    (``"tfidf_kernel_loo_T<temperature>"`` takes ``tfidf_kernel_loo_T0.1``; the longest matching prefix wins).

    Raises:
        RlAdvantagesError: no catalogue entry matches (code ``unknown_estimator``, the names listed).
    """
    name = estimator_name(spec)
    entries = _catalogue(server)
    best: dict[str, Any] | None = None
    best_prefix = ""
    for entry in entries:
        if entry.get("name") == name:
            return entry
        short = entry.get("short_form")
        prefix = short.split("<", 1)[0] if isinstance(short, str) else ""
        if isinstance(spec, str) and prefix and name.startswith(prefix) and len(name) > len(prefix) and len(prefix) > len(best_prefix):
            best, best_prefix = entry, prefix
    if best is None:
        names = ", ".join(sorted(str(e.get("short_form") or e.get("name")) for e in entries))
        raise _error("unknown_estimator", f'field "estimator": {name!r} is not in the catalogue ({names})', field="estimator")
    return best


def _fields(entry: Mapping[str, Any], which: str) -> list[str]:
    fields = entry.get("fields") or {}
    return list(fields.get(which) or [])


def requires_field(entry: Mapping[str, Any], field: str) -> bool:
    """Whether the estimator needs ``field`` (a batch wire name: ``group_ids``, ``prompts``, ...)."""
    return field in _fields(entry, "required")


def reads_field(entry: Mapping[str, Any], field: str) -> bool:
    """Whether the estimator reads ``field`` at all (required or optional)."""
    return field in _fields(entry, "required") or field in _fields(entry, "optional")


#: The batch fields the adapters take from a framework's batch (``lengths``: response tokens of each rollout).
SUPPLIED_FIELDS = ("rewards", "group_ids", "prompts", "lengths", "mask")


def supplied_by_adapters(entry: Mapping[str, Any]) -> bool:
    """Whether the adapters can feed the estimator: every field it requires is one they take from the framework's
    batch (not ``features`` or ``greedy_rewards``), and it needs no kernel file path beyond its name."""
    return all(f in SUPPLIED_FIELDS for f in _fields(entry, "required")) and not entry.get("needs_kernel_file")


def prompt_text(prompt: Any, where: str = "prompt") -> str:
    """The text an estimator sees for one prompt: a string as is; for a chat (a list of ``{"role", "content"}``
    messages) the content of the last ``user`` message (a list of content parts gives its ``text`` parts
    joined by a newline).

    Raises:
        RlAdvantagesError: the prompt is neither (code ``bad_type``, naming ``where``).
    """
    if isinstance(prompt, str):
        return prompt
    if isinstance(prompt, np.ndarray):
        prompt = prompt.tolist()
    if isinstance(prompt, (list, tuple)):
        for message in reversed(prompt):
            if isinstance(message, Mapping) and message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str):
                    return content
                if isinstance(content, (list, tuple)):
                    parts = [str(p["text"]) for p in content if isinstance(p, Mapping) and isinstance(p.get("text"), str)]
                    if parts:
                        return "\n".join(parts)
    raise _error(
        "bad_type",
        f"{where}: expected a string or a chat (a list of {{'role', 'content'}} messages with a user turn), got {str(prompt)[:120]!r}",
        field="prompts",
    )


def spec_from_env(variable: str, default: Any = None) -> Any:
    """An estimator spec from an environment variable: a JSON object (the wire form) or a name.

    Raises:
        RlAdvantagesError: the variable is unset and there is no default, or its JSON does not parse.
    """
    raw = os.environ.get(variable, "").strip()
    if not raw:
        if default is None:
            raise _error("missing_field", f"set {variable} to an estimator name (e.g. tfidf_kernel_loo_T0.1) or its JSON form", field=variable)
        return default
    if raw.startswith("{"):
        try:
            return json.loads(raw)
        except json.JSONDecodeError as error:
            raise _error("bad_json", f"{variable} is not valid JSON ({error})", field=variable) from None
    return raw


_env_server: dict[tuple[str, str], Any] = {}


def server_from_env() -> Any:
    """The server the environment names for adapters configured without code: ``RL_ADV_CORPUS`` (a TF-IDF corpus)
    or ``RL_ADV_VECTORIZER`` (a saved vectorizer) gives one ``rl_advantages.Server`` per process; neither gives
    None (the default server)."""
    corpus = os.environ.get("RL_ADV_CORPUS", "").strip()
    vectorizer = os.environ.get("RL_ADV_VECTORIZER", "").strip()
    if not corpus and not vectorizer:
        return None
    key = (corpus, vectorizer)
    if key not in _env_server:
        _env_server[key] = rl_advantages.Server(corpus=corpus or None, vectorizer=vectorizer or None)
    return _env_server[key]


class RolloutBatch:
    """One batch of rollouts for one estimator: the fields it reads, and one call.

    A stateful estimator (catalogue ``stateful``: ``prompt_value``) runs in one server session, ``session`` in
    ``options`` or ``"rl_adv:<name>"``; checkpoint it with ``rl_advantages.state_dict(batch.session)``.

    Args:
        estimator: the estimator spec (catalogue name or wire form).
        server: an ``rl_advantages.Server`` (e.g. one started with a TF-IDF corpus); the default server if None.
        lazy: look the estimator up at the first use, not now (the server, and its TF-IDF fit, start only in the
            process that computes advantages: the adapters configured from the environment load in every process
            of a run).
        options: more request options passed through (``normalize``, ``std_floor``, ``session``, ...).
    """

    def __init__(self, estimator: Any, server: Any = None, lazy: bool = False, **options: Any):
        self.estimator = estimator
        self.server = server
        self._entry: dict[str, Any] | None = None
        self._session = options.pop("session", None)
        self.options = options
        if not lazy:
            _ = self.entry

    @property
    def entry(self) -> dict[str, Any]:
        """The estimator's catalogue entry (looked up once)."""
        if self._entry is None:
            self._entry = describe_estimator(self.estimator, self.server)
        return self._entry

    @property
    def session(self) -> Any:
        """The server session of a stateful estimator (``rl_adv:<name>`` unless ``session`` was given), else None."""
        if self._session is None and self.entry.get("stateful"):
            self._session = "rl_adv:" + estimator_name(self.estimator)
        return self._session

    @property
    def needs_groups(self) -> bool:
        """The estimator cannot run without group ids (it has no meaning at one rollout per prompt)."""
        return requires_field(self.entry, "group_ids")

    @property
    def needs_prompts(self) -> bool:
        return requires_field(self.entry, "prompts")

    def compute(
        self,
        rewards: Sequence[float] | np.ndarray,
        group_ids: Sequence[Any] | None = None,
        prompts: Sequence[str] | None = None,
        mask: Sequence[bool] | None = None,
        **fields: Any,
    ) -> Any:
        """``rl_advantages.compute_advantages`` with only the fields the estimator reads.

        Rewards are float64. ``mask[i]`` True masks rollout ``i`` (docs/method.md section 2.1: it enters no baseline
        and gets A = 0); a NaN reward must be masked (it is sent as 0.0, which no baseline reads).

        Raises:
            RlAdvantagesError: a field the estimator requires is missing, or a NaN reward is not masked.
        """
        values = np.asarray(rewards, dtype=np.float64).copy()
        nan = ~np.isfinite(values)
        if nan.any():
            unmasked = [i for i in map(int, np.flatnonzero(nan)) if mask is None or not bool(mask[i])]
            if unmasked:
                i = unmasked[0]
                raise _error("bad_value", f'field "rewards"[{i}] is {values[i]}: mask it (mask[{i}] = True) or give a finite reward', field="rewards", index=i)
            values[nan] = 0.0
        kwargs: dict[str, Any] = dict(self.options)
        for name, value in (("group_ids", group_ids), ("prompts", prompts), *fields.items()):
            if reads_field(self.entry, name):
                if value is None and requires_field(self.entry, name):
                    raise _error("missing_field", f'{estimator_name(self.estimator)} needs field "{name}"', field=name)
                if value is not None:
                    kwargs[name] = value
        if mask is not None:
            kwargs["mask"] = [bool(m) for m in mask]
        if self.session is not None:
            kwargs["session"] = self.session
        if self.server is not None:
            kwargs["server"] = self.server
        return rl_advantages.compute_advantages(self.estimator, values, **kwargs)
