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
        tensor = value.detach()
        if getattr(tensor, "is_cuda", False) or str(getattr(tensor, "device", "cpu")) != "cpu":
            tensor = tensor.cpu()
        if str(tensor.dtype) == "torch.bfloat16":
            tensor = tensor.float()  # numpy has no bfloat16; float32 holds every bfloat16 exactly
        array: np.ndarray = tensor.numpy()
        return array
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.generic)) and not hasattr(value, "__array__"):
        raise RlAdvantagesError("bad_type", f"field {field!r} must be a list, numpy array or torch tensor, got {_kind(value)}", field=field)
    try:
        return np.asarray(value)
    except (ValueError, TypeError) as error:
        raise RlAdvantagesError("bad_type", f"field {field!r} cannot be read as an array: {error}", field=field) from None


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


def id_list(field: str, value: Any) -> list[int | str]:
    """Group ids: integers or strings (numpy integer arrays, torch integer tensors, lists)."""
    array = to_numpy(field, value)
    _one_dimensional(field, array)
    if array.dtype.kind in "iuU":
        ids: list[int | str] = array.tolist()
        return ids
    if array.dtype == object:
        items = array.tolist()
        for i, x in enumerate(items):
            if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, str, np.integer, np.str_)):
                raise RlAdvantagesError("bad_type", f"{field}[{i}] must be an integer or a string, got {x!r}", field=field, index=i)
        return [int(x) if isinstance(x, np.integer) else str(x) if isinstance(x, np.str_) else x for x in items]
    raise RlAdvantagesError("bad_type", f"field {field!r} must hold integers or strings, got {_kind(array)}", field=field)


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
