"""The asyncio side of a NativeMcp: the engine queues calls and writes an eventfd; the loop that watches it
(the app's executor loop, or the stdio runner's) starts a task per call and cancels it when the engine says the
call was cancelled (the client's notifications/cancelled, a timeout, a dropped connection)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Protocol

logger = logging.getLogger("slipstream.mcp")


class Runs(Protocol):
    async def run(self, call: Any) -> None: ...


class Dispatcher:
    def __init__(self, native: Any, handlers: list[Runs]) -> None:
        self.native = native
        self.handlers = handlers  # by key (the index given at registration)
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.cancelled_early: set[int] = set()
        self.loop: asyncio.AbstractEventLoop | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        loop.add_reader(self.native.fd, self._drain)

    def detach(self) -> None:
        if self.loop is None:
            return
        self.loop.remove_reader(self.native.fd)
        for task in list(self.tasks.values()):
            task.cancel()
        self.loop = None

    def _drain(self) -> None:
        assert self.loop is not None
        for key, call_id, call in self.native.drain():
            if call is None:  # cancelled: before its call was taken, or while it runs
                task = self.tasks.get(call_id)
                if task is not None:
                    task.cancel()
                else:
                    self.cancelled_early.add(call_id)
                continue
            if call_id in self.cancelled_early or call.cancelled():
                self.cancelled_early.discard(call_id)
                continue
            task = self.loop.create_task(self._run(self.handlers[key], call))
            self.tasks[call_id] = task
            task.add_done_callback(lambda _t, i=call_id: self.tasks.pop(i, None))

    async def _run(self, handler: Runs, call: Any) -> None:
        try:
            await handler.run(call)
        except asyncio.CancelledError:
            pass  # the engine dropped the call; nothing is sent
        except Exception:
            logger.exception("MCP call %s failed", call.name)
            call.fail(-32603, "Internal error", "")
