"""GSM8K grading: re-exported from the Python package (``rl_advantages.grading``, one implementation).

The drivers run from a checkout without installing the package too: when ``rl_advantages`` is not importable,
the checkout's ``python/`` folder is put on ``sys.path``.
"""

from __future__ import annotations

import os
import sys

try:
    import rl_advantages.grading  # noqa: F401
except ImportError:  # a checkout without `pip install ./python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
    import rl_advantages.grading  # noqa: F401

from rl_advantages.grading import *  # noqa: E402,F401,F403
from rl_advantages.grading import __all__  # noqa: E402,F401
