"""The asyncio side of a NativeDatabase: a future per call, settled when the engine's eventfd says answers wait.

The database's thread never takes the GIL: it queues answers and writes an eventfd (python/bindings/py_database.h).
One event loop at a time watches that fd (`loop.add_reader`), the first one that makes a call: the engine's
executor loop in a server, or any loop (`asyncio.run`, a test's). A future made on another loop is settled there
through `call_soon_threadsafe`; when the watching loop stops, the next call moves the watch to its own loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Callable
from typing import Any

from .errors import error_from_payload

logger = logging.getLogger("slipstream.error")

RESULT = 0  # the future gets the payload
SESSION = 1  # the payload is a session id: closed when nobody waits for it any more
LISTENER = 2  # the payload is a listener id: closed when nobody waits for it any more


def _settle(native: Any, future: asyncio.Future[Any], kind: int, ok: bool, payload: Any) -> None:
    if future.done():  # cancelled while the statement ran
        if ok and kind == SESSION:
            native.close_session(payload)
        elif ok and kind == LISTENER:
            native.close_listener(payload)
        return
    if ok:
        future.set_result(payload)
    else:
        future.set_exception(error_from_payload(payload))


class Completions:
    """Tokens -> futures (and listener callbacks) of one NativeDatabase."""

    def __init__(self, native: Any) -> None:
        self._native = native
        self._pending: dict[int, tuple[asyncio.Future[Any], int]] = {}
        self._listeners: dict[int, tuple[Callable[[Any], Any], asyncio.AbstractEventLoop]] = {}
        self._tokens = itertools.count(1)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._fd = -1
        self._tasks: set[asyncio.Task[Any]] = set()

    def call(self, start: Callable[[int], None], kind: int = RESULT, *,
             cancellable: bool = False) -> asyncio.Future[Any]:
        """Registers a future, then `start(token)` (the native call); the future gets the answer. `cancellable`:
        when the future is cancelled (its awaiting task was), the native statement is cancelled too
        (`NativeDatabase.cancel`); its answer still arrives and is dropped."""
        loop = asyncio.get_running_loop()
        self._watch(loop)
        token = next(self._tokens)
        future = loop.create_future()
        self._pending[token] = (future, kind)
        try:
            start(token)
        except BaseException:
            del self._pending[token]
            raise
        if cancellable:
            future.add_done_callback(lambda f: self._cancelled(f, token))
        return future

    def _cancelled(self, future: asyncio.Future[Any], token: int) -> None:
        if future.cancelled():
            self._native.cancel(token)

    def add_listener(self, callback: Callable[[Any], Any]) -> int:
        """A token whose answers (notifications) go to `callback` on the current loop, until remove_listener."""
        loop = asyncio.get_running_loop()
        self._watch(loop)
        token = next(self._tokens)
        self._listeners[token] = (callback, loop)
        return token

    def remove_listener(self, token: int) -> None:
        self._listeners.pop(token, None)

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        current = self._loop
        if current is loop:
            return
        if current is not None and not current.is_closed() and current.is_running():
            return  # another thread's loop drains; answers for this loop's futures are handed over
        self.detach()
        self._fd = self._native.event_fd()
        loop.add_reader(self._fd, self.drain)
        self._loop = loop

    def detach(self) -> None:
        """Stops watching the fd (the database closed, or the watching loop went away)."""
        current, self._loop = self._loop, None
        if current is not None and not current.is_closed():
            with contextlib.suppress(Exception):  # a loop of another thread that stopped: best effort
                current.remove_reader(self._fd)

    def drain(self) -> None:
        """Settles every answer the engine has queued (the reader callback; close() calls it too)."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for token, ok, payload in self._native.drain():
            listener = self._listeners.get(token)
            if listener is not None:
                if ok:
                    self._notify(listener, payload, running)
                else:
                    logger.error("Database listener failed: %s", error_from_payload(payload))
                continue
            entry = self._pending.pop(token, None)
            if entry is None:
                continue
            future, kind = entry
            loop = future.get_loop()
            if loop is running:
                _settle(self._native, future, kind, ok, payload)
            else:
                with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits any more
                    loop.call_soon_threadsafe(_settle, self._native, future, kind, ok, payload)

    def _notify(self, listener: tuple[Callable[[Any], Any], asyncio.AbstractEventLoop], payload: Any,
                running: asyncio.AbstractEventLoop | None) -> None:
        callback, loop = listener
        if loop is running:
            self._call_listener(callback, payload)
        else:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._call_listener, callback, payload)

    def _call_listener(self, callback: Callable[[Any], Any], payload: Any) -> None:
        try:
            result = callback(payload)
            if asyncio.iscoroutine(result):
                task = asyncio.get_running_loop().create_task(result)
                self._tasks.add(task)
                task.add_done_callback(self._listener_done)
        except Exception as exc:  # a listener's failure is logged, the others still run
            logger.error("Exception in database listener", exc_info=exc)

    def _listener_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("Exception in database listener", exc_info=task.exception())
