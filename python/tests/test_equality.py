"""Every catalogue estimator through compute_advantages equals `rl-adv advantages` on the same rows, exactly.

The estimators come from the server's describe (never a list of our own). Each one-step estimator runs on a batch
of 0/1 rewards, the same with a mask, and one of fractional rewards, in its wire form (and its short form when it
has one), with list, numpy (float32 rewards, int64 ids) and torch inputs; the CLI reads the same rows as JSON
lines. Every number is a multiple of 1/8, exact in float32, so every input path carries the same float64. Where the
command refuses a batch (an estimator that needs 0/1 rewards, ...), compute_advantages must refuse it too.
Stateful estimators have no one-batch command: test_state.py checks them.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import rl_advantages as r
from rl_advantages._node import find_node
from rl_advantages._server import BUNDLE

from client_support import make_batch

# A kernel file for the estimators that read one (the length family: no fitted state beyond its two numbers).
KERNEL = {"format": "rl-advantages/kernel", "version": 1, "family": "length", "params": {"measure": "chars", "kernel": "gaussian", "bandwidth": 1}, "fitted": {"sd": 0.5, "scale": 0.5}}
ROW_FIELDS = {"rewards": "reward", "group_ids": "group", "prompts": "prompt", "lengths": "length", "greedy_rewards": "greedy_reward", "features": "features",
              "reward_components": "reward_components", "mask": "masked"}  # fmt: skip


def value_for(p: dict[str, Any]) -> Any:
    """A valid value for a required parameter, from its descriptor."""
    if p.get("choices"):
        return p["choices"][0]
    if p["type"] == "integer":
        return max(2, int(p["minimum"] or 0))
    if p["type"] == "number":
        return 0.5 if (p["maximum"] is None or p["maximum"] >= 0.5) else p["maximum"]
    if p["type"] == "boolean":
        return True
    raise AssertionError(f"no test value for required parameter {p}")


def other_value(p: dict[str, Any]) -> Any:
    """A valid value other than the default for an optional parameter, or None to leave it out."""
    if p.get("choices"):
        others = [c for c in p["choices"] if c != p["default"]]
        return others[0] if others else None
    if p["type"] == "number":
        value = 0.25 if not p["default"] else p["default"] * 2
        return value if p["maximum"] is None or value <= p["maximum"] else None
    if p["type"] == "boolean":
        return not p["default"]
    return None


def specs_of(d: dict[str, Any], kernel: Path) -> list[tuple[str, Any, dict[str, Any]]]:
    """(label, estimator, options): the wire form with the required parameters; the short form if there is one; and
    the wire form with every optional parameter at another value than its default, as keyword options."""
    params = {p["name"]: value_for(p) for p in d["parameters"] if p["required"]}
    if d["needs_kernel_file"]:
        params["path"] = str(kernel)
    wire = {"name": d["name"], **params}
    specs: list[tuple[str, Any, dict[str, Any]]] = [("wire", wire, {})]
    if d["short_form"] and d["short_form"].count("<") == 1:
        prefix, rest = d["short_form"].split("<")
        descriptor = next(p for p in d["parameters"] if p["name"] == rest.rstrip(">"))
        value = str(kernel) if d["needs_kernel_file"] else value_for({**descriptor, "choices": None} if descriptor["type"] != "string" else descriptor)
        if set(params) <= {descriptor["name"]}:
            specs.append(("short", f"{prefix}{value}", {}))
    options = {p["name"]: other_value(p) for p in d["parameters"] if not p["required"] and p["name"] not in params}
    options = {k: v for k, v in options.items() if v is not None}
    if options:
        specs.append(("options", d["name"] if not params else wire, options))
    return specs


def one_step(server: r.Server) -> list[dict[str, Any]]:
    return [d for d in server.catalogue() if not d["stateful"]]


def rows_file(tmp_path: Path, batch: dict[str, Any], fields: list[str]) -> Path:
    lines = []
    for i in range(len(batch["rewards"])):
        row = {}
        for name in ["rewards", *fields]:
            if name in batch:
                value = batch[name][i]
                row[ROW_FIELDS[name]] = value.tolist() if isinstance(value, np.ndarray) else (value.item() if isinstance(value, np.generic) else value)
        lines.append(json.dumps(row))
    path = tmp_path / f"rows-{len(list(tmp_path.iterdir()))}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run_cli(tmp_path: Path, estimator: Any, options: dict[str, Any], batch: dict[str, Any], fields: list[str], corpus: Path) -> tuple[np.ndarray | None, str]:
    if options:
        estimator = {**({"name": estimator} if isinstance(estimator, str) else estimator), **options}
    flag = ["--estimator", estimator] if isinstance(estimator, str) else ["--estimator-json", json.dumps(estimator)]
    argv = [find_node(), BUNDLE, "advantages", *flag, "--input", str(rows_file(tmp_path, batch, fields)), "--corpus", str(corpus)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        assert done.returncode == 2, done.stderr
        return None, done.stderr
    return np.array([json.loads(line)["advantage"] for line in done.stdout.splitlines()], dtype=np.float64), ""


def as_inputs(batch: dict[str, Any], fields: list[str], kind: str, torch: Any) -> dict[str, Any]:
    """The batch's fields (those the estimator reads, and the mask) as lists, numpy arrays or torch tensors."""
    out: dict[str, Any] = {}
    for name in ["rewards", *fields]:
        if name not in batch:
            continue
        value = batch[name]
        if name == "prompts":
            out[name] = list(value)
        elif kind == "list":
            out[name] = np.asarray(value).tolist()
        elif kind == "numpy":
            dtype = {"rewards": np.float32, "group_ids": np.int64, "mask": np.bool_, "lengths": np.int32}.get(name, np.float32)
            out[name] = np.asarray(value).astype(dtype)
        else:
            dtype = {"rewards": torch.float32, "group_ids": torch.int64, "mask": torch.bool, "lengths": torch.int32}.get(name, torch.float32)
            out[name] = torch.tensor(np.asarray(value)).to(dtype)
    return out


