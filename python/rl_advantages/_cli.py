"""``calibrate``, ``tune_kernel``, ``decide``, ``plan``: the bundled ``rl-adv`` command with ``--json``, its JSON as a dict.

Each function is the command of the same name (docs/cli.md): keyword arguments are its flags in snake_case
(``batch_size`` is ``--batch-size``), lists are joined with commas, True is a bare flag. A file argument may be a
path or, for the rollout and result files, the rows themselves (a list of dicts, written to a temporary
JSON-lines file). A failing command raises :class:`RlAdvantagesError` with its message.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from contextlib import ExitStack
from typing import Any, Union

from ._errors import RlAdvantagesError
from ._node import find_node
from ._server import BUNDLE

__all__ = ["calibrate", "decide", "plan", "tune_kernel", "run_cli"]

#: A file the command reads: a path, or the rows themselves.
Rows = Union[str, "os.PathLike[str]", Iterable[Mapping[str, Any]]]


def _rows_file(stack: ExitStack, flag: str, rows: Rows) -> str:
    if isinstance(rows, (str, os.PathLike)):
        return os.fspath(rows)
    if isinstance(rows, (bytes, Mapping)) or not isinstance(rows, Iterable):
        raise RlAdvantagesError("bad_type", f"{flag} must be a path or a list of row dicts, got {type(rows).__name__}", field=flag.lstrip("-"))
    directory = stack.enter_context(tempfile.TemporaryDirectory(prefix="rl-adv-"))
    path = os.path.join(directory, flag.lstrip("-") + ".jsonl")
    with open(path, "w", encoding="utf-8") as out:
        for i, row in enumerate(rows):
            if not isinstance(row, Mapping):
                raise RlAdvantagesError("bad_type", f"{flag} row {i} must be a dict, got {type(row).__name__}", field=flag.lstrip("-"), index=i)
            try:
                out.write(json.dumps(dict(row), allow_nan=False) + "\n")
            except ValueError:
                raise RlAdvantagesError("non_finite", f"{flag} row {i} holds NaN or infinity", field=flag.lstrip("-"), index=i) from None
    return path


def _flag_args(flags: Mapping[str, Any]) -> list[str]:
    argv: list[str] = []
    for name, value in flags.items():
        if value is None or value is False:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            argv += [flag, ",".join(str(v) for v in value)]
        else:
            argv += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return argv


def run_cli(args: Sequence[str], *, node: str | None = None, timeout: float | None = None) -> str:
    """Runs the bundled ``rl-adv`` with ``args`` and returns its standard output.

    Raises:
        RlAdvantagesError: ``bad_input`` (exit code 2: the command's own message, naming the flag and field),
            ``cli_failed`` for any other failure, ``timeout``.
    """
    if not os.path.isfile(BUNDLE):
        raise RlAdvantagesError("bundle_missing", f"the bundled rl-adv {BUNDLE} is missing: build with `npm ci && npm run build`, then `pip install ./python`")
    argv = [find_node(node), BUNDLE, *args]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise RlAdvantagesError("timeout", f"rl-adv {' '.join(args)} did not finish within {timeout} s") from None
    if done.returncode != 0:
        message = done.stderr.strip() or f"exit code {done.returncode}"
        if message.startswith("rl-adv: "):
            message = message[len("rl-adv: ") :]
        raise RlAdvantagesError("bad_input" if done.returncode == 2 else "cli_failed", f"rl-adv {args[0]}: {message}")
    return done.stdout


def _json_command(command: str, flags: Mapping[str, Any], node: str | None, timeout: float | None) -> dict[str, Any]:
    out = run_cli([command, *_flag_args(flags), "--json"], node=node, timeout=timeout)
    try:
        value = json.loads(out)
    except ValueError:
        raise RlAdvantagesError("bad_response", f"rl-adv {command} --json printed something that is not JSON: {out[:300]}") from None
    if not isinstance(value, dict):
        raise RlAdvantagesError("bad_response", f"rl-adv {command} --json printed {type(value).__name__}, not an object")
    return value


def calibrate(
    input: Rows,
    *,
    estimators: Sequence[str] | str | None = None,
    reference: str | None = None,
    corpus: str | os.PathLike[str] | None = None,
    vectorizer: str | os.PathLike[str] | None = None,
    corpus_field: str | None = None,
    batch_size: int | None = None,
    batches: int | None = None,
    interval: str | None = None,
    noise: str | None = None,
    seed: int | str | None = None,
    node: str | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """``rl-adv calibrate --json``: the B_eff calibration of estimators on rollouts from the starting policy
    (docs/method.md section 4). ``input``: the calibration rows (path or list of dicts)."""
    with ExitStack() as stack:
        flags = dict(input=_rows_file(stack, "--input", input), corpus=corpus, vectorizer=vectorizer, corpus_field=corpus_field,
                     batch_size=batch_size, estimators=estimators, reference=reference, batches=batches, interval=interval,
                     noise=noise, seed=seed)  # fmt: skip
        return _json_command("calibrate", flags, node, timeout)


def tune_kernel(
    input: Rows,
    out: str | os.PathLike[str],
    *,
    train: Rows | None = None,
    corpus: str | os.PathLike[str] | None = None,
    corpus_field: str | None = None,
    features: Rows | None = None,
    families: Sequence[str] | str | None = None,
    holdout: float | None = None,
    batch_size: int | None = None,
    batches: int | None = None,
    seed: int | str | None = None,
    cross_fit: bool = True,
    force: bool = False,
    node: str | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """``rl-adv tune-kernel --json``: tunes a prompt-only kernel on calibration rows and writes it to ``out``
    (usable as the estimator ``kernel:PATH``); returns the figures (docs/kernel-lab.md)."""
    with ExitStack() as stack:
        flags = dict(input=_rows_file(stack, "--input", input), out=out,
                     train=None if train is None else _rows_file(stack, "--train", train), corpus=corpus,
                     corpus_field=corpus_field, features=None if features is None else _rows_file(stack, "--features", features),
                     families=families, holdout=holdout, batch_size=batch_size, batches=batches, seed=seed,
                     no_cross_fit=not cross_fit, force=force)  # fmt: skip
        return _json_command("tune-kernel", flags, node, timeout)


def _replicates_file(stack: ExitStack, replicates: Rows) -> tuple[str, str | None]:
    """The replicates file: a path as given, or one written from ``[{seed, treatment, baseline}, ...]`` whose arms
    are paths or row lists (each list written to its own file); returns the path and, when written, its name."""
    if isinstance(replicates, (str, os.PathLike)):
        return os.fspath(replicates), None
    if isinstance(replicates, (bytes, Mapping)) or not isinstance(replicates, Iterable):
        raise RlAdvantagesError("bad_type", f"replicates must be a path or a list of {{seed, treatment, baseline}} dicts, got {type(replicates).__name__}", field="replicates")
    lines = []
    for i, entry in enumerate(replicates):
        if not isinstance(entry, Mapping):
            raise RlAdvantagesError("bad_type", f"replicates[{i}] must be a dict {{seed, treatment, baseline}}, got {type(entry).__name__}", field="replicates", index=i)
        line = dict(entry)
        for side in ("treatment", "baseline"):
            if side in line and line[side] is not None and not isinstance(line[side], (str, os.PathLike)):
                line[side] = _rows_file(stack, f"--replicates-{i}-{side}", line[side])
            elif isinstance(line.get(side), os.PathLike):
                line[side] = os.path.abspath(os.fspath(line[side]))
            elif isinstance(line.get(side), str):
                line[side] = os.path.abspath(line[side])
        lines.append(line)
    path = _rows_file(stack, "--replicates", lines)
    return path, path


def decide(
    treatment: Rows | None = None,
    baseline: Rows | None = None,
    *,
    replicates: Rows | None = None,
    spec: str | os.PathLike[str] | None = None,
    method: str | None = None,
    seed_method: str | None = None,
    node: str | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """``rl-adv decide --json``: the study spec's paired decision on per-item results of two arms
    (docs/method.md section 5): ``{method, alpha, n, verdict, criteria: [...]}``.

    ``replicates``: several training seeds instead of one arm pair (``rl-adv decide --replicates``, docs/method.md
    section 5.8): a path to a JSON-lines file ``{seed, treatment, baseline}`` (paths relative to its folder), or a list
    of ``{"seed": 0, "treatment": ..., "baseline": ...}`` whose arms are paths or lists of row dicts; returns the
    decision across seeds ``{method, estimate, interval: [lower, upper], verdict, per_seed: [...], per_seed_difference_sd, run_to_run_sd, fallback, outliers, ...}``.
    ``seed_method``: another seed-level method than the spec's ``decision_rule.seed_method``. Errors about a listed
    replicate name it as ``replicates[i]``."""
    with ExitStack() as stack:
        if replicates is None:
            if treatment is None or baseline is None:
                raise RlAdvantagesError("bad_type", "give treatment and baseline (one seed), or replicates=[{seed, treatment, baseline}, ...]", field="treatment" if treatment is None else "baseline")
            flags = dict(spec=spec, treatment=_rows_file(stack, "--treatment", treatment), baseline=_rows_file(stack, "--baseline", baseline), method=method, seed_method=seed_method)
            return _json_command("decide", flags, node, timeout)
        if treatment is not None or baseline is not None:
            raise RlAdvantagesError("bad_type", "give replicates or treatment and baseline, not both", field="replicates")
        path, written = _replicates_file(stack, replicates)
        try:
            return _json_command("decide", dict(spec=spec, replicates=path, method=method, seed_method=seed_method), node, timeout)
        except RlAdvantagesError as error:
            if written is None:
                raise
            # The file is ours: "PATH:LINE: ..." is replicates[LINE - 1].
            message = re.sub(re.escape(written) + r":(\d+)", lambda m: f"replicates[{int(m.group(1)) - 1}]", error.message)
            raise RlAdvantagesError(error.code, message, field="replicates") from None


def plan(
    *,
    spec: str | os.PathLike[str] | None = None,
    n: int | None = None,
    discordance: float | None = None,
    control_accuracy: float | None = None,
    pilot: tuple[Rows, Rows] | None = None,
    method: str | None = None,
    seeds: int | None = None,
    between_seed_sd: float | None = None,
    item_sd: float | None = None,
    effect: float | None = None,
    seed_method: str | None = None,
    node: str | None = None,
    timeout: float | None = None,
) -> dict[str, Any]:
    """``rl-adv plan --json``: what the decision rule can conclude with ``n`` paired items, and with what power.
    ``pilot``: (treatment, baseline) per-item results to estimate the discordance from. ``control_accuracy``: the
    control arm's expected accuracy, which only paired_newcombe's power uses (``--control-accuracy``, default 0.5).
    ``seeds`` (with ``between_seed_sd``, and optionally ``effect``, ``item_sd``, ``seed_method``): the power of the
    decision across ``seeds`` training seeds instead (``rl-adv plan --seeds``, docs/method.md section 5.9)."""
    with ExitStack() as stack:
        pilots = None if pilot is None else [_rows_file(stack, "--pilot", pilot[0]), _rows_file(stack, "--pilot-baseline", pilot[1])]
        flags = dict(spec=spec, n=n, discordance=discordance, control_accuracy=control_accuracy, pilot=pilots, method=method,
                     seeds=seeds, between_seed_sd=between_seed_sd, item_sd=item_sd, effect=effect, seed_method=seed_method)  # fmt: skip
        return _json_command("plan", flags, node, timeout)
