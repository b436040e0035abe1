"""A long-lived ``rl-adv serve`` subprocess: one JSON line per request, one per response, in order.

Protocol (the ``serve`` command of rl-advantages): the client writes
``{"id": 1, "estimator": "tfidf_kernel_loo_T0.1", "rewards": [...], "prompts": [...], "group_ids": [...]}``
and reads ``{"id": 1, "advantages": [...], "baselines": [...], "loo_mean": [...], "max_self_weight": 0.0}``
or ``{"id": 1, "error": {"code": "...", "message": "..."}}``. The server fits its TF-IDF vocabulary
once, on ``--corpus``, at start-up, so one process serves a whole training run.

Standard library only. JSON carries float64 exactly (both ends print the shortest round-tripping form).

Example::

    >>> with RlAdvServe(corpus="/data/gsm8k/train.jsonl") as serve:  # doctest: +SKIP
    ...     out = serve.compute("loo_batch_mean", rewards=[1.0, 0.0, 1.0])
    >>> out.baselines  # doctest: +SKIP
    [0.5, 1.0, 0.5]
"""

from __future__ import annotations

import json
import math
import os
import queue
import shlex
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from typing import Sequence

__all__ = ["RlAdvServe", "RlAdvServeError", "ServeResult", "resolve_rl_adv_command"]

#: ``examples/tinker-cookbook/rl_adv_examples/serve_client.py`` -> the repository root.
_REPO_ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class RlAdvServeError(RuntimeError):
    """The server answered with an error, died, timed out, or could not be started.

    ``code`` is the server's error code (``"bad_input"``, ...) or one of ``"not_found"``,
    ``"server_exited"``, ``"timeout"``, ``"bad_response"``.
    """

    def __init__(self, message: str, code: str):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class ServeResult:
    """One response: per-rollout lists of floats and the largest normalised self-weight used."""

    advantages: list[float]
    baselines: list[float]
    loo_mean: list[float]
    max_self_weight: float


def resolve_rl_adv_command(explicit: str | None = None) -> list[str]:
    """The command that runs ``rl-adv``: ``explicit``, else env ``RL_ADV``, else ``rl-adv`` on PATH,
    else ``node <repo>/dist/cli.js`` (this checkout's build).

    A string is split like a shell would (``"node /x/dist/cli.js"`` -> two words).

    Raises:
        RlAdvServeError: none of them exists (code ``not_found``), with how to build it.
    """
    for candidate in (explicit, os.environ.get("RL_ADV")):
        if candidate:
            return shlex.split(candidate)
    on_path = shutil.which("rl-adv")
    if on_path:
        return [on_path]
    cli_js = os.path.join(_REPO_ROOT, "dist", "cli.js")
    node = shutil.which("node")
    if node and os.path.exists(cli_js):
        return [node, cli_js]
    raise RlAdvServeError(
        "cannot find rl-adv: pass --rl-adv 'node /path/to/rl-advantages/dist/cli.js', set RL_ADV, or "
        f"build this checkout (cd {_REPO_ROOT} && npm ci && npx tsup) so {cli_js} exists (needs node >= 20)",
        "not_found",
    )


