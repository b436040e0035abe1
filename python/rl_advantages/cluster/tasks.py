"""What runs on a Ray node: one attempt of a job (a process), and the probe of a node before any job.

Standard library and ray only, and shipped to the nodes by value (``cloudpickle.register_pickle_by_value``), so a
node without rl_advantages still runs the probe, which then says so.

:func:`run_attempt` is a streaming generator task: it yields the attempt's placement once its process started
(node, ``ray.get_gpu_ids()``, the process id), then its end (exit code, stdout). The process gets the node's
environment (with Ray's ``CUDA_VISIBLE_DEVICES`` for the GPUs Ray gave the task) plus the job's; its stderr goes to
the job's log and its stdout is copied there at the end (as the local executor does). It dies with the task
(``PR_SET_PDEATHSIG``, so ``ray.cancel(force=True)``, a worker crash or the node's loss end it too) and when its
fence names another attempt (:mod:`rl_advantages.cluster.fence`).
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import subprocess
import threading
from typing import Any, Iterator

from .fence import FENCE_FILE, FENCE_TOKEN, POLL_SECONDS, current

#: Lines of a failed attempt's log quoted back.
TAIL_LINES = 5
#: Seconds one probe command may take.
PROBE_TIMEOUT = 600


def _die_with_parent() -> None:
    """In the child before exec: SIGKILL when the worker that started it dies (Linux prctl PR_SET_PDEATHSIG)."""
    try:
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    except OSError:  # not Linux: the task kills the process group when it is interrupted
        pass


def _kill(child: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    child.wait()


def _tail(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return "\n".join(handle.read().strip().split("\n")[-TAIL_LINES:])
    except OSError as error:
        return f"(log unreadable: {error})"


def _missing(stdout: str) -> str:
    """The drivers' probe's answer (its last stdout line, ``{"missing": [...]}``), joined."""
    try:
        found = json.loads(stdout.strip().split("\n")[-1])["missing"]
        return "; ".join(str(m) for m in found)
    except (ValueError, KeyError, TypeError, IndexError):
        return ""


def placement() -> dict[str, Any]:
    """Where this task runs."""
    import ray

    ctx = ray.get_runtime_context()
    return {"node_id": ctx.get_node_id(), "ip": ray.util.get_node_ip_address(), "gpu_ids": [str(g) for g in ray.get_gpu_ids()]}


def run_attempt(job: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """One attempt of ``job`` (``argv``, ``env``, ``cwd``, ``log_file``, ``fence_file``, ``fence_token``)."""
    where = placement()
    fence_file, token = job["fence_file"], job["fence_token"]
    if not current(fence_file, token):
        yield {"event": "started", **where, "pid": None}
        yield {"event": "fenced", "message": f"{fence_file} names another attempt before this one started"}
        return
    env = {**os.environ, **job["env"], FENCE_FILE: fence_file, FENCE_TOKEN: token}
    os.makedirs(os.path.dirname(job["log_file"]), exist_ok=True)
    with open(job["log_file"], "wb") as log:
        child = subprocess.Popen(job["argv"], env=env, cwd=job["cwd"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=log, start_new_session=True, preexec_fn=_die_with_parent)
        out: list[bytes] = []
        reader = threading.Thread(target=lambda: out.append(child.stdout.read() if child.stdout else b""), daemon=True)
        reader.start()
        yield {"event": "started", **where, "pid": child.pid}
        fenced = False
        try:
            while True:
                try:
                    child.wait(timeout=POLL_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    if not current(fence_file, token):
                        fenced = True
                        _kill(child)
                        break
        finally:
            if child.poll() is None:  # the task was interrupted (ray.cancel): the process goes with it
                _kill(child)
        reader.join()
        stdout = b"".join(out)
        if fenced:
            yield {"event": "fenced", "message": f"{fence_file} names another attempt: this one was stopped"}
            return
        tail = _tail(job["log_file"]) if child.returncode != 0 else ""
        log.write(stdout)
    code = child.returncode
    yield {"event": "exit", "code": code if code >= 0 else None, "signal": signal.Signals(-code).name if code < 0 else None, "stdout": stdout.decode("utf-8", errors="replace"), "tail": tail}


def probe_node(checks: dict[str, Any]) -> dict[str, Any]:
    """What this node lacks to run the study's jobs, as phrases: the run folder at the same path (the token file the
    orchestrator wrote, with its token), the paths the jobs need outside the run folder, and each command that must
    succeed here (the drivers' own probe, an import)."""
    where = placement()
    problems: list[str] = []
    token_file, token = checks["token_file"], checks["token"]
    try:
        with open(token_file, encoding="utf-8") as handle:
            seen = handle.read().strip()
        if seen != token:
            problems.append(f"the run folder {checks['run_dir']} on this node is another folder ({token_file} holds another token): mount the shared folder at the same path on every node")
    except OSError as error:
        problems.append(f"the run folder {checks['run_dir']} is not shared with this node (cannot read {token_file}: {error.strerror or error}): mount the shared folder at the same path on every node")
    missing = [p for p in checks["paths"] if not os.path.exists(p)]
    if missing:
        problems.append(f"paths the jobs use do not exist here: {', '.join(missing[:5])}{' ...' if len(missing) > 5 else ''} (the same files at the same paths on every node: the shared folder, or an image)")
    if problems:  # without the folder the commands below would only repeat it
        return {**where, "problems": problems}
    for check in checks["commands"]:
        env = {**os.environ, **check["env"]}
        env.pop("CUDA_VISIBLE_DEVICES", None)  # the probe sees the node's GPUs, not the zero Ray gave it
        try:
            r = subprocess.run(check["argv"], env=env, cwd=check["cwd"], capture_output=True, text=True, timeout=PROBE_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as error:
            problems.append(f"{check['what']}: {check['argv'][0]} does not run here ({error})")
            continue
        if r.returncode != 0:
            reason = _missing(r.stdout) if check.get("json") else ""
            reason = reason or (r.stderr.strip().split("\n")[-1:] or [""])[0] or f"exit {r.returncode}"
            problems.append(f"{check['what']}: {reason}")
    return {**where, "problems": problems}
