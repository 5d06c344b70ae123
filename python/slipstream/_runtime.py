"""What the extension calls on the executor thread: the asyncio loop, coroutine hand-off, errors, Request objects.

`AppRuntime` is the per-app object handed to the extension: the same helpers, plus the app's lifespan (run on
the executor's loop), background tasks after a response, and a count of work still running after a response
was sent (the TestClient waits for it, as Starlette's does).
"""

from __future__ import annotations

import asyncio
import atexit
import functools
import logging
import selectors
import sys
import threading
from collections.abc import Callable, Generator
from typing import Any

from . import _native, _server_errors, _threads
from ._encoders import encode_fallback
from ._error_responses import async_handler_for, await_handler, conversion_failed, handle_error
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
    "new_host",
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


_STOP = 1        # drain()'s answer bits (python/bindings/executor.h)
_HANDED_OFF = 2


class _Retire(Exception):
    """A helper thread's selector turn was refused: the executor stopped."""


class _ExecutorSelector(selectors.BaseSelector):
    """The loop's selector with the executor's eventfd in it: drain() runs the engine's requests between two turns
    of the loop (not in a loop callback), so that while a `def` handler blocks, another thread can drive the loop
    (python/bindings/executor.h: the baton). `turn()` parks a thread that gave the baton away."""

    def __init__(self, inner: selectors.BaseSelector, event_fd: int, drain: Any, turn: Any) -> None:
        self._inner = inner
        self._fd = event_fd
        self._drain = drain
        self._turn = turn
        self._drains: dict[int, Any] = {}
        self.loop: Any = None

    def add_drain(self, fd: int, drain: Any) -> None:
        """Runs `drain()` from select() when `fd` is readable, as the engine's requests are (so a `def` it calls may
        block under the baton); `drain()` answers True when such a call was handed off."""
        self._drains[fd] = drain
        self._inner.register(fd, selectors.EVENT_READ)

    def remove_drain(self, fd: int) -> None:
        if self._drains.pop(fd, None) is not None:
            self._inner.unregister(fd)

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._inner.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._inner.modify(fileobj, events, data)

    def get_key(self, fileobj: Any) -> selectors.SelectorKey:
        return self._inner.get_key(fileobj)

    def get_map(self) -> Any:
        return self._inner.get_map()

    def close(self) -> None:
        self._inner.close()

    def start_draining(self) -> None:
        """Once the loop started (after the lifespan's startup): requests are run from now on."""
        self._inner.register(self._fd, selectors.EVENT_READ)

    def stop_draining(self) -> None:
        """After the loop stopped: requests are no longer run (the loop still runs, to end its tasks)."""
        self._inner.unregister(self._fd)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        turn = self._turn()
        if turn == 0:
            raise _Retire
        if turn == 2:  # this thread parked while another drove the loop: the timeout it was given is stale
            self.loop._thread_id = threading.get_ident()
            timeout = 0
        ready = self._inner.select(timeout)
        for i, (key, _) in enumerate(ready):
            if key.fd == self._fd:
                del ready[i]
                state = self._drain()
                if state & _STOP:
                    self.loop.stop()
                if state & _HANDED_OFF:  # another thread drove the loop meanwhile: what was read is stale
                    self.loop._thread_id = threading.get_ident()
                    return []
                break
        if self._drains:
            kept, handed_off = [], False
            for key, events in ready:
                drain = self._drains.get(key.fd)
                if drain is None:
                    kept.append((key, events))
                elif drain():
                    handed_off = True
            if handed_off:
                self.loop._thread_id = threading.get_ident()
                return []
            ready = kept
        return ready


