"""Mid-arm checkpoints of a TRL arm, so an interrupted ``train`` driver continues where it stopped.

Every ``save_every`` optimiser steps (the spec's ``trl.save_every``, default ``DEFAULT_SAVE_EVERY`` = 10; the name
of the Tinker drivers' ``--save-every``, the cookbook's ``save_every``) the arm's trainer writes TRL's checkpoint
``CHECKPOINTS/checkpoint-N/`` (the transformers ``Trainer._save_checkpoint`` of transformers 5.18.0: the LoRA
adapter, ``optimizer.pt``, ``scheduler.pt``, ``rng_state.pth`` with the python, numpy and torch generator states,
``trainer_state.json``); then the driver adds the arm's advantage-log rows of those N steps,
:data:`ROWS_FILE`, written whole (temporary file, then rename). That file is written last, so it marks a
checkpoint as complete: a checkpoint folder without it (a kill during the save) is never resumed from.

``CHECKPOINTS`` is ``RUN/trl/checkpoints/<phase>/<arm>/`` when the study runs the driver, outside the arm's
artifact folder, with :data:`FINGERPRINT_FILE`: what the arm's numbers depend on (the spec file's sha256, as
run.json's ``spec_sha256``, the arm's settings, the steps, the tasks file's and the TF-IDF corpus's sha256, the
starting policy and the library versions). A checkpoint folder whose fingerprint differs from the run's is refused,
naming the fields that differ. After each save only the latest :data:`KEEP` complete checkpoints are kept; a
finished arm removes its checkpoints (its adapter and log are the arm's artifacts).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import signal
from typing import Any

from .settings import Arm, DriverError, write_text_durable

#: Complete checkpoints kept after a save (the latest, and the one before it in case the latest is damaged).
KEEP = 2
#: The advantage-log rows of the steps a checkpoint holds: written last, it marks the checkpoint complete.
ROWS_FILE = "rl_adv_advantages.jsonl"
#: What the checkpoints of a folder belong to.
FINGERPRINT_FILE = "fingerprint.json"
#: ``<arm>:<n>``: the driver kills itself (SIGKILL) right after its checkpoint of n steps is complete (tests only).
KILL_ENV = "RL_ADV_TRL_KILL_AT"

_NAME = re.compile(r"^checkpoint-(\d+)$")


def file_sha256(path: str) -> str | None:
    """The sha256 of a file's bytes, or None when it does not exist."""
    if not os.path.isfile(path):
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fingerprint(spec_path: str, arm: Arm, steps: int, tasks_path: str, corpus_path: str, source: str) -> dict[str, Any]:
    """What an arm's numbers depend on; checkpoints are resumed only into a run with the same fingerprint."""
    import peft
    import torch
    import transformers
    import trl

    from .._package_version import __version__

    weights = [os.path.join(source, name) for name in ("model.safetensors", "model.safetensors.index.json", "pytorch_model.bin")]
    return {
        "spec_sha256": file_sha256(spec_path),
        "arm": {"name": arm.name, "advantage": arm.advantage, "group_size": arm.group_size, "groups_per_batch": arm.groups_per_batch, "lr": arm.lr, "seed": arm.seed},
        "steps": steps,
        "tasks_sha256": file_sha256(tasks_path),
        "corpus_sha256": file_sha256(corpus_path),
        "starting_policy": {
            # a folder is known by its files (a run folder may move), a hub model by its name
            "source": None if os.path.isdir(source) else source,
            "config_sha256": file_sha256(os.path.join(source, "config.json")),
            "weights_sha256": next((file_sha256(w) for w in weights if os.path.isfile(w)), None),
        },
        "versions": {"rl_advantages": __version__, "trl": trl.__version__, "transformers": transformers.__version__, "torch": torch.__version__, "peft": peft.__version__},
    }


def _write_atomic(path: str, text: str) -> None:
    write_text_durable(path, text)


def _differences(old: Any, new: Any, prefix: str = "") -> list[str]:
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[str] = []
        for key in sorted(set(old) | set(new)):
            out += _differences(old.get(key), new.get(key), f"{prefix}{key}.")
        return out
    return [] if old == new else [f"{prefix[:-1]} ({json.dumps(old)} there, {json.dumps(new)} now)"]


