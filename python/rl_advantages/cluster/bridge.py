"""The bridge between ``rl-adv study --executor ray`` and a Ray cluster: a Ray driver speaking JSON lines.

Requests (stdin, one JSON object a line, each with an integer ``id``):

- ``{"op": "nodes"}``: the alive nodes and their resources -> ``{"event": "nodes", "nodes": [{node_id, ip,
  resources}]}``.
- ``{"op": "claim", "run_dir"}``: waits until the Ray driver of an earlier orchestrator of this run folder is gone
  (Ray then has cancelled its tasks), then records this one (``RUN/ray/driver.json``) -> ``{"event": "claimed",
  "earlier": job id or null}``, or ``{"event": "error", "message"}``.
- ``{"op": "probe", "run_dir", "token_file", "token", "paths", "commands"}``: one probe task per alive node, pinned
  to it -> ``{"event": "probe", "nodes": [{node_id, ip, problems}]}``.
- ``{"op": "submit", "job", "attempt", "argv", "env", "cwd", "num_gpus", "num_cpus", "log_file", "run_dir"}``: one
  attempt as a Ray task -> ``{"event": "started", node_id, ip, gpu_ids, pid}`` then one of ``{"event": "exit", code,
  signal, stdout, tail}``, ``{"event": "lost", message}`` (the node or worker was lost, or no alive node has the
  resources any more: retryable), ``{"event": "cancelled"}``, ``{"event": "error", message}``.
- ``{"op": "cancel", "target": ID}``: cancels a submitted attempt (``ray.cancel(force=True)``; its process dies too).
- ``{"op": "shutdown"}`` or the end of stdin (the orchestrator exited or was killed): cancels every attempt, leaves
  the cluster, exits 0.
"""

from __future__ import annotations

import json
import os
import threading
import time
import uuid
from typing import Any, Callable, TextIO

from . import fence, tasks
from .fence import fence_path

#: Errors meaning the attempt's node or worker was lost (retryable), by their class names in ray.exceptions.
LOST = ("NodeDiedError", "WorkerCrashedError", "ActorDiedError", "OwnerDiedError", "ObjectLostError", "ObjectFetchTimedOutError", "LocalRayletDiedError", "RaySystemError", "ActorUnavailableError", "ObjectReconstructionFailedError")
#: Seconds between checks that a waiting attempt still fits some alive node.
FEASIBLE_EVERY = 5.0
#: Seconds the bridge waits at shutdown for its cancelled attempts to end.
FORCE_AFTER = 5.0
#: Seconds an earlier orchestrator's driver may take to be gone.
CLAIM_TIMEOUT = 120.0


def _resources(node: dict[str, Any]) -> dict[str, float]:
    return {k: float(v) for k, v in node.get("Resources", {}).items() if k in ("CPU", "GPU", "memory")}