def _drive(loop: asyncio.AbstractEventLoop) -> None:
    """A helper thread's body (python/bindings/executor.h): drives the loop while the thread that drove it is
    blocked in a `def` handler; its selector parks it between turns, and retires it when the executor stops."""
    asyncio.events._set_running_loop(loop)
    sys.set_asyncgen_hooks(firstiter=loop._asyncgen_firstiter_hook,  # type: ignore[attr-defined]
                           finalizer=loop._asyncgen_finalizer_hook)  # type: ignore[attr-defined]
    loop._thread_id = threading.get_ident()  # type: ignore[attr-defined]
    try:
        while True:
            loop._run_once()  # type: ignore[attr-defined]
    except _Retire:
        pass
    finally:
        asyncio.events._set_running_loop(None)


def _new_loop(event_fd: int, drain: Any, turn: Any, set_helper: Any,
              kind: str = "asyncio") -> tuple[asyncio.AbstractEventLoop, bool]:
    """The executor's loop; True when the eventfd is in its selector (the default loop), False when the policy
    makes another kind of loop, or `kind` is "uvloop" (drained from a reader callback then, and a blocked `def`
    handler blocks it)."""
    if kind == "uvloop":
        import uvloop

        return uvloop.new_event_loop(), False
    loop = asyncio.new_event_loop()
    if turn is None or type(loop) is not asyncio.SelectorEventLoop:
        return loop, False
    loop.close()
    selector = _ExecutorSelector(selectors.DefaultSelector(), event_fd, drain, turn)
    loop = asyncio.SelectorEventLoop(selector)
    selector.loop = loop
    set_helper(functools.partial(_drive, loop))
    return loop, True


def run_executor(event_fd: int, drain: Any, host: Any = None, turn: Any = None, set_helper: Any = None,
                 set_call_soon: Any = None) -> None:
    """Body of the executor thread: an asyncio loop that runs `drain` (a batch of requests) when the fd is ready.
    `set_call_soon(loop.call_soon)`: the engine sends the answers one loop turn gave together, at the next turn."""
    kind = getattr(host, "event_loop", "asyncio") if host is not None else "asyncio"
    loop, in_selector = _new_loop(event_fd, drain, turn, set_helper, kind)
    asyncio.set_event_loop(loop)
    if set_call_soon is not None:
        set_call_soon(loop.call_soon)
    if host is not None:  # `def` dependencies, run_in_threadpool, asyncio.to_thread: the app's thread pool
        loop.set_default_executor(_threads.new_pool(host.thread_pool_size))
    if host is not None:
        host._loop_started(loop)

    def on_ready() -> None:
        if drain() & _STOP:
            loop.stop()

    if in_selector:
        loop._selector.start_draining()  # type: ignore[attr-defined]
    else:
        loop.add_reader(event_fd, on_ready)
    try:
        loop.run_forever()
    finally:
        if in_selector:
            loop._selector.stop_draining()  # type: ignore[attr-defined]
        else:
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
    """Awaitable that continues a coroutine already stepped once (it yielded `first`) inside a real Task, each step
    inside `context` (the context its first step ran in); `cancelled`: its task was cancelled before it got it."""

    __slots__ = ("cancelled", "context", "coro", "first")

    def __init__(self, coro: Any, first: Any, context: Any = None, cancelled: bool = False) -> None:
        self.coro = coro
        self.first = first
        self.context = context
        self.cancelled = cancelled

    def __await__(self) -> Generator[Any, Any, Any]:
        coro, yielded, context = self.coro, self.first, self.context
        self.coro = self.first = self.context = None
        run = context.run if context is not None else _call
        if self.cancelled:
            try:
                yielded = run(coro.throw, asyncio.CancelledError())
            except StopIteration as stop:
                return stop.value
        while True:
            try:
                sent = yield yielded
            except BaseException as exc:  # noqa: BLE001 - forwarded into the coroutine (cancellation included)
                try:
                    yielded = run(coro.throw, exc)
                except StopIteration as stop:
                    return stop.value
            else:
                try:
                    yielded = run(coro.send, sent)
                except StopIteration as stop:
                    return stop.value


def _call(fn: Any, arg: Any) -> Any:
    return fn(arg)


