"""What a TestClient learns from inside the app about its request: the exceptions that reached the server-error
layer (Starlette's ServerErrorMiddleware), so that with raise_server_exceptions=True a test sees the handler's
exception itself, not a 500; and the template a TemplateResponse rendered (Starlette's TestClient gives it as
`response.template` and `response.context`).

Nothing is kept for an app no TestClient watches (a served app pays one dict lookup per unhandled exception)."""

from __future__ import annotations

import threading
from typing import Any

_lock = threading.Lock()
_watches: dict[int, list[Watch]] = {}  # id(app) -> the watches of its clients


class Watch:
    """One client's view of an app: `errors` (exceptions, in order) and `templates` ((template, context) pairs)."""

    def __init__(self) -> None:
        self.errors: list[BaseException] = []
        self.templates: list[tuple[Any, dict[str, Any]]] = []

    def clear(self) -> None:
        self.errors.clear()
        self.templates.clear()


def watch(app: Any) -> Watch:
    """A Watch that receives what `app` reports, until unwatch()."""
    seen = Watch()
    with _lock:
        _watches.setdefault(id(app), []).append(seen)
    return seen


def unwatch(app: Any, seen: Watch) -> None:
    with _lock:
        rest = [w for w in _watches.get(id(app), []) if w is not seen]
        if rest:
            _watches[id(app)] = rest
        else:
            _watches.pop(id(app), None)


def report(app: Any, exc: BaseException) -> None:
    """`exc` escaped every exception handler of `app` but the 500/Exception one (which Starlette re-raises too)."""
    if not _watches or app is None:
        return
    with _lock:
        for seen in _watches.get(id(app), ()):
            seen.errors.append(exc)


def report_unowned(exc: BaseException) -> None:
    """`exc` broke a streamed body, where the app is not known: every watching client gets it. A client looks only
    at what arrives during its own request, and a test's requests run one at a time, so it reaches the right one."""
    if not _watches:
        return
    with _lock:
        for watches in _watches.values():
            for seen in watches:
                seen.errors.append(exc)


def report_template(app: Any, template: Any, context: dict[str, Any]) -> None:
    """A TemplateResponse of `app` rendered `template` with `context`."""
    if not _watches or app is None:
        return
    with _lock:
        for seen in _watches.get(id(app), ()):
            seen.templates.append((template, context))
