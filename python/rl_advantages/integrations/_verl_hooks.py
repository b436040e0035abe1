"""Run a function on a module once it is imported: now if it already is, else right after Python executes it.

The verl adapter wraps ``PPOTrainer._compute_advantage`` of ``verl.trainer.ppo.v1.trainer_base``; it must not
import that module itself (``VERL_USE_EXTERNAL_MODULES`` loads the adapter from inside ``import verl``, before
verl's trainer modules), and verl imports it in any order. Nothing here imports a training framework.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from typing import Any, Callable, Sequence

__all__ = ["V1_MODULE", "after_import"]

#: verl's v1 trainer module (verl/trainer/ppo/v1/trainer_base.py).
V1_MODULE = "verl.trainer.ppo.v1.trainer_base"

_lock = threading.Lock()
_pending: dict[str, list[Callable[[Any], None]]] = {}


class _Loader(importlib.abc.Loader):
    """The module's own loader, then the pending callbacks on the executed module."""

    def __init__(self, inner: Any, name: str):
        self._inner = inner
        self._name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return self._inner.create_module(spec)

    def exec_module(self, module: Any) -> None:
        self._inner.exec_module(module)
        with _lock:
            callbacks = _pending.pop(self._name, [])
        for callback in callbacks:
            callback(module)

    def __getattr__(self, name: str) -> Any:  # get_source, get_filename, ... of the real loader
        return getattr(self._inner, name)


class _Finder(importlib.abc.MetaPathFinder):
    """First on ``sys.meta_path``: for a watched name, the spec the other finders give, with :class:`_Loader`."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        with _lock:
            if fullname not in _pending:
                return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader, fullname)
                return spec
        return None


_finder = _Finder()


def after_import(name: str, callback: Callable[[Any], None]) -> None:
    """Call ``callback(module)`` on module ``name``: now when it is imported, else once its code has run.

    Example:
        >>> seen = []
        >>> after_import("json", lambda m: seen.append(m.__name__))
        >>> seen
        ['json']
    """
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    with _lock:
        _pending.setdefault(name, []).append(callback)
        if _finder not in sys.meta_path:
            sys.meta_path.insert(0, _finder)