async def _finish(coro: Any, first: Any, context: Any = None, on_error: Any = None, cancelled: bool = False) -> Any:
    """The rest of a coroutine that suspended in its first step; with `on_error`, an exception it raises is answered
    by `on_error(exc)` here, in the same task and context (the app's `async def` exception handler, as FastAPI awaits
    it in the request's task)."""
    try:
        return await _Continue(coro, first, context, cancelled)
    except Exception as exc:
        if on_error is None:
            raise
        return await _stepped_in(on_error(exc), context)


async def _stepped_in(coro: Any, context: Any) -> Any:
    """Awaits `coro` with each of its steps run inside `context` (None: the task's own)."""
    if context is None:
        return await coro
    try:
        first = context.run(coro.send, None)
    except StopIteration as stop:
        return stop.value
    return await _Continue(coro, first, context)


async def _hosted(slot: asyncio.Future[Any]) -> Any:
    """A host task's coroutine (see new_host): idle until a coroutine whose first step ran in it suspends, then
    that coroutine's task until it ends."""
    try:
        coro, first, context, *error_answer = await slot  # (coro, first, context[, on_error])
    except asyncio.CancelledError:
        if not slot.done() or slot.cancelled():
            raise  # cancelled while idle: the extension makes another host
        coro, first, context, *error_answer = slot.result()  # cancelled between the hand-over and its first step
        return await _finish(coro, first, context, *error_answer, cancelled=True)
    return await _finish(coro, first, context, *error_answer)


def new_host() -> tuple[asyncio.AbstractEventLoop, asyncio.Task[Any], Callable[[], Any], asyncio.Future[Any]]:
    """A host task for the first steps of handlers' coroutines (python/bindings/py_route.cpp, first_step): the
    extension makes it asyncio's current task while it steps a coroutine once, so that code there runs inside a
    real Task (anyio, asyncio.timeout, httpx need one) without a Task made per request. A coroutine that suspends
    is handed to it (resume(): `slot` gets it) and the extension makes a new host. (loop, task, check, slot):
    `check()` is true once the task was cancelled, so that it is not used again."""
    loop = asyncio.get_running_loop()
    slot = loop.create_future()
    task = loop.create_task(_hosted(slot))
    return loop, task, getattr(task, "cancelling", slot.done), slot


# The tasks of handlers that suspended, until they end: asyncio holds tasks weakly, and a handler awaiting a future
# that nothing else holds (a chain of its own tasks and futures) would otherwise be collected while it waits.
_SUSPENDED: set[asyncio.Task[Any]] = set()


def _task_for(coro: Any, first: Any, context: Any, host: Any, on_error: Any = None) -> asyncio.Task[Any]:
    """The task that goes on with a coroutine that suspended in its first step: its host's, when it ran in one."""
    task = None
    if host is not None:
        _loop, hosted, _check, slot = host
        if not slot.done():
            slot.set_result((coro, first, context, on_error))
            task = hosted
    if task is None:
        task = asyncio.get_running_loop().create_task(_finish(coro, first, context, on_error))
    _SUSPENDED.add(task)
    task.add_done_callback(_SUSPENDED.discard)
    return task


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


def _error_answer(app: Any, reply: Any) -> Any:
    """For a handler that suspended: its exception answered by the app's `async def` exception handler in the
    handler's own task, as FastAPI awaits it (None when the app has no exception handlers)."""
    errors = getattr(app, "exception_handlers", None)
    if errors is None or not (errors.by_class or errors.by_status):
        return None

    async def on_error(exc: Exception) -> Any:
        handler = async_handler_for(errors, exc)
        if handler is None or reply.done:
            raise exc
        return await await_handler(errors, handler, reply.make_request(), exc)

    return on_error