class RlAdvServe:
    """Starts ``<rl-adv> serve --corpus CORPUS`` and exchanges one request at a time with it.

    Args:
        corpus: the TF-IDF fitting corpus passed to ``--corpus`` (GSM8K ``train.jsonl``).
        command: the rl-adv command (see :func:`resolve_rl_adv_command`).
        extra_args: more arguments after ``serve --corpus CORPUS``.
        timeout: seconds to wait for one response (the first one includes the server's start-up).
    """

    def __init__(
        self,
        corpus: str,
        command: str | Sequence[str] | None = None,
        extra_args: Sequence[str] = (),
        timeout: float = 600.0,
    ):
        if isinstance(command, (list, tuple)):
            argv = list(command)
        else:
            argv = resolve_rl_adv_command(command)  # type: ignore[arg-type]
        #: the rl-adv command itself (what ``rl-adv estimators --json`` runs with)
        self.command = list(argv)
        self.argv = [*argv, "serve", "--corpus", corpus, *extra_args]
        self.timeout = timeout
        self._next_id = 1
        # stderr goes to a file, never a pipe nobody reads (a full pipe would block the server).
        self._stderr = tempfile.TemporaryFile(mode="w+b")
        try:
            self._proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
            )
        except OSError as error:
            self._stderr.close()
            raise RlAdvServeError(f"cannot start {shlex.join(self.argv)}: {error}", "not_found") from None
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()

    def _read_stdout(self) -> None:
        assert self._proc.stdout is not None
        for line in self._proc.stdout:
            self._lines.put(line)
        self._lines.put(b"")  # end of stream

    def _stderr_tail(self, limit: int = 2000) -> str:
        try:
            self._stderr.flush()
            self._stderr.seek(0)
            text = self._stderr.read().decode("utf-8", "replace").strip()
        except (OSError, ValueError):
            return ""
        return text[-limit:]

    def _died(self, what: str) -> RlAdvServeError:
        code = self._proc.poll()
        tail = self._stderr_tail()
        return RlAdvServeError(
            f"rl-adv serve ({shlex.join(self.argv)}) {what}"
            + (f" (exit code {code})" if code is not None else "")
            + (f"; its stderr:\n{tail}" if tail else ""),
            "server_exited",
        )

    def compute(
        self,
        estimator: str,
        rewards: Sequence[float],
        prompts: Sequence[str] | None = None,
        group_ids: Sequence[int | str] | None = None,
    ) -> ServeResult:
        """Send one batch and wait for its answer.

        Raises:
            RlAdvServeError: the server reported an error (its code and message), exited, sent a
                malformed line, or did not answer within ``timeout`` seconds.
        """
        request: dict[str, object] = {"id": self._next_id, "estimator": estimator, "rewards": [float(r) for r in rewards]}
        if prompts is not None:
            request["prompts"] = list(prompts)
        if group_ids is not None:
            request["group_ids"] = list(group_ids)
        request_id = self._next_id
        self._next_id += 1
        if self._proc.poll() is not None:
            raise self._died("is not running")
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write((json.dumps(request, allow_nan=False) + "\n").encode("utf-8"))
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died("closed its input") from None
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            raise RlAdvServeError(
                f"rl-adv serve sent no answer to request {request_id} within {self.timeout:g} s", "timeout"
            ) from None
        if line == b"":
            self._lines.put(b"")  # keep end-of-stream visible to later calls
            raise self._died(f"exited before answering request {request_id}")
        return _parse_response(line, request_id, len(request["rewards"]))  # type: ignore[arg-type]

    def close(self) -> None:
        """Close the server's input (it exits at end of input) and wait; kill it after 10 s."""
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            try:
                self._proc.stdin.close()
            except OSError:
                pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        self._reader.join(timeout=5)
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> "RlAdvServe":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _parse_response(line: bytes, request_id: int, n: int) -> ServeResult:
    try:
        response = json.loads(line)
    except json.JSONDecodeError as error:
        raise RlAdvServeError(f"rl-adv serve sent a line that is not JSON ({error}): {line[:200]!r}", "bad_response") from None
    if not isinstance(response, dict):
        raise RlAdvServeError(f"rl-adv serve sent {type(response).__name__}, expected an object", "bad_response")
    if response.get("id") != request_id:
        raise RlAdvServeError(
            f"rl-adv serve answered id {response.get('id')!r} to request {request_id} (responses must come in order)",
            "bad_response",
        )
    error = response.get("error")
    if error is not None:
        code = error.get("code", "error") if isinstance(error, dict) else "error"
        message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
        raise RlAdvServeError(f"rl-adv serve rejected request {request_id}: [{code}] {message}", str(code))
    arrays = {}
    for key in ("advantages", "baselines", "loo_mean"):
        values = response.get(key)
        if not isinstance(values, list) or len(values) != n:
            raise RlAdvServeError(
                f"rl-adv serve response {request_id}: {key} must be a list of {n} numbers, got {str(values)[:100]}",
                "bad_response",
            )
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                raise RlAdvServeError(f"rl-adv serve response {request_id}: {key}[{i}] is {v!r}", "bad_response")
        arrays[key] = [float(v) for v in values]
    msw = response.get("max_self_weight")
    if isinstance(msw, bool) or not isinstance(msw, (int, float)) or not math.isfinite(msw):
        raise RlAdvServeError(f"rl-adv serve response {request_id}: max_self_weight is {msw!r}", "bad_response")
    return ServeResult(arrays["advantages"], arrays["baselines"], arrays["loo_mean"], float(msw))
