"""rl-advantages for Python: the advantage estimators of RL post-training (GRPO group mean, leave-one-out, GS1
prompt-similarity kernels, ...) computed by the rl-advantages server, a Node.js process this package carries.

Example:
    >>> import rl_advantages as r
    >>> r.compute_advantages("group_mean", [1, 0, 0, 1], group_ids=[0, 0, 1, 1]).advantages
    array([ 0.5, -0.5, -0.5,  0.5])

docs/python.md describes the package; docs/method.md the formulas.
"""

from ._cli import calibrate, decide, plan, tune_kernel
from ._compute import EstimatorSpec, Result, catalogue, compute_advantages, load_state_dict, state_dict
from ._errors import RlAdvantagesError
from ._node import find_node
from ._default import default_server, set_default_server
from ._server import PROTOCOL, Server
from ._package_version import __version__

__all__ = [
    "PROTOCOL",
    "EstimatorSpec",
    "Result",
    "RlAdvantagesError",
    "Server",
    "__version__",
    "calibrate",
    "catalogue",
    "compute_advantages",
    "decide",
    "default_server",
    "find_node",
    "load_state_dict",
    "plan",
    "set_default_server",
    "state_dict",
    "tune_kernel",
]
