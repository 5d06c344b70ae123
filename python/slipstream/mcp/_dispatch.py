"""The asyncio side of a NativeMcp: the engine queues calls and writes an eventfd; the loop that watches it
(the app's executor loop, or the stdio runner's) starts a task per call, cancels it when the engine says the
call was cancelled (the client's notifications/cancelled, a timeout, a dropped connection), and settles the futures
of requests sent to the client (sampling, elicitation, roots) with their answers."""

from __future__ import annotations

import asyncio
import contextvars
import itertools
import json
import logging
from asyncio.tasks import _enter_task, _leave_task
from typing import Any, Protocol

from .. import _native
from .._runtime import new_host

logger = logging.getLogger("slipstream.mcp")

CALL, CANCELLED, ANSWER = 0, 1, 2


class Runs(Protocol):
    async def run(self, call: Any, peer: Dispatcher) -> None: ...

    # Set (a plain `def` tool) when the handler can run the call at once, without a task: run_inline then.
    inline: bool


class Dispatcher:
    def __init__(self, native: Any, handlers: list[Runs]) -> None:
        self.native = native
        self.handlers = handlers  # by key (the index given at registration)
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.cancelled_early: set[int] = set()
        self.answers: dict[int, asyncio.Future[tuple[bool, str]]] = {}
        self.tokens = itertools.count(1)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.host: Any = None  # (loop, task, check, slot): the Task current while a call's first step runs
        # On an app's executor loop, calls are drained from its selector, between two turns of the loop, and `def`
        # tools run there inline under the blocked-handler hand-off (python/bindings/executor.h); elsewhere (stdio)
        # from a reader callback, `def` tools on a worker thread.
        self.selector: Any = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        selector = getattr(loop, "_selector", None)
        if hasattr(selector, "add_drain") and _native.mcp_inline_calls():
            self.selector = selector
            selector.add_drain(self.native.fd, self._drain_inline)
        else:
            loop.add_reader(self.native.fd, self._drain)

    def detach(self) -> None:
        if self.loop is None:
            return
        if self.selector is not None:
            self.selector.remove_drain(self.native.fd)
            self.selector = None
        else:
            self.loop.remove_reader(self.native.fd)
        for task in list(self.tasks.values()):
            task.cancel()
        if self.host is not None:
            self.host[1].cancel()
            self.host = None
        for future in self.answers.values():
            future.cancel()
        self.answers.clear()
        self.loop = None

    async def request(self, call: Any, method: str, params_json: str, timeout_ms: int) -> tuple[bool, str]:
        """Sends `method` to the client over `call`'s stream; (ok, result or error JSON) when it answers."""
        assert self.loop is not None
        token = next(self.tokens)
        future = self.loop.create_future()
        self.answers[token] = future
        if not call.request(method, params_json, token, timeout_ms):
            del self.answers[token]
            return False, json.dumps({"code": -32603, "message": f"{method} cannot be sent: the client did not "
                                      "declare the capability, the server is stateless, or the call is over"})
        try:
            return await future
        finally:
            self.answers.pop(token, None)

    def _drain_inline(self) -> bool:
        """The selector's drain: True when a `def` tool blocked and another thread drove the loop meanwhile."""
        self._drain()
        return _native.mcp_take_handed_off()

    def _drain(self) -> None:
        assert self.loop is not None
        for item in self.native.drain():
            kind = item[0]
            if kind == ANSWER:
                future = self.answers.get(item[1])
                if future is not None and not future.done():
                    future.set_result((item[2], item[3]))
            elif kind == CANCELLED:  # before its call was taken, or while it runs
                task = self.tasks.get(item[1])
                if task is not None:
                    task.cancel()
                else:
                    self.cancelled_early.add(item[1])
            else:
                _, key, call_id, call = item
                if call_id in self.cancelled_early or call.cancelled():
                    self.cancelled_early.discard(call_id)
                    continue
                handler = self.handlers[key]
                if self.selector is not None and getattr(handler, "inline", False):
                    handler.run_inline(call, self)
                    continue
                task = self._start(self._run(handler, call))
                if task is not None:
                    self.tasks[call_id] = task
                    task.add_done_callback(lambda _t, i=call_id: self.tasks.pop(i, None))

    def _start(self, coro: Any) -> asyncio.Task[None] | None:
        """Runs the call's first step at once inside a reusable host Task (asyncio's current task then, so anyio and
        asyncio.timeout work), as the engine runs handlers; a call that suspends goes on in that Task, returned, and
        the next call gets a new host. None when the call finished in its first step (most calls)."""
        if self.host is None or self.host[2]():
            self.host = new_host()
        loop, task, _check, slot = self.host
        context = contextvars.copy_context()
        _enter_task(loop, task)
        try:
            first = context.run(coro.send, None)
        except StopIteration:
            return None
        finally:
            _leave_task(loop, task)
        slot.set_result((coro, first, context))
        self.host = None
        return task

    def spawn(self, coro: Any) -> None:
        """Runs `coro` as a call's task (the rest of an inline call that returned an awaitable)."""
        task = self._start(coro)
        if task is not None:
            task.add_done_callback(lambda _t: None)

    async def _run(self, handler: Runs, call: Any) -> None:
        try:
            await handler.run(call, self)
        except asyncio.CancelledError:
            pass  # the engine dropped the call; nothing is sent
        except Exception:
            logger.exception("MCP call %s failed", call.name)
            call.fail(-32603, "Internal error", "")
