"""Constants the adapters' tests share (imported by conftest.py and the tests)."""

from __future__ import annotations

import os

FAKES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fakes")

#: The prompts of the fake batches (and the TF-IDF corpus the server fits).
QUESTIONS = [
    "how many apples are left after she eats two",
    "what is the sum of the two numbers",
    "how many apples does the farmer sell",
    "the train leaves the station at noon",
    "what is the product of the two numbers",
    "how many pears are left in the basket",
    "she buys three apples and two pears",
    "the bus leaves the station at nine",
]


def cli_advantages(estimator: str, rewards, prompts, corpus: str, group_ids=None):
    """The ``rl-adv advantages`` command's advantages (the bundled CLI under node) for rows ``{prompt, reward[, group]}``."""
    import json
    import subprocess

    import numpy as np

    from rl_advantages._node import find_node
    from rl_advantages._server import BUNDLE

    rows = []
    for i, (p, r) in enumerate(zip(prompts, rewards)):
        row = {"prompt": p, "reward": float(r)}
        if group_ids is not None:
            row["group"] = str(group_ids[i])
        rows.append(json.dumps(row))
    argv = [find_node(), BUNDLE, "advantages", "--estimator", estimator, "--corpus", corpus]
    done = subprocess.run(argv, input="\n".join(rows) + "\n", capture_output=True, text=True, check=True, timeout=120)
    return np.array([json.loads(line)["advantage"] for line in done.stdout.splitlines()], dtype=np.float64)
