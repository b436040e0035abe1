"""The drivers' tests. The advantage hook is in the rl-advantages package: the installed one, else this checkout's
``python/`` (``pip install ./python`` is the drivers' own set-up)."""

import os
import sys

try:
    import rl_advantages  # noqa: F401
except ImportError:
    sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "python")))
