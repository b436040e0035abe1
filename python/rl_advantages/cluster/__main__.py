"""``python -m rl_advantages.cluster --address ADDR``: the Ray bridge of ``rl-adv study --executor ray``
(:mod:`rl_advantages.cluster.bridge`). It connects to the cluster as a Ray driver, prints ``{"event": "ready", ...}``
and answers JSON lines on stdin. An unreachable cluster: one line on stderr, exit 2, before anything else."""

from __future__ import annotations

import io
import json
import logging
import os
import signal
import socket
import sys

PROG = "python -m rl_advantages.cluster"


def fail(message: str) -> int:
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)
    return 2


def reachable(address: str, timeout: float = 10.0) -> str | None:
    """Why ``host:port`` cannot be reached (a TCP connection to the cluster's GCS), None when it can. ray.init itself
    retries an unreachable address for minutes."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit() or not host:
        return f"--ray-address {address!r} is not HOST:PORT (the head's GCS address, e.g. 10.0.0.1:6379, printed by `ray start --head`)"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            return None
    except OSError as error:
        return f"cannot reach the Ray cluster at {address} ({error.strerror or error}): start it with `ray start --head --node-ip-address IP --port {port}` or pass the head's address (--ray-address or RAY_ADDRESS)"


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog=PROG, description="The Ray bridge of rl-adv study --executor ray (JSON lines on stdin/stdout).")
    parser.add_argument("--address", required=True, help="the head's GCS address HOST:PORT")
    args = parser.parse_args(argv)
    # Ctrl-C reaches the whole terminal's process group: the orchestrator cancels the attempts through stdin, then
    # ends this bridge; the bridge itself does not die of it first.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # The protocol owns the real stdout; anything else printed (Ray's own output) goes to stderr.
    protocol = io.TextIOWrapper(os.fdopen(os.dup(1), "wb"), encoding="utf-8", line_buffering=True)
    os.dup2(2, 1)
    problem = reachable(args.address)
    if problem:
        return fail(problem)
    try:
        import ray
        from ray import cloudpickle
    except ImportError as error:
        return fail(f"the ray package is not installed ({error}): pip install ray (python/requirements-test.txt pins the tested version)")
    from . import fence, tasks

    # The tasks travel by value: a node without rl_advantages still runs the probe, which then names what it lacks.
    cloudpickle.register_pickle_by_value(fence)
    cloudpickle.register_pickle_by_value(tasks)
    try:
        ray.init(address=args.address, namespace="rl-advantages", log_to_driver=False, logging_level=logging.WARNING)
    except Exception as error:  # noqa: BLE001 - ConnectionError, RuntimeError, ValueError...: one line, exit 2
        return fail(f"cannot connect to the Ray cluster at {args.address}: {type(error).__name__}: {str(error).strip().splitlines()[0] if str(error).strip() else ''}")
    from .bridge import Bridge, serve

    bridge = Bridge(ray, protocol)
    bridge.send({"event": "ready", "address": args.address, "job_id": ray.get_runtime_context().get_job_id(), "ray": ray.__version__, "pid": os.getpid()})
    try:
        serve(bridge, sys.stdin)
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
