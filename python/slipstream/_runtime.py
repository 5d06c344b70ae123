"""What the extension calls on the executor thread: the asyncio loop, coroutine hand-off, errors, Request objects.

`AppRuntime` is the per-app object handed to the extension: the same helpers, plus the app's lifespan (run on
the executor's loop), background tasks after a response, and a count of work still running after a response
was sent (the TestClient waits for it, as Starlette's does).
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import threading
from collections.abc import Callable, Generator
from typing import Any

from . import _native, _server_errors
from ._encoders import encode_fallback
from ._error_responses import conversion_failed, handle_error
from ._forwarded import answer_forwarded
from ._plans import model_plan
from .requests import Request
from .responses import Response

__all__ = [
    "AppRuntime",
    "Response",
    "answer_forwarded",
    "conversion_failed",
    "encode_fallback",
    "handle_error",
    "make_request",
    "model_plan",
    "resume",
    "run_executor",
]

logger = logging.getLogger("slipstream.error")


@atexit.register
def _stop_python_threads() -> None:
    """Executors still running at exit (an app never stopped, or one freed on its own executor thread and being
    stopped by a helper) are stopped and waited for before the interpreter finalizes: a thread of ours that asked
    for the GIL after that would be ended mid-call."""
    if not _native.stop_python_threads(10.0):
        logger.warning("the engine's Python threads did not stop within 10 s of exit")


def run_executor(event_fd: int, drain: Any, host: Any = None) -> None:
    """Body of the executor thread: an asyncio loop that runs `drain` (a batch of requests) when the fd is ready."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    if host is not None:
        host._loop_started(loop)

    def on_ready() -> None:
        if drain():
            loop.stop()

    loop.add_reader(event_fd, on_ready)
    try:
        loop.run_forever()
    finally:
        loop.remove_reader(event_fd)
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        if host is not None:
            host._loop_stopping(loop)
        loop.run_until_complete(loop.shutdown_asyncgens())
        asyncio.set_event_loop(None)
        loop.close()


