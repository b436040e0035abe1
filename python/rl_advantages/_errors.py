"""The one exception the package raises."""

from __future__ import annotations

__all__ = ["RlAdvantagesError"]


class RlAdvantagesError(Exception):
    """Bad input, or the server could not answer: the Python side of the library's ``RlAdvantagesError``.

    Attributes:
        code: a stable machine-readable code: the server's (``non_finite``, ``length_mismatch``,
            ``unknown_estimator``, ...) or the client's own (``node_not_found``, ``node_too_old``,
            ``bundle_missing``, ``server_exited``, ``timeout``, ``protocol_mismatch``, ``version_mismatch``,
            ``bad_type``, ``cli_failed``).
        message: what went wrong, naming the field and index where there is one.
        field: the input field at fault (``rewards``, ``group_ids``, ...), or None.
        index: the index within ``field`` at fault, or None.

    Example:
        >>> import rl_advantages as r
        >>> try:
        ...     r.compute_advantages("group_mean", [1.0, float("nan")], group_ids=[0, 0])
        ... except r.RlAdvantagesError as error:
        ...     print(error.code, error.field, error.index)
        non_finite rewards 1
    """

    def __init__(self, code: str, message: str, field: str | None = None, index: int | None = None):
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.index = index

    def __repr__(self) -> str:
        where = "" if self.field is None else f", field={self.field!r}" + ("" if self.index is None else f", index={self.index}")
        return f"RlAdvantagesError(code={self.code!r}, message={self.message!r}{where})"
