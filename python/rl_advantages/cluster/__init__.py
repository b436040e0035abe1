"""Running the study's jobs on a Ray cluster (``rl-adv study --executor ray``, issue 40; docs/cluster.md).

``python -m rl_advantages.cluster --address HOST:PORT`` is the bridge the orchestrator starts
(:mod:`rl_advantages.cluster.bridge`); :mod:`rl_advantages.cluster.tasks` is what runs on the nodes (one attempt of
a job, the probe of a node); :mod:`rl_advantages.cluster.fence` keeps a stale attempt from writing. Only Ray core is
used (no dashboard, no Jobs API); ray is imported when the bridge starts, not with this package.
"""

from .fence import FencedError, check_fence, fence_path

__all__ = ["FencedError", "check_fence", "fence_path"]
