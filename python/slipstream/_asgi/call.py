"""`await app(scope, receive, send)` for an App: its http, websocket and lifespan scopes (entry.py)."""

from __future__ import annotations

from typing import Any

from .entry import entry_for
from .entry_lifespan import lifespan
from .entry_ws import websocket


async def call(app: Any, scope: dict[str, Any], receive: Any, send: Any) -> None:
    kind = scope["type"]
    if kind == "http":
        await entry_for(app).http(scope, receive, send)
    elif kind == "websocket":
        await websocket(entry_for(app), scope, receive, send)
    elif kind == "lifespan":
        await lifespan(app, scope, receive, send)
    else:
        raise ValueError(f"unknown ASGI scope type {kind!r} (an App serves http, websocket and lifespan)")
