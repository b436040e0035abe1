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
