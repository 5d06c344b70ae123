"""A request whose path or method an ASGI middleware changed, routed again (middleware/asgi.py): sent through the
App's own ASGI entry (entry.py), whose engine matches the new path, with a marker naming how many of the app's
middleware layers it has passed already (those are not run again: middleware/__init__.py, skipped_layers)."""

from __future__ import annotations

from typing import Any

from ..middleware import SKIP_HEADER
from .entry import entry_for


async def reroute(app: Any, passed: int, scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Serves `scope` (an http scope) through `app`'s engine from its middleware layer `passed` inward."""
    if app is None:
        raise RuntimeError("an ASGI middleware changed the request's path outside a slipstream App")
    entry = entry_for(app)
    # The body is framed again for what receive gives (entry.py adds its Content-Length, or chunks a streamed one).
    dropped = (SKIP_HEADER.encode(), b"content-length", b"transfer-encoding")
    headers = [(bytes(k), bytes(v)) for k, v in scope.get("headers") or () if bytes(k).lower() not in dropped]
    headers.append((SKIP_HEADER.encode(), f"{entry.token} {passed}".encode()))
    # A connection of its own, closed after: a pooled one reused from inside a request of the same App could be left
    # unanswered.
    await entry.http({**scope, "headers": headers}, receive, send, pooled=False)