class _Resume:
    """The runtime's `resume`: a handler's coroutine awaited a real future in its first step (which ran in `context`,
    in `host`'s task): finish it in that task, its exception answered there by the app's `async def` exception
    handler (_error_answer), then answer through `reply`."""

    __slots__ = ("app",)

    def __init__(self, app: Any) -> None:
        self.app = app

    def __call__(self, coro: Any, first: Any, reply: Any, context: Any = None, host: Any = None) -> None:
        task = _task_for(coro, first, context, host, _error_answer(self.app, reply))
        task.add_done_callback(lambda t: _settle(t, reply))


def make_request(method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                 path_params: dict[str, str], client: str, route: str, principal: str | None = None,
                 scopes: str | None = None) -> Request:
    return Request(method, path, query, headers, body, path_params, client, route, principal, scopes)


class AppRuntime:
    """The per-app hooks the extension reads (python/bindings/app_context.h) and the app's lifespan."""

    def __init__(self, app: Any, make_request: Any = None) -> None:
        self.app = app
        self._make_request = make_request if make_request is not None else Request
        self.resume = _Resume(app)  # not a bound method: the runtime must not reference itself (it is freed by count)
        self.new_host = new_host
        self.handle_error = handle_error
        self.conversion_failed = conversion_failed
        self.answer_forwarded = answer_forwarded
        self.encode_fallback = encode_fallback
        self.model_plan = model_plan
        self.Response = Response
        self.lifespan_state: dict[str, Any] = {}
        self.thread_pool_size = getattr(app, "thread_pool_size", _threads.DEFAULT_THREAD_POOL_SIZE)
        # The executor's loop: "asyncio" (its selector runs the engine's requests, with the hand-off of blocked
        # `def` handlers) or "uvloop" (AsgiServer's loop="auto" when installed: an ASGI app's `def` endpoints run
        # in its thread pool, not on the loop).
        self.event_loop = getattr(app, "event_loop", "asyncio")
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

    async def answer_async_error(self, reply: Any, exc: BaseException, request: Any) -> bool:
        """A runner's failure answered by the app's `async def` exception handler, awaited in the runner's task
        (so it may suspend, as under FastAPI); False when no such handler takes `exc` (reply.fail answers then)."""
        errors = getattr(self.app, "exception_handlers", None)
        handler = async_handler_for(errors, exc)
        if handler is None:
            return False
        if request is None:
            request = reply.make_request()
        reply.send(await await_handler(errors, handler, request, exc))
        return True

    def make_request(self, method: str, path: str, query: str, headers: list[tuple[str, str]], body: bytes,
                     path_params: dict[str, str], client: str, route: str, principal: str | None = None,
                     scopes: str | None = None) -> Request:
        request = self._make_request(method, path, query, headers, body, path_params, client, route, principal,
                                     scopes)
        request.app = self.app
        request.lifespan_state = self.lifespan_state
        return request

    def _resume_cancellable(self, coro: Any, first: Any, reply: Any, context: Any = None, host: Any = None) -> None:
        """resume(), and the task is cancelled when the client disconnects (App(cancel_on_disconnect=True))."""
        loop = asyncio.get_running_loop()
        task = _task_for(coro, first, context, host, _error_answer(self.app, reply))
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
        """A Response's background tasks, after it was sent (the extension called begin() before sending), in a
        task of their own (as FastAPI runs them in the request's task: anyio and asyncio.timeout work there)."""
        try:
            task = asyncio.get_running_loop().create_task(background())
        except BaseException as exc:
            self.end()
            logger.error("Exception in background task", exc_info=exc)
            _server_errors.report(self.app, exc)
            return
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[Any]) -> None:
        if not task.cancelled() and task.exception() is not None:
            logger.error("Exception in background task", exc_info=task.exception())
            _server_errors.report(self.app, task.exception())
        self.end()

    # --- Lifespan, on the executor's loop. ---
    def run_executor(self, event_fd: int, drain: Any, turn: Any = None, set_helper: Any = None,
                     set_call_soon: Any = None) -> None:
        """The executor thread's body (see run_executor); runs the lifespan around serving when run_lifespan."""
        run_executor(event_fd, drain, self, turn, set_helper, set_call_soon)

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
