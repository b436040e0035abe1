"""The process's shared :class:`Server`: what calls without ``server=`` use."""

from __future__ import annotations

import threading

from ._server import Server

__all__ = ["default_server", "set_default_server"]

_default: Server | None = None
_default_lock = threading.Lock()


def default_server() -> Server:
    """The process's shared :class:`Server` (no corpus unless :func:`set_default_server` gave one), created on first use."""
    global _default
    with _default_lock:
        if _default is None:
            _default = Server()
        return _default


def set_default_server(server: Server | None) -> Server | None:
    """Makes ``server`` the one :func:`default_server` returns (e.g. ``Server(corpus=...)`` for the prompt-kernel
    estimators); returns the previous one, which is not closed. None resets to a fresh default at next use."""
    global _default
    with _default_lock:
        previous, _default = _default, server
        return previous
