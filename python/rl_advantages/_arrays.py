"""Turning the caller's lists, numpy arrays and torch tensors into JSON-ready lists, checked before sending."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._errors import RlAdvantagesError

__all__ = ["to_numpy", "float_list", "mask_list", "id_list", "string_list", "matrix_list"]


def _kind(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"a numpy array of dtype {value.dtype}"
    return f"a {type(value).__module__}.{type(value).__qualname__}" if type(value).__module__ != "builtins" else type(value).__name__


def to_numpy(field: str, value: Any) -> np.ndarray:
    """A numpy view of ``value``: torch tensors (detached, on the CPU) without importing torch, arrays as they are,
    anything else through ``np.asarray``."""
    if isinstance(value, np.ndarray):
        return value
    module = type(value).__module__
    if module == "torch" or module.startswith("torch."):
        return _tensor_numpy(field, value)
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.generic)) and not hasattr(value, "__array__"):
        raise RlAdvantagesError("bad_type", f"field {field!r} must be a list, numpy array or torch tensor, got {_kind(value)}", field=field)
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as error:
        raise RlAdvantagesError("bad_type", f"field {field!r} cannot be read as an array: {error}", field=field) from None


def _tensor_numpy(field: str, value: Any) -> np.ndarray:
    """A torch tensor's values as numpy (on the CPU, detached); a tensor without readable values is refused here,
    naming the field, rather than by torch's own error."""
    tensor = value.detach()
    what = f"field {field!r} is a torch tensor"
    if getattr(tensor, "is_nested", False):
        raise RlAdvantagesError("bad_type", f"{what} that is nested (ragged): give one value per rollout as a plain 1-D tensor", field=field)
    if getattr(tensor, "is_meta", False) or str(getattr(tensor, "device", "cpu")) == "meta":
        raise RlAdvantagesError("bad_type", f"{what} on the meta device, which holds no values: give the tensor after its values are computed", field=field)
    if str(getattr(tensor, "layout", "torch.strided")) != "torch.strided":
        raise RlAdvantagesError("bad_type", f"{what} with layout {tensor.layout}: give a dense tensor (tensor.to_dense())", field=field)
    if getattr(tensor, "is_cuda", False) or str(getattr(tensor, "device", "cpu")) != "cpu":
        tensor = tensor.cpu()
    if str(tensor.dtype) == "torch.bfloat16" or str(tensor.dtype).startswith("torch.float8"):
        tensor = tensor.float()  # numpy has neither bfloat16 nor float8; float32 holds each of their values exactly
    try:
        array: np.ndarray = tensor.resolve_conj().resolve_neg().numpy()
    except (TypeError, RuntimeError) as error:
        raise RlAdvantagesError("bad_type", f"{what} of dtype {tensor.dtype}, which numpy cannot read ({str(error).splitlines()[0][:200]})", field=field) from None
    return array


def _one_dimensional(field: str, array: np.ndarray) -> None:
    if array.ndim != 1:
        raise RlAdvantagesError("bad_shape", f"field {field!r} must be one-dimensional (one value per rollout), got shape {array.shape}", field=field)


def _first(flags: np.ndarray) -> int:
    return int(np.flatnonzero(flags)[0])


def _check_numbers(field: str, items: Sequence[Any]) -> None:
    """Each item a real number (not a bool, a string or None), else the first bad one's index."""
    if all(type(x) is float or type(x) is int for x in items):
        return
    for i, x in enumerate(items):
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, float, np.integer, np.floating)):
            if isinstance(x, (list, tuple, np.ndarray)):
                return  # a nested sequence: the shape check says what is wrong
            raise RlAdvantagesError("bad_type", f"{field}[{i}] must be a finite number, got {x!r}", field=field, index=i)


def float_list(field: str, value: Any, *, allow_nan_at: np.ndarray | None = None) -> list[float | None]:
    """Finite real numbers as float64 Python floats (JSON ``null`` where ``allow_nan_at`` lets a NaN through).

    Raises:
        RlAdvantagesError: ``bad_type`` for non-numbers (with the index of the first one in a list), ``bad_shape``,
            ``non_finite`` naming the index of the first NaN or infinity.
    """
    if isinstance(value, (list, tuple)):
        _check_numbers(field, value)
    array = to_numpy(field, value)
    if array.dtype == object:
        _check_numbers(field, array.reshape(-1).tolist() if array.ndim else [array.item()])
        array = array.astype(np.float64)
    if array.dtype.kind not in "biuf":
        raise RlAdvantagesError("bad_type", f"field {field!r} must hold real numbers, got {_kind(array)}", field=field)
    _one_dimensional(field, array)
    floats = array.astype(np.float64, copy=False)
    finite = np.isfinite(floats)
    if not finite.all():
        bad = ~finite if allow_nan_at is None else ~finite & ~(np.isnan(floats) & allow_nan_at)
        if bad.any():
            i = _first(bad)
            hint = " (a masked rollout's reward may be NaN)" if field == "rewards" else ""
            raise RlAdvantagesError("non_finite", f"{field}[{i}] must be a finite number, got {float(floats[i])!r}{hint}", field=field, index=i)
        return [None if np.isnan(x) else x for x in floats.tolist()]
    values: list[float | None] = floats.tolist()
    return values


