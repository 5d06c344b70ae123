"""The ASGI `lifespan` scope as the engine's App lifespan: startup before serving (its state copied into every
request's scope), shutdown after the drain; `lifespan.startup.failed` stops the server with the app's message."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from .._asgi.http import ASGI_VERSION

logger = logging.getLogger("slipstream")


class LifespanFailed(RuntimeError):
    """The app answered lifespan.startup.failed (or shutdown.failed): its message."""


class AsgiLifespan:
    """An async context manager (App.lifespan_context's shape): enter runs startup and returns the state, exit
    runs shutdown. An app that raises before answering startup does not support lifespan: serving goes on
    (uvicorn's `--lifespan auto`)."""

    def __init__(self, app: Any, *, required: bool = False) -> None:
        self.app = app
        self.required = required
        self.state: dict[str, Any] = {}
        self._inbox: asyncio.Queue[dict[str, Any]] | None = None
        self._answers: asyncio.Queue[dict[str, Any]] | None = None
        self._task: asyncio.Task[None] | None = None
        self._supported = True
        self._startup_answered = False

    async def __aenter__(self) -> dict[str, Any]:
        self._inbox = asyncio.Queue()
        self._answers = asyncio.Queue()
        scope = {"type": "lifespan", "asgi": ASGI_VERSION, "state": self.state}
        self._task = asyncio.get_running_loop().create_task(self._run(scope))
        await self._inbox.put({"type": "lifespan.startup"})
        answer = await self._answers.get()
        kind = answer["type"]
        if kind == "lifespan.startup.failed":
            raise LifespanFailed(answer.get("message") or "lifespan.startup.failed")
        if kind == "unsupported":
            if self.required:
                raise LifespanFailed("the app does not support the ASGI lifespan protocol (--lifespan on)")
            logger.info("ASGI 'lifespan' protocol appears unsupported.")
        elif kind != "lifespan.startup.complete":
            raise LifespanFailed(f"unexpected lifespan message {kind!r} during startup")
        return self.state

    async def __aexit__(self, *exc_info: object) -> None:
        if not self._supported or self._task is None or self._task.done():
            return
        assert self._inbox is not None and self._answers is not None
        await self._inbox.put({"type": "lifespan.shutdown"})
        answer = await self._answers.get()
        if answer["type"] == "lifespan.shutdown.failed":
            raise LifespanFailed(answer.get("message") or "lifespan.shutdown.failed")

    async def _receive(self) -> dict[str, Any]:
        assert self._inbox is not None
        return await self._inbox.get()

    async def _send(self, message: dict[str, Any]) -> None:
        assert self._answers is not None
        kind = message.get("type")
        if kind in ("lifespan.startup.complete", "lifespan.startup.failed"):
            if self._startup_answered:
                raise RuntimeError(f"{kind!r} sent twice")
            self._startup_answered = True
        elif kind not in ("lifespan.shutdown.complete", "lifespan.shutdown.failed") or not self._startup_answered:
            raise RuntimeError(f"unexpected lifespan message {kind!r}")
        await self._answers.put(message)

    async def _run(self, scope: dict[str, Any]) -> None:
        assert self._answers is not None
        try:
            await self.app(scope, self._receive, self._send)
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            if not self._startup_answered:
                self._supported = False
                logger.debug("the app's lifespan raised before answering startup", exc_info=exc)
                await self._answers.put({"type": "unsupported"})
                return
            logger.error("Exception in the ASGI lifespan", exc_info=exc)
            await self._answers.put({"type": "lifespan.shutdown.failed", "message": str(exc)})
            return
        # The app returned: whatever it did not answer is answered for it.
        if not self._startup_answered:
            self._supported = False
            await self._answers.put({"type": "unsupported"})
        else:
            await self._answers.put({"type": "lifespan.shutdown.complete"})