def checkpoints(folder: str) -> list[tuple[int, str, bool]]:
    """The checkpoint folders in ``folder`` as (steps, path, complete), by steps."""
    if not os.path.isdir(folder):
        return []
    found = []
    for name in os.listdir(folder):
        match = _NAME.match(name)
        path = os.path.join(folder, name)
        if match and os.path.isdir(path):
            found.append((int(match.group(1)), path, os.path.isfile(os.path.join(path, ROWS_FILE))))
    return sorted(found)


def open_folder(folder: str, expected: dict[str, Any], resume: bool) -> tuple[str, list[dict[str, Any]]] | None:
    """Claims ``folder`` for the arm of ``expected``; returns the latest complete checkpoint and its log rows when
    ``resume`` finds one, else None (a fresh start: incomplete checkpoints removed, the fingerprint written).

    :raises DriverError: the folder's fingerprint is another run's, or it holds checkpoints and ``resume`` is off.
    """
    os.makedirs(folder, exist_ok=True)
    marker = os.path.join(folder, FINGERPRINT_FILE)
    found = checkpoints(folder)
    if os.path.isfile(marker):
        with open(marker, encoding="utf-8") as handle:
            recorded = json.load(handle)
        differ = _differences(recorded, expected)
        if differ:
            raise DriverError(f"{folder} holds the checkpoints of another run ({'; '.join(differ)}); refusing to resume from them: delete the folder to start this arm afresh")
    elif found:
        raise DriverError(f"{folder} holds checkpoints without {FINGERPRINT_FILE}; refusing to resume from them: delete the folder to start this arm afresh")
    complete = [c for c in found if c[2]]
    if complete and not resume:
        raise DriverError(f"{folder} holds a checkpoint of this arm ({complete[-1][1]}): pass --resume to continue from it, or delete the folder")
    latest = complete[-1] if complete else None
    for steps, path, _ in found:
        if latest is None or steps > latest[0]:
            shutil.rmtree(path)  # cut short by a kill: the trainer writes that step's checkpoint again
    _write_atomic(marker, json.dumps(expected, indent=2) + "\n")
    if latest is None:
        return None
    return latest[1], read_rows(latest[1], latest[0])


def read_rows(path: str, steps: int) -> list[dict[str, Any]]:
    with open(os.path.join(path, ROWS_FILE), encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    if [r.get("step") for r in rows] != list(range(steps)):
        raise DriverError(f"{path}: {ROWS_FILE} does not hold the rows of steps 0..{steps - 1}; delete the folder to start this arm afresh")
    return rows


def complete_checkpoint(path: str, steps: int, rows: list[dict[str, Any]]) -> None:
    """Adds the log rows of the first ``steps`` steps to the trainer's checkpoint ``path`` (making it complete),
    prunes all but the latest :data:`KEEP` complete checkpoints, and honours :data:`KILL_ENV`."""
    if len(rows) != steps:
        raise DriverError(f"{path}: the advantage log has {len(rows)} rows after {steps} steps", 1)
    _write_atomic(os.path.join(path, ROWS_FILE), "".join(json.dumps(r, allow_nan=False) + "\n" for r in rows))
    folder = os.path.dirname(path)
    complete = [c for c in checkpoints(folder) if c[2]]
    for _, old, _ in complete[:-KEEP]:
        shutil.rmtree(old)


def kill_point(arm: str, steps: int) -> None:
    """``RL_ADV_TRL_KILL_AT=<arm>:<n>`` kills this process (SIGKILL) when arm ``arm`` has completed its checkpoint of
    n steps: a test of the resume reaches that instant deterministically. It changes no number of a run it does not stop."""
    if os.environ.get(KILL_ENV) == f"{arm}:{steps}":
        os.kill(os.getpid(), signal.SIGKILL)


def remove_folder(folder: str) -> None:
    """A finished arm's checkpoints are no longer needed."""
    shutil.rmtree(folder, ignore_errors=True)