def mask_list(value: Any) -> list[bool]:
    """The mask as booleans (true = masked): bools, or integers 0/1."""
    array = to_numpy("mask", value)
    if array.dtype == object:
        for i, x in enumerate(array.reshape(-1)):
            if not isinstance(x, (bool, np.bool_)) and not (isinstance(x, (int, np.integer)) and x in (0, 1)):
                raise RlAdvantagesError("bad_type", f"mask[{i}] must be a boolean (true = masked), got {x!r}", field="mask", index=i)
        array = array.astype(bool)
    _one_dimensional("mask", array)
    if array.dtype.kind in "iu":
        bad = (array != 0) & (array != 1)
        if bad.any():
            i = _first(bad)
            raise RlAdvantagesError("bad_type", f"mask[{i}] must be a boolean or 0/1 (1 = masked), got {array[i]!r}", field="mask", index=i)
        array = array.astype(bool)
    if array.dtype.kind != "b":
        raise RlAdvantagesError("bad_type", f"field 'mask' must hold booleans (true = masked), got {_kind(array)}", field="mask")
    flags: list[bool] = array.tolist()
    return flags


def id_list(field: str, value: Any) -> list[int]:
    """Group ids, compared exactly, as dense indices numbered by first appearance (what goes on the wire).

    Two rollouts share a group when their ids are equal as Python compares them, with integers and strings kept
    apart: Python ints of any size, numpy and torch integers (uint64 too) by value, ``str`` and ``numpy.str_`` by
    text, and the integer 0 is not the string "0". JSON numbers lose their identity beyond 2^53 (and the server sees
    0 and "0" as two ids while a numpy array of both made them one), so the server gets each rollout's group as
    its first-appearance index: the grouping the server computes with is this one, whatever the ids were, and the
    numbering is the one the server would give the ids themselves (results are bit for bit the same).

    Raises:
        RlAdvantagesError: ``bad_type`` naming the index of the first id that is a bool, a float or anything but
            an integer or a string; ``bad_shape``.
    """
    if isinstance(value, (list, tuple)):
        return _dense_ids(field, list(value))  # element by element: np.asarray would make [0, True] ints, [0, "0"] strings
    array = to_numpy(field, value)
    _one_dimensional(field, array)
    if array.dtype.kind in "iuU" and array.size > 0:
        _, first, inverse = np.unique(array, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first, kind="stable")] = np.arange(len(first))
        dense: list[int] = rank[inverse.reshape(-1)].tolist()
        return dense
    if array.dtype.kind in "iuU":
        return []
    if array.dtype == object:
        return _dense_ids(field, array.tolist())
    raise RlAdvantagesError("bad_type", f"field {field!r} must hold integers or strings, got {_kind(array)}", field=field)


def _dense_ids(field: str, items: list[Any]) -> list[int]:
    """First-appearance indices of ids checked one by one: integers and strings, never bools or floats."""
    index: dict[tuple[bool, int | str], int] = {}
    dense: list[int] = []
    for i, x in enumerate(items):
        if isinstance(x, (bool, np.bool_)):
            raise RlAdvantagesError("bad_type", f"{field}[{i}] must be an integer or a string, got the bool {x!r}: a bool is no group id", field=field, index=i)
        if isinstance(x, (int, np.integer)):
            key: tuple[bool, int | str] = (False, int(x))
        elif isinstance(x, str):
            key = (True, str(x))
        elif type(x).__module__ == "torch" and getattr(x, "ndim", None) == 0 and not x.is_floating_point() and not x.is_complex() and str(x.dtype) != "torch.bool":
            key = (False, int(x.item()))
        else:
            raise RlAdvantagesError("bad_type", f"{field}[{i}] must be an integer or a string, got {_kind(x)} {x!r}"[:300], field=field, index=i)
        dense.append(index.setdefault(key, len(index)))
    return dense


def string_list(field: str, value: Any) -> list[str]:
    """Prompt texts."""
    items = list(value.tolist()) if isinstance(value, np.ndarray) else value
    if isinstance(items, (str, bytes)) or not isinstance(items, Sequence):
        raise RlAdvantagesError("bad_type", f"field {field!r} must be a list of strings, got {_kind(value)}", field=field)
    for i, x in enumerate(items):
        if not isinstance(x, str):
            raise RlAdvantagesError("bad_type", f"{field}[{i}] must be a string, got {_kind(x)}", field=field, index=i)
    return list(items)


def matrix_list(field: str, value: Any) -> list[list[float]]:
    """Per-rollout feature vectors (B x d) as lists of finite floats."""
    array = to_numpy(field, value)
    if array.dtype.kind not in "biuf":
        raise RlAdvantagesError("bad_type", f"field {field!r} must hold real numbers (one vector per rollout), got {_kind(array)}", field=field)
    if array.ndim != 2:
        raise RlAdvantagesError("bad_shape", f"field {field!r} must be two-dimensional (one vector per rollout), got shape {array.shape}", field=field)
    floats = array.astype(np.float64, copy=False)
    finite: np.ndarray = np.asarray(np.isfinite(floats).all(axis=1))
    if not finite.all():
        i = _first(~finite)
        raise RlAdvantagesError("non_finite", f"{field}[{i}] must hold finite numbers", field=field, index=i)
    rows: list[list[float]] = floats.tolist()
    return rows
