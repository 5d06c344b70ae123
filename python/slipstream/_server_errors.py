"""Exceptions that reached the server-error layer (Starlette's ServerErrorMiddleware), kept for the TestClients
that watch the app: with raise_server_exceptions=True a test sees the handler's exception itself, not a 500.

Nothing is kept for an app no TestClient watches (a served app pays one dict lookup per unhandled exception)."""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_sinks: dict[int, list[list[BaseException]]] = {}  # id(app) -> the lists of its watching clients


def watch(app: Any) -> list[BaseException]:
    """A list that receives every exception of `app` that reaches the server-error layer, until unwatch()."""
    sink: list[BaseException] = []
    with _lock:
        _sinks.setdefault(id(app), []).append(sink)
    return sink


def unwatch(app: Any, sink: list[BaseException]) -> None:
    with _lock:
        sinks = [s for s in _sinks.get(id(app), []) if s is not sink]
        if sinks:
            _sinks[id(app)] = sinks
        else:
            _sinks.pop(id(app), None)


def report(app: Any, exc: BaseException) -> None:
    """`exc` escaped every exception handler of `app` but the 500/Exception one (which Starlette re-raises too)."""
    if not _sinks or app is None:
        return
    with _lock:
        for sink in _sinks.get(id(app), ()):
            sink.append(exc)