BATCHES = {"binary": dict(seed=1, masked=False, binary=True), "masked": dict(seed=2, masked=True, binary=True), "fractional": dict(seed=3, masked=False, binary=False)}


def test_the_catalogue_is_the_server_s(server):
    names = [d["name"] for d in server.catalogue()]
    assert len(names) == len(set(names)) and len(one_step(server)) >= 10


@pytest.mark.parametrize("batch_name", list(BATCHES))
def test_every_estimator_equals_the_command(server, corpus_file, tmp_path, batch_name, require_torch):
    torch = require_torch
    kernel = tmp_path / "kernel.json"
    kernel.write_text(json.dumps(KERNEL))
    options = BATCHES[batch_name]
    batch = make_batch(seed=options["seed"], masked=options["masked"])
    if options["binary"]:
        batch["rewards"] = (batch["rewards"] >= 0.5).astype(np.float64)
    compared: dict[str, int] = {}
    for d in one_step(server):
        fields = [f for f in dict.fromkeys([*d["fields"]["required"], *d["fields"]["optional"], "mask"]) if f in batch]
        compared[d["name"]] = 0
        for label, estimator, options in specs_of(d, kernel):
            expected, message = run_cli(tmp_path, estimator, options, batch, fields, corpus_file)
            for kind in ("list", "numpy", "torch"):
                inputs = as_inputs(batch, fields, kind, torch)
                where = f"{d['name']} ({label} {estimator!r} {options}, {kind} inputs, {batch_name} batch)"
                if expected is None:
                    with pytest.raises(r.RlAdvantagesError) as caught:
                        r.compute_advantages(estimator, server=server, **inputs, **options)
                    row_field = re.search(r'field "(\w+)"', message)
                    if row_field is not None:  # the same field, by its wire name (row "reward" is "rewards")
                        wire = {v: k for k, v in ROW_FIELDS.items()}.get(row_field.group(1), row_field.group(1))
                        assert caught.value.field == wire, (where, message, repr(caught.value))
                    continue
                result = r.compute_advantages(estimator, server=server, **inputs, **options)
                assert result.advantages.dtype == np.float64, where
                assert np.array_equal(result.advantages, expected), f"{where}: {result.advantages} != {expected}"
                compared[d["name"]] += 1
    # Every estimator was compared (not only refused by both) on 0/1 rewards; most on the others too.
    if batch_name == "binary":
        assert all(n >= 3 for n in compared.values()), compared
    assert sum(n > 0 for n in compared.values()) >= len(compared) - 2, compared
