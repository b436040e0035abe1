"""A Ray cluster on this machine for bench/executors.mjs: ``ray.cluster_utils.Cluster`` with one node of N CPUs bound
to 127.0.0.1. Prints its address, then keeps it until stdin closes, then shuts it down (only what it started)."""

import os
import sys

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
from ray.cluster_utils import Cluster  # noqa: E402

cpus = int(sys.argv[1]) if len(sys.argv) > 1 else 2
cluster = Cluster(initialize_head=True, head_node_args=dict(num_cpus=cpus, node_ip_address="127.0.0.1", include_dashboard=False, object_store_memory=80 * 1024 * 1024))
print(cluster.address, flush=True)
try:
    sys.stdin.read()
finally:
    cluster.shutdown()