class _Continue:
    """Awaitable that continues a coroutine already stepped once (it yielded `first`) inside a real Task."""

    __slots__ = ("coro", "first")

    def __init__(self, coro: Any, first: Any) -> None:
        self.coro = coro
        self.first = first

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, yielded = self.coro, self.first
        self.coro = self.first = None
        while True:
            try:
                sent = yield yielded
            except BaseException as exc:  # noqa: BLE001 - forwarded into the coroutine (cancellation included)
                try:
                    yielded = coro.throw(exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    yielded = coro.send(sent)
                except StopIteration as stop:
                    return stop.value


async def _finish(coro: Any, first: Any) -> Any:
    return await _Continue(coro, first)


def _settle(task: asyncio.Task[Any], reply: Any) -> None:
    if reply.done:  # a runner answered through the reply itself; it logs what fails afterwards
        if not task.cancelled() and task.exception() is not None:
            logger.error("Exception after the response was sent", exc_info=task.exception())
        return
    if task.cancelled():
        reply.fail(asyncio.CancelledError())
        return
    exc = task.exception()
    if exc is None:
        reply.finish(task.result())
    else:
        reply.fail(exc)


def resume(coro: Any, first: Any, reply: Any) -> None:
    """A handler's coroutine awaited a real future: finish it as a task, then answer through `reply`."""
    task = asyncio.get_running_loop().create_task(_finish(coro, first))
    task.add_done_callback(lambda t: _settle(t, reply))


def make_request(method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                 path_params: dict[str, str], client: str, route: str, principal: str | None = None) -> Request:
    return Request(method, path, query, headers, body, path_params, client, route, principal)


class AppRuntime:
    """The per-app hooks the extension reads (python/bindings/app_context.h) and the app's lifespan."""

    def __init__(self, app: Any, make_request: Any = None) -> None:
        self.app = app
        self._make_request = make_request if make_request is not None else Request
        self.resume = resume
        self.handle_error = handle_error
        self.conversion_failed = conversion_failed
        self.answer_forwarded = answer_forwarded
        self.encode_fallback = encode_fallback
        self.model_plan = model_plan
        self.Response = Response
        self.lifespan_state: dict[str, Any] = {}
        # App(cancel_on_disconnect=True): the extension then sets `disconnects` (python/bindings/disconnects.h)
        # and gives each suspended handler's reply a cancel_id; resume() keeps its task to cancel.
        self.cancel_on_disconnect = bool(getattr(app, "cancel_on_disconnect", False))
        self.disconnects: Any = None
        self._cancellable: dict[int, asyncio.Task[Any]] = {}
        self._watching: asyncio.AbstractEventLoop | None = None
        if self.cancel_on_disconnect:
            self.resume = self._resume_cancellable
        self.run_lifespan = False    # run() starts the lifespan on the executor before serving
        self.on_startup_failed: Any = None
        self.startup_error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self._loop_ready = threading.Event()
        self._lifespan: Any = None
        # Things mounted on the app that serve from the executor's loop (an MCP server): attach(loop) when the
        # loop starts, detach() when it stops; `keep` holds their native objects as long as the app's.
        self._loop_hooks: list[tuple[Callable[[asyncio.AbstractEventLoop], None], Callable[[], None]]] = []
        self._kept: list[Any] = []
        self._busy = 0
        self._idle = threading.Condition()

    def make_request(self, method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                     path_params: dict[str, str], client: str, route: str, principal: str | None = None) -> Request:
        request = self._make_request(method, path, query, headers, body, path_params, client, route, principal)
        request.app = self.app
        request.lifespan_state = self.lifespan_state
        return request

    def _resume_cancellable(self, coro: Any, first: Any, reply: Any) -> None:
        """resume(), and the task is cancelled when the client disconnects (App(cancel_on_disconnect=True))."""
        loop = asyncio.get_running_loop()
        task = loop.create_task(_finish(coro, first))
        task.add_done_callback(lambda t: _settle(t, reply))
        cancel_id = reply.cancel_id
        if cancel_id and self.disconnects is not None:
            self._cancellable[cancel_id] = task
            task.add_done_callback(lambda _: self._cancellable.pop(cancel_id, None))
            if self._watching is not loop:
                loop.add_reader(self.disconnects.fd, self._on_disconnects)
                self._watching = loop

    def _on_disconnects(self) -> None:
        for cancel_id in self.disconnects.take():
            task = self._cancellable.pop(cancel_id, None)
            if task is not None:
                task.cancel()

    # --- Work after a response: counted so that a test client can wait for it. ---
    def begin(self) -> None:
        with self._idle:
            self._busy += 1

    def end(self) -> None:
        with self._idle:
            self._busy -= 1
            if self._busy == 0:
                self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        with self._idle:
            return self._idle.wait_for(lambda: self._busy == 0, timeout)

    def run_background(self, background: Any) -> None:
        """A Response's background tasks, after it was sent (the extension called begin() before sending)."""
        coro = background()
        try:
            yielded = coro.send(None)
        except StopIteration:
            self.end()
            return
        except BaseException as exc:
            self.end()
            logger.error("Exception in background task", exc_info=exc)
            _server_errors.report(self.app, exc)
            return
        task = asyncio.get_running_loop().create_task(_finish(coro, yielded))
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.error("Exception in background task", exc_info=task.exception())
            _server_errors.report(self.app, task.exception())
        self.end()

    # --- Lifespan, on the executor's loop. ---
    def run_executor(self, event_fd: int, drain: Any) -> None:
        """The executor thread's body (see run_executor); runs the lifespan around serving when run_lifespan."""
        run_executor(event_fd, drain, self)

    def add_loop_hook(self, attach: Callable[[asyncio.AbstractEventLoop], None], detach: Callable[[], None],
                      keep: Any = None) -> None:
        """attach(loop) runs on the executor's loop when it starts (before the lifespan), detach() when it stops
        (after the lifespan); `keep` stays referenced as long as this runtime."""
        self._loop_hooks.append((attach, detach))
        if keep is not None:
            self._kept.append(keep)

    def _loop_started(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        for attach, _detach in self._loop_hooks:
            attach(loop)
        if self.run_lifespan:
            try:
                loop.run_until_complete(self.startup())
            except BaseException as exc:
                self.startup_error = exc
                logger.error("Application startup failed. Exiting.", exc_info=exc)
                if self.on_startup_failed is not None:
                    self.on_startup_failed()
        self._loop_ready.set()

    def _loop_stopping(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._lifespan is not None:
            try:
                loop.run_until_complete(self.shutdown())
            except BaseException as exc:
                logger.error("Application shutdown failed", exc_info=exc)
        for _attach, detach in self._loop_hooks:
            detach()

    async def startup(self) -> None:
        # The app's database (App(database=...)) opens before the lifespan, which may use it, and closes after.
        database = getattr(self.app, "database", None)
        if database is not None:
            await database.connect()
        try:
            context = self.app.lifespan_context(self.app)
            state = await context.__aenter__()
        except BaseException:
            if database is not None:
                await database.close()
            raise
        self._lifespan = context
        if state is not None:
            self.lifespan_state.update(state)

    async def shutdown(self) -> None:
        context, self._lifespan = self._lifespan, None
        try:
            if context is not None:
                await context.__aexit__(None, None, None)
        finally:
            database = getattr(self.app, "database", None)
            if database is not None:
                await database.close()

    def call_on_loop(self, coro_fn: Any, timeout: float = 60.0) -> Any:
        """From another thread: runs `coro_fn()` on the executor's loop and returns its result (or raises)."""
        if not self._loop_ready.wait(timeout):
            raise RuntimeError("the executor did not start")
        assert self.loop is not None
        return asyncio.run_coroutine_threadsafe(coro_fn(), self.loop).result(timeout)
