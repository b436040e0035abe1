"""What the TRL study drivers read: the spec's settings, the items files the study writes, prompts, rewards, and
the deterministic torch set-up every driver starts with.

A driver is given ``--spec`` (the study spec), ``--run-dir`` (the study's run folder; the drivers keep their own
files under ``RUN/trl/``) and ``--data-dir`` (a folder with ``train.jsonl`` and ``test.jsonl`` in GSM8K's format:
GSM8K itself, or the arith world the study generated there, with ``sft.jsonl``). Items the study asks about come
in a JSON lines file of ``{"task_id", "question", "reference"}`` rows, in the study's order.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from typing import Any

from ..cluster.fence import check_fence
from ..grading import gsm8k_reward

#: Steps between mid-arm checkpoints when the spec's ``trl.save_every`` is not given.
DEFAULT_SAVE_EVERY = 10

#: The instruction appended to a GSM8K question (the cookbook's math environment asks for a boxed answer too).
GSM8K_SUFFIX = " Write your final answer as \\boxed{N}."


class DriverError(Exception):
    """A missing prerequisite or bad input: the message says what, exit code 2 (1 for a failed check)."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code


#: The study-level kernel names of an arm's ``advantage`` and their files in the run folder (docs/study.md, "Kernel
#: arms"): the kernel the run's tuning phase froze, and the arith world's oracle kernel on its difficulty cells.
RUN_KERNEL_FILES = {"tuned_kernel": "kernel.json", "oracle_cell_kernel": "oracle-kernel.json"}


@dataclass(frozen=True)
class Arm:
    name: str
    advantage: str
    group_size: int
    groups_per_batch: int
    lr: float
    seed: int
    #: The name the server computes with when it differs from ``advantage`` (:func:`with_run_kernels`): ``kernel:``
    #: and the absolute path of the arm's kernel file; empty otherwise.
    estimator: str = ""

    @property
    def server_name(self) -> str:
        """The estimator name sent to the server."""
        return self.estimator or self.advantage


def with_run_kernels(settings: "Settings", spec_path: str, run_dir: str) -> "Settings":
    """The settings with each kernel arm's file made absolute for the server (whose working folder is not the
    spec's): ``kernel:PATH`` relative to the spec file, ``tuned_kernel`` and ``oracle_cell_kernel`` the run folder's
    kernel.json and oracle-kernel.json (written by the study before the pilot)."""
    import dataclasses

    def resolved(arm: Arm) -> Arm:
        if arm.advantage in RUN_KERNEL_FILES:
            return dataclasses.replace(arm, estimator="kernel:" + os.path.abspath(os.path.join(run_dir, RUN_KERNEL_FILES[arm.advantage])))
        if arm.advantage.startswith("kernel:") and not os.path.isabs(arm.advantage[len("kernel:") :]):
            path = os.path.join(os.path.dirname(os.path.abspath(spec_path)), arm.advantage[len("kernel:") :])
            return dataclasses.replace(arm, estimator="kernel:" + os.path.normpath(path))
        return arm

    return dataclasses.replace(settings, arms=tuple(resolved(a) for a in settings.arms))


#: The spec's ``dtype`` values: the weights' dtype and TRL's mixed precision (``bf16`` / ``fp16``) on a GPU.
DTYPES = ("float32", "bfloat16", "float16")

#: The keys of the spec's ``lora`` object.
LORA_KEYS = ("rank", "alpha", "dropout", "target_modules")


@dataclass(frozen=True)
class Lora:
    """peft's LoRA as the spec's ``lora`` (or ``lora_rank`` with ``trl.lora_alpha``) gives it."""

    rank: int
    alpha: float
    dropout: float
    target_modules: Any  # "all-linear" or a list of module names


