"""A Ray cluster on this machine for bench/executors.mjs and the measured runs of docs/cluster.md:
``ray.cluster_utils.Cluster`` bound to 127.0.0.1 (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` keeps it on loopback).

    python bench/ray_cluster.py [CPUS] [NODES] [GPUS]

NODES nodes (default 1: the head alone), each declaring CPUS CPUs (default 2) and GPUS GPUs (default 0; Ray sets
``CUDA_VISIBLE_DEVICES`` from declared GPUs, so a machine without GPUs can stand in for one-GPU nodes). Prints the
head's address, keeps the cluster until stdin closes, then shuts down what it started and nothing else."""

import os
import sys

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
from ray.cluster_utils import Cluster  # noqa: E402

cpus, nodes, gpus = (int(sys.argv[i]) if len(sys.argv) > i else d for i, d in ((1, 2), (2, 1), (3, 0)))
node = dict(num_cpus=cpus, num_gpus=gpus, node_ip_address="127.0.0.1", object_store_memory=80 * 1024 * 1024)
cluster = Cluster(initialize_head=True, head_node_args=dict(node, include_dashboard=False))
try:
    for _ in range(nodes - 1):
        cluster.add_node(**node)
    print(cluster.address, flush=True)
    sys.stdin.read()
finally:
    cluster.shutdown()
