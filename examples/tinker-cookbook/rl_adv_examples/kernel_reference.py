"""The float64 reference of the spec's TF-IDF kernel baseline: the numbers come from the Python package
(``rl_advantages.kernel_reference``, one implementation); the estimator-name parsing the drivers need is here.
"""

from __future__ import annotations

import math
import os
import re
import sys

try:
    import rl_advantages.kernel_reference  # noqa: F401
except ImportError:  # a checkout without `pip install ./python`
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "python"))
    import rl_advantages.kernel_reference  # noqa: F401

from rl_advantages.kernel_reference import kernel_reference, kernel_reference_pure, tfidf_vectors_pure  # noqa: E402

from .common import DriverError  # noqa: E402

__all__ = ["kernel_reference", "kernel_reference_pure", "temperature_of", "tfidf_vectors_pure"]


def temperature_of(estimator: str) -> float:
    match = re.fullmatch(r"tfidf_kernel_loo_T(.+)", estimator)
    if not match:
        raise DriverError(f"the reference check covers tfidf_kernel_loo_T<T> estimators, got {estimator!r}")
    try:
        t = float(match.group(1))
    except ValueError:
        raise DriverError(f"cannot read the temperature of {estimator!r}") from None
    if not (t > 0 and math.isfinite(t)):
        raise DriverError(f"the temperature of {estimator!r} must be positive")
    return t