@dataclass(frozen=True)
class Settings:
    """The spec's model, generation and training settings the drivers use (both arms share all but grouping)."""

    raw: dict[str, Any]
    arms: tuple[Arm, ...]
    base_model: str
    model_config: dict[str, Any] | None
    pretrain: dict[str, Any] | None
    renderer: str
    lora_rank: int
    lora_alpha: int
    max_tokens: int
    temperature: float
    threads: int
    #: Optimiser steps between an arm's mid-arm checkpoints (the spec's ``trl.save_every``; checkpoints.py).
    save_every: int
    #: LoRA, or None for full fine-tuning (``lora_rank`` 0).
    lora: Lora | None = None
    #: The spec's ``dtype`` (default float32 for the small world, bfloat16 for a Hugging Face model).
    dtype: str = "float32"
    #: The folder of the spec file (a relative ``base_model`` folder is read from there).
    spec_dir: str = "."

    @property
    def world(self) -> bool:
        """True when the starting policy is built from the spec's ``model_config`` (the small world)."""
        return self.model_config is not None

    def arm(self, name: str) -> Arm:
        for arm in self.arms:
            if arm.name == name:
                return arm
        raise DriverError(f'--arm {name!r} is not an arm of the spec (arms: {", ".join(a.name for a in self.arms)})')

    def kernel_arm(self) -> Arm:
        """The arm the preflight's reference path checks: the first whose advantage is a TF-IDF kernel or a kernel
        file (the forms that path covers), else the first that is not ``group_mean`` (a two-arm spec's treatment).
        With three or more arms (``decision_rule.comparisons``) another G = 1 arm, e.g. ``loo_batch_mean``, may come
        first in the spec; it is not the kernel arm."""
        kernels = [a for a in self.arms if a.advantage.startswith(("tfidf_kernel_loo_T", "kernel:"))]
        return kernels[0] if kernels else next(a for a in self.arms if a.advantage != "group_mean")

    def grpo_arm(self) -> Arm:
        arm = next((a for a in self.arms if a.advantage == "group_mean"), None)
        if arm is None:
            raise DriverError("the spec has no arm with advantage group_mean (the stock GRPO baseline)")
        return arm


def load_settings(path: str) -> Settings:
    """Reads the spec; the study has validated its arms already, so only the drivers' own fields are checked."""
    try:
        with open(path, encoding="utf-8") as handle:
            raw = json.load(handle)
    except (OSError, ValueError) as error:
        raise DriverError(f"--spec {path}: {error}") from None
    optimizer = raw.get("optimizer") or {}
    arms = tuple(
        Arm(
            name=a["name"],
            advantage=a["advantage"],
            group_size=int(a.get("group_size", 1)),
            groups_per_batch=int(a.get("groups_per_batch", 32)),
            lr=float(a.get("lr", optimizer.get("lr", 3e-5))),
            seed=int(a.get("seed", 0)),
        )
        for a in raw["arms"]
    )
    trl = raw.get("trl") or {}
    save_every = trl.get("save_every", DEFAULT_SAVE_EVERY)
    if isinstance(save_every, bool) or not isinstance(save_every, int) or save_every < 1:
        raise DriverError(f'--spec {path}: field "trl.save_every": must be an integer >= 1 (steps between checkpoints), got {json.dumps(save_every)}')
    lora = read_lora(path, raw, trl)
    dtype = raw.get("dtype", "float32" if raw.get("model_config") is not None else "bfloat16")
    if dtype not in DTYPES:
        raise DriverError(f'--spec {path}: field "dtype": must be one of {", ".join(DTYPES)}, got {json.dumps(dtype)}')
    lora_rank = lora.rank if lora else 0
    return Settings(
        raw=raw,
        arms=arms,
        base_model=str(raw.get("base_model", "")),
        model_config=raw.get("model_config"),
        pretrain=raw.get("pretrain"),
        # none given: plain for the small world, else "auto" (the tokenizer's chat template if it has one; policy.with_renderer)
        renderer=str(raw.get("renderer") or ("plain" if raw.get("model_config") is not None else "auto")),
        lora_rank=lora_rank,
        lora_alpha=int(lora.alpha) if lora else 0,
        max_tokens=int(raw.get("max_tokens", 512)),
        temperature=float(trl.get("temperature", 1.0)),
        threads=int(trl.get("threads", 1)),
        save_every=save_every,
        lora=lora,
        dtype=str(dtype),
        spec_dir=os.path.dirname(os.path.abspath(path)),
    )


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def read_lora(path: str, raw: dict[str, Any], trl: dict[str, Any]) -> Lora | None:
    """The spec's LoRA: ``lora: {rank, alpha, dropout, target_modules}`` (alpha default 2 x rank, dropout 0,
    target_modules ``"all-linear"``), or the older ``lora_rank`` (0: full fine-tuning) with ``trl.lora_alpha``;
    neither: rank 32 on every linear layer. Both: refused (one would be ignored)."""
    if "lora" not in raw:
        rank = raw.get("lora_rank", 32)
        if isinstance(rank, bool) or not isinstance(rank, int) or rank < 0:
            raise DriverError(f'--spec {path}: field "lora_rank": must be an integer >= 0 (0: full fine-tuning, no LoRA), got {json.dumps(rank)}')
        return Lora(rank, float(trl.get("lora_alpha", 2 * rank)), 0.0, "all-linear") if rank else None
    if "lora_rank" in raw or "lora_alpha" in trl:
        raise DriverError(f'--spec {path}: field "lora": give either "lora" or "lora_rank" / "trl.lora_alpha", not both (one would be ignored)')
    given = raw["lora"]
    if given is None:
        return None  # "lora": null: full fine-tuning
    if not isinstance(given, dict):
        raise DriverError(f'--spec {path}: field "lora": must be an object {{rank, alpha, dropout, target_modules}} or null (full fine-tuning), got {json.dumps(given)}')
    unknown = sorted(set(given) - set(LORA_KEYS))
    if unknown:
        raise DriverError(f'--spec {path}: field "lora.{unknown[0]}": unknown (known: {", ".join(LORA_KEYS)})')
    rank = given.get("rank")
    if isinstance(rank, bool) or not isinstance(rank, int) or rank < 1:
        raise DriverError(f'--spec {path}: field "lora.rank": must be an integer >= 1 (use "lora": null for full fine-tuning), got {json.dumps(rank)}')
    alpha = given.get("alpha", 2 * rank)
    if not _number(alpha) or alpha <= 0:
        raise DriverError(f'--spec {path}: field "lora.alpha": must be a number > 0, got {json.dumps(alpha)}')
    dropout = given.get("dropout", 0.0)
    if not _number(dropout) or not 0 <= dropout < 1:
        raise DriverError(f'--spec {path}: field "lora.dropout": must be a number in [0, 1), got {json.dumps(dropout)}')
    targets = given.get("target_modules", "all-linear")
    if targets != "all-linear" and not (isinstance(targets, list) and targets and all(isinstance(t, str) and t for t in targets)):
        raise DriverError(f'--spec {path}: field "lora.target_modules": must be "all-linear" or a non-empty list of module names (e.g. ["q_proj", "v_proj"]), got {json.dumps(targets)}')
    return Lora(rank, float(alpha), float(dropout), targets)


