"""A Ray cluster of two nodes on this machine for the Ray executor's tests (test_ray_*.py), started once per session
when a test asks for it: ``ray.cluster_utils.Cluster``, the head and one worker node, each declaring 1 GPU and 1 CPU
(Ray sets ``CUDA_VISIBLE_DEVICES`` from declared GPUs; this machine has none, torch stays on the CPU), bound to
127.0.0.1 (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` keeps Ray on loopback). CI runs them; elsewhere they run with
``RL_ADV_RAY_TESTS=1`` and skip without ray."""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any, Iterator

import pytest

_REQUIRED = bool(os.environ.get("CI") or os.environ.get("RL_ADV_REQUIRE_TORCH"))
NODE = dict(num_cpus=1, num_gpus=1, node_ip_address="127.0.0.1", object_store_memory=80 * 1024 * 1024)


class TwoNodes:
    """The cluster, its address, and its worker node (the one a test may remove and add back)."""

    def __init__(self) -> None:
        from ray.cluster_utils import Cluster

        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
        # The nodes' PATH starts with this Python's bin folder, as on nodes whose image activates the environment with
        # the drivers: a job's bare ``python3`` is this Python (test_ray_study.py starts a node without it).
        bin_dir = os.path.dirname(sys.executable)
        if os.environ.get("PATH", "").split(os.pathsep)[0] != bin_dir:
            os.environ["PATH"] = os.pathsep.join([bin_dir, os.environ.get("PATH", "/usr/bin:/bin")])
        self.cluster = Cluster(initialize_head=True, head_node_args=dict(NODE, include_dashboard=False))
        try:
            self.worker: Any = self.cluster.add_node(**NODE)
        except BaseException:
            self.cluster.shutdown()
            raise
        self.address: str = self.cluster.address

    def remove_worker(self) -> None:
        self.cluster.remove_node(self.worker)

    def add_worker(self, **env: str) -> Any:
        """A worker node; ``env`` is set in its processes' environment (they inherit this process's at start)."""
        saved = {k: os.environ.get(k) for k in env}
        os.environ.update(env)
        try:
            node = self.cluster.add_node(**NODE)
        finally:
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        return node

    def alive_workers(self) -> int:
        return len(self.cluster.worker_nodes)


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[TwoNodes]:
    if os.environ.get("RL_ADV_RAY_TESTS") != "1" and not _REQUIRED:
        # CI runs them (RL_ADV_REQUIRE_TORCH); elsewhere they start a cluster only when asked: under a load average of
        # 20-30 Ray's raylets abort at start-up (their Python agents miss Ray's deadline; docs/cluster.md, Tests).
        pytest.skip("the Ray cluster tests run in CI, or with RL_ADV_RAY_TESTS=1 (docs/cluster.md, Tests)")
    if importlib.util.find_spec("ray") is None:
        if _REQUIRED:
            pytest.fail("CI's Python lacks ray: add it to python/requirements-test.txt")
        pytest.skip("needs ray (pip install -r python/requirements-test.txt)")
    for attempt in range(5):  # on a busy machine a raylet may miss Ray's fixed 30 s start-up deadline
        try:
            cluster = TwoNodes()
            break
        except Exception:
            import ray

            ray.shutdown()
            if attempt == 4:
                raise
    try:
        yield cluster
    finally:
        cluster.cluster.shutdown()
