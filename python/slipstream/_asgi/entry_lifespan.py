"""The `lifespan` scope of an App called as an ASGI app: the App's lifespan (and database) run on its engine's
loop, as under App.run(); startup's state is copied into the scope's (Starlette's), and shutdown stops the engine."""

from __future__ import annotations

import asyncio
import traceback
from typing import Any

from .entry import entry_for


async def lifespan(app: Any, scope: dict[str, Any], receive: Any, send: Any) -> None:
    """lifespan.startup -> the app's startup, lifespan.shutdown -> its shutdown; a failure is answered with
    lifespan.*.failed and raised again, as Starlette does."""
    started = False
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                entry = entry_for(app)
                await asyncio.to_thread(entry.runtime.call_on_loop, entry.runtime.startup)
            except BaseException:
                await send({"type": "lifespan.startup.failed", "message": traceback.format_exc()})
                raise
            started = True
            if isinstance(scope.get("state"), dict):
                scope["state"].update(entry.runtime.lifespan_state)
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            entry = app.__dict__.get("_asgi_entry")
            try:
                if started and entry is not None and not entry.closed:
                    await asyncio.to_thread(entry.runtime.call_on_loop, entry.runtime.shutdown)
            except BaseException:
                await send({"type": "lifespan.shutdown.failed", "message": traceback.format_exc()})
                raise
            finally:
                if entry is not None:
                    await asyncio.to_thread(entry.close)
            await send({"type": "lifespan.shutdown.complete"})
            return