def deterministic(seed: int, threads: int) -> None:
    """Seeds python, numpy and torch, fixes torch's thread count and asks for deterministic algorithms."""
    import numpy as np
    import torch

    os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


@dataclass(frozen=True)
class Item:
    task_id: str
    question: str
    reference: str


def read_items(path: str) -> list[Item]:
    """The ``{"task_id", "question", "reference"}`` rows of an items file the study wrote."""
    try:
        with open(path, encoding="utf-8") as handle:
            rows = [json.loads(line) for line in handle if line.strip()]
    except (OSError, ValueError) as error:
        raise DriverError(f"{path}: {error}") from None
    return [Item(str(r["task_id"]), str(r["question"]), str(r["reference"])) for r in rows]


def render(settings: Settings, question: str) -> Any:
    """The prompt of a question: the text itself (renderer ``plain``) or a one-turn chat for a chat model."""
    if settings.renderer == "plain":
        return question
    return [{"role": "user", "content": question + GSM8K_SUFFIX}]


def reward(response: str, reference: str, stopped: bool) -> float:
    """The cookbook's GSM8K reward by our grader (docs/method.md section 7): correct + 0.1 * (format - 1)."""
    return gsm8k_reward(response, reference, stopped_cleanly=stopped)


def write_text_durable(path: str, text: str) -> None:
    """Writes ``text`` to ``path`` whole: a flushed temporary file beside it named ``.rl-adv-tmp-<pid>-<8 hex>`` (the
    name ``rl-adv study --resume`` recognises, src/internal/durable-write.ts), then renamed over ``path``. A kill or a
    full disk leaves the old file or the new one, never a torn one, and no temporary file (it is removed on error).
    In an attempt of a job on a Ray cluster whose fence names a newer attempt it raises
    :class:`rl_advantages.cluster.FencedError` instead of renaming (rl_advantages.cluster.fence)."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    temp = os.path.join(folder, f".rl-adv-tmp-{os.getpid()}-{os.urandom(4).hex()}")
    try:
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(text)  # a buffered write writes every byte or raises (ENOSPC: OSError)
            handle.flush()
            os.fsync(handle.fileno())
        check_fence()  # a stale attempt of a job on a Ray cluster never replaces a newer attempt's file
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def write_jsonl(path: str, rows: list[dict[str, Any]]) -> None:
    """Writes JSON lines whole (:func:`write_text_durable`)."""
    write_text_durable(path, "".join(json.dumps(row, allow_nan=False) + "\n" for row in rows))


def write_json(path: str, value: Any) -> None:
    """Writes a JSON value whole, indented, with a final newline (:func:`write_text_durable`)."""
    write_text_durable(path, json.dumps(value, indent=2, allow_nan=False) + "\n")