class Bridge:
    """One Ray driver serving one orchestrator."""

    def __init__(self, ray: Any, out: TextIO):
        self.ray = ray
        self.out = out
        self.lock = threading.Lock()
        self.running: dict[int, Any] = {}  # request id -> the attempt's ObjectRefGenerator
        self.waiting: dict[int, tuple[float, float]] = {}  # not started yet: (gpus, cpus)
        self.infeasible: dict[int, str] = {}
        self.cancelled: set[int] = set()
        self.remote_attempt = ray.remote(max_retries=0, num_returns="streaming")(tasks.run_attempt)
        self.remote_probe = ray.remote(max_retries=0, num_cpus=0)(tasks.probe_node)
        self.stopping = threading.Event()
        threading.Thread(target=self._watch_feasible, daemon=True).start()

    # -- output -------------------------------------------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        with self.lock:
            self.out.write(json.dumps(message) + "\n")
            self.out.flush()

    def alive_nodes(self) -> list[dict[str, Any]]:
        return [n for n in self.ray.nodes() if n.get("Alive")]

    # -- requests -----------------------------------------------------------------------------------------------
    def handle(self, request: dict[str, Any]) -> None:
        op, rid = request.get("op"), request.get("id")
        handlers: dict[str, Callable[[int, dict[str, Any]], None]] = {"nodes": self.nodes, "claim": self.claim, "probe": self.probe, "submit": self.submit, "cancel": self.cancel}
        handler = handlers.get(str(op))
        if handler is None or not isinstance(rid, int):
            self.send({"id": rid, "event": "error", "message": f"unknown request {json.dumps(request)[:200]}"})
            return
        if op in ("submit", "probe", "claim"):
            threading.Thread(target=self._guard, args=(handler, rid, request), daemon=True).start()
        else:
            self._guard(handler, rid, request)

    def _guard(self, handler: Callable[[int, dict[str, Any]], None], rid: int, request: dict[str, Any]) -> None:
        try:
            handler(rid, request)
        except Exception as error:  # noqa: BLE001 - every failure is an answer, never a dead bridge
            self.send({"id": rid, "event": "error", "message": f"{type(error).__name__}: {error}"})

    def nodes(self, rid: int, _request: dict[str, Any]) -> None:
        nodes = [{"node_id": n["NodeID"], "ip": n.get("NodeManagerAddress", ""), "resources": _resources(n)} for n in self.alive_nodes()]
        self.send({"id": rid, "event": "nodes", "nodes": nodes})

    def claim(self, rid: int, request: dict[str, Any]) -> None:
        """Waits for the earlier driver of this run folder to be gone: a dead driver's tasks are cancelled by Ray."""
        record = os.path.join(request["run_dir"], "ray", "driver.json")
        earlier = None
        try:
            with open(record, encoding="utf-8") as handle:
                earlier = json.load(handle).get("job_id")
        except (OSError, ValueError):
            earlier = None
        mine = self.ray.get_runtime_context().get_job_id()
        if earlier and earlier != mine:
            deadline = time.monotonic() + float(request.get("timeout", CLAIM_TIMEOUT))
            while self._job_alive(earlier):
                if time.monotonic() > deadline:
                    self.send({"id": rid, "event": "error", "message": f"the Ray driver of an earlier run of {request['run_dir']} (Ray job {earlier}) is still connected to the cluster: stop that orchestrator, or wait until Ray marks the job dead, then resume"})
                    return
                time.sleep(0.5)
        os.makedirs(os.path.dirname(record), exist_ok=True)
        temp = os.path.join(os.path.dirname(record), f".rl-adv-tmp-{os.getpid()}-{os.urandom(4).hex()}")
        with open(temp, "w", encoding="utf-8") as handle:
            json.dump({"job_id": mine, "pid": os.getpid()}, handle)
            handle.write("\n")
        os.replace(temp, record)
        self.send({"id": rid, "event": "claimed", "earlier": earlier})

    def _job_alive(self, job_id: str) -> bool:
        from ray._private import state

        for job in state.jobs():
            if job.get("JobID") == job_id:
                return not job.get("IsDead", True)
        return False

    def probe(self, rid: int, request: dict[str, Any]) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        checks = {k: request[k] for k in ("run_dir", "token_file", "token", "paths", "commands")}
        nodes = self.alive_nodes()
        refs = [self.remote_probe.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote(checks) for n in nodes]
        answers = []
        for node, ref in zip(nodes, refs):
            try:
                answers.append(self.ray.get(ref))
            except Exception as error:  # noqa: BLE001 - a node that cannot run the probe is a problem of that node
                cause = getattr(error, "cause", None) or error
                answers.append({"node_id": node["NodeID"], "ip": node.get("NodeManagerAddress", ""), "problems": [f"the probe task failed there: {type(cause).__name__}: {str(cause).strip().splitlines()[-1:] or ''}"]})
        self.send({"id": rid, "event": "probe", "nodes": answers})

    def submit(self, rid: int, request: dict[str, Any]) -> None:
        job_id, attempt = request["job"], int(request["attempt"])
        token = f"{job_id}#{attempt}#{uuid.uuid4().hex}"
        path = fence_path(request["run_dir"], job_id)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temp = os.path.join(os.path.dirname(path), f".rl-adv-tmp-{os.getpid()}-{os.urandom(4).hex()}")
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(token + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, path)  # from now on every earlier attempt of this job is stale
        job = {k: request[k] for k in ("argv", "env", "cwd", "log_file", "num_gpus")}
        job.update(fence_file=path, fence_token=token)
        gpus, cpus = float(request["num_gpus"]), float(request["num_cpus"])
        name = f"rl-adv {job_id} attempt {attempt}"
        with self.lock:
            if self.stopping.is_set():
                self.out.write(json.dumps({"id": rid, "event": "cancelled"}) + "\n")
                self.out.flush()
                return
            generator = self.remote_attempt.options(num_gpus=gpus, num_cpus=cpus, name=name).remote(job)
            self.running[rid] = generator
            self.waiting[rid] = (gpus, cpus)
        try:
            self._follow(rid, generator)
        finally:
            with self.lock:
                self.running.pop(rid, None)
                self.waiting.pop(rid, None)

    def _follow(self, rid: int, generator: Any) -> None:
        try:
            for ref in generator:
                message = self.ray.get(ref)
                if message["event"] == "started":
                    with self.lock:
                        self.waiting.pop(rid, None)
                self.send({"id": rid, **message})
        except Exception as error:  # noqa: BLE001 - classified below
            name = type(error).__name__
            if rid in self.infeasible:
                self.send({"id": rid, "event": "lost", "message": self.infeasible[rid]})
            elif name == "TaskCancelledError" and rid in self.cancelled:
                self.send({"id": rid, "event": "cancelled"})
            elif name in LOST or name == "TaskCancelledError":
                self.send({"id": rid, "event": "lost", "message": f"{name}: {str(error).strip().splitlines()[0] if str(error).strip() else name}"})
            else:
                cause = getattr(error, "cause", None)
                text = f"{type(cause).__name__}: {cause}" if cause is not None else f"{name}: {error}"
                self.send({"id": rid, "event": "error", "message": text.strip().splitlines()[-1]})

    def cancel(self, rid: int, request: dict[str, Any]) -> None:
        target = int(request["target"])
        with self.lock:
            generator = self.running.get(target)
            self.cancelled.add(target)
        if generator is not None:
            self._stop(target, generator)
        self.send({"id": rid, "event": "cancel_sent", "target": target})

    def _stop(self, rid: int, generator: Any) -> None:
        """Cancels an attempt by killing its worker (``ray.cancel(force=True)``); the job's process dies with it
        (``PR_SET_PDEATHSIG``). Processes that process started itself are not reached (the TRL drivers' advantage
        server exits with its parent)."""
        try:
            self.ray.cancel(generator, force=True)
        except Exception:  # noqa: BLE001 - already gone
            pass

    def _watch_feasible(self) -> None:
        """An attempt waiting for resources no alive node has any more (its nodes were lost) is cancelled and reported
        lost, never left waiting forever."""
        while not self.stopping.wait(FEASIBLE_EVERY):
            with self.lock:
                waiting = dict(self.waiting)
            if not waiting:
                continue
            try:
                totals = [_resources(n) for n in self.alive_nodes()]
            except Exception:  # noqa: BLE001 - the next round asks again
                continue
            for rid, (gpus, cpus) in waiting.items():
                if not any(t.get("GPU", 0.0) >= gpus and t.get("CPU", 0.0) >= cpus for t in totals):
                    largest = max((t.get("GPU", 0.0) for t in totals), default=0.0)
                    self.infeasible[rid] = f"no alive node of the cluster has {gpus:g} GPU(s) and {cpus:g} CPU(s) any more (largest: {largest:g} GPU(s), {len(totals)} node(s) alive)"
                    with self.lock:
                        generator = self.running.get(rid)
                    if generator is not None:
                        self._stop(rid, generator)

    def shutdown(self) -> None:
        with self.lock:
            self.stopping.set()
            generators = list(self.running.items())
            self.cancelled.update(rid for rid, _ in generators)
        for rid, generator in generators:
            self._stop(rid, generator)
        deadline = time.monotonic() + FORCE_AFTER + 1.0
        while time.monotonic() < deadline:
            with self.lock:
                if not self.running:
                    break
            time.sleep(0.1)


def serve(bridge: Bridge, requests: TextIO) -> None:
    """Answers requests until ``shutdown`` or the end of ``requests``."""
    for line in requests:
        if not line.strip():
            continue
        try:
            request = json.loads(line)
        except ValueError:
            bridge.send({"id": None, "event": "error", "message": f"not JSON: {line[:200]!r}"})
            continue
        if request.get("op") == "shutdown":
            break
        bridge.handle(request)
    bridge.shutdown()


__all__ = ["Bridge", "serve", "fence", "LOST"]
