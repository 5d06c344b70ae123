"""Blocking calls from async code, as Starlette's run_in_threadpool: FastAPI runs `def` dependencies (and `def`
handlers behind dependencies or HTTP middleware) so, and a blocking one must not stall the executor's loop.

Calls go to the running loop's default executor (the App's thread pool, `thread_pool_size`, 40 threads by
default as anyio's limiter; see _runtime.run_executor), each in a copy of the caller's contextvars (what a call
sets there is not seen by the caller, as with anyio). The exit code of a `yield` dependency runs on a pool of its
own, so that exits never wait for a thread held by entries waiting for them (FastAPI's exit limiter)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import contextvars
import functools
import os
import queue
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_THREAD_POOL_SIZE = 40  # anyio's default thread limiter, which FastAPI's run_in_threadpool goes through
MAX_THREAD_POOL_SIZE = 4096

_exit_pool: ThreadPool | None = None
_exit_lock = threading.Lock()


def check_pool_size(size: Any) -> int:
    """`size` as a thread count; a clear error when it is not a positive integer within the limit."""
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_THREAD_POOL_SIZE:
        raise ValueError(f"thread_pool_size must be an integer from 1 to {MAX_THREAD_POOL_SIZE}, not {size!r}")
    return size


class ThreadPool(concurrent.futures.ThreadPoolExecutor):
    """At most `size` threads, started on demand and kept. `call(loop, fn)` answers on an asyncio future of
    `loop` (one queue hand-off and one call_soon_threadsafe: about half of run_in_executor's cost, whose
    concurrent.futures.Future is chained to an asyncio one); `submit` is the Executor API (run_in_executor,
    asyncio.to_thread use it; a ThreadPoolExecutor subclass because asyncio's set_default_executor wants one, but
    none of its machinery is used)."""

    def __init__(self, size: int, name: str = "slipstream-sync") -> None:
        super().__init__(max_workers=check_pool_size(size), thread_name_prefix=name)
        self._size = size
        self._name = name
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._idle = 0  # threads waiting for work that no queued item has claimed yet
        self._shutdown = False

    def _put(self, item: tuple[Any, Any, Callable[[], Any]]) -> None:
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new calls after the thread pool was shut down")
            self._queue.put(item)
            if self._idle:
                self._idle -= 1
            elif len(self._threads) < self._size:
                thread = threading.Thread(target=self._work, name=f"{self._name}_{len(self._threads)}", daemon=True)
                self._threads.append(thread)
                thread.start()

    def call(self, loop: asyncio.AbstractEventLoop, fn: Callable[[], T], end: list[Any]) -> asyncio.Future[T]:
        """fn() in a thread; its result on the returned future. When the call ends after the future was
        cancelled, `end` gets True, or its waiter (a future put there) is set."""
        future: asyncio.Future[T] = loop.create_future()
        self._put((loop, (future, end), fn))
        return future

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[T]:
        future: concurrent.futures.Future[T] = concurrent.futures.Future()
        self._put((None, future, functools.partial(fn, *args, **kwargs)))
        return future

    def _work(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            loop, future, fn = item
            if loop is None:
                if future.set_running_or_notify_cancel():
                    try:
                        future.set_result(fn())
                    except BaseException as exc:  # noqa: BLE001 - the caller's to see
                        future.set_exception(exc)
            else:
                try:
                    result, error = fn(), None
                except BaseException as exc:  # noqa: BLE001 - the caller's to see
                    result, error = None, exc
                try:
                    loop.call_soon_threadsafe(_deliver, future, result, error)
                except RuntimeError:  # the loop closed meanwhile: nobody waits for the answer
                    pass
                del result, error
            del item, future, fn
            with self._lock:
                self._idle += 1

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._lock:
            self._shutdown = True
            threads = list(self._threads)
        for _ in threads:
            self._queue.put(None)
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()


def _deliver(target: tuple[asyncio.Future[Any], list[Any]], result: Any, error: BaseException | None) -> None:
    future, end = target
    if future.done():  # cancelled: the canceller may wait for the call's end
        if end:
            end[0].set_result(None)
        else:
            end.append(True)
        return
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)


def new_pool(size: int) -> ThreadPool:
    """The executor loop's default executor: `size` threads at most, started on demand."""
    return ThreadPool(size)


async def _wait(loop: asyncio.AbstractEventLoop, executor: Executor | None, call: Callable[[], T]) -> T:
    """call() on `executor` (None: the loop's default); a cancellation waits for the call to end before it is
    raised (as anyio's run_sync without abandon_on_cancel: the thread's work is never left running unowned)."""
    pool = executor if executor is not None else getattr(loop, "_default_executor", None)
    if not isinstance(pool, ThreadPool):
        return await asyncio.shield(loop.run_in_executor(executor, call))  # pragma: no cover - another loop
    end: list[Any] = []  # [True] once the call ended, or the future that waits for its end
    future = pool.call(loop, call, end)
    try:
        return await future
    except asyncio.CancelledError:
        if not future.cancelled() or end:
            raise
        waiter = loop.create_future()
        end.append(waiter)
        while not waiter.done():
            try:
                await asyncio.shield(waiter)
            except asyncio.CancelledError:
                continue
        raise


async def run_sync(func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
    """`func(*args, **kwargs)` in the loop's thread pool, in a copy of the current contextvars."""
    context = contextvars.copy_context()
    return await _wait(asyncio.get_running_loop(), None, functools.partial(context.run, func, *args, **kwargs))


def _exits() -> ThreadPool:
    global _exit_pool
    with _exit_lock:
        if _exit_pool is None:
            size = min(MAX_THREAD_POOL_SIZE, max(DEFAULT_THREAD_POOL_SIZE, (os.cpu_count() or 1) * 4))
            _exit_pool = ThreadPool(size, "slipstream-exit")
        return _exit_pool


@contextlib.asynccontextmanager
async def sync_context(cm: contextlib.AbstractContextManager[T]) -> AsyncIterator[T]:
    """A blocking context manager entered and exited in threads (FastAPI's contextmanager_in_threadpool); an
    exception in the body reaches its __exit__, which may swallow it."""
    value = await run_sync(cm.__enter__)
    loop = asyncio.get_running_loop()
    try:
        yield value
    except BaseException as exc:
        context = contextvars.copy_context()
        exit_call = functools.partial(context.run, cm.__exit__, type(exc), exc, exc.__traceback__)
        if not await _wait(loop, _exits(), exit_call):
            raise
    else:
        context = contextvars.copy_context()
        await _wait(loop, _exits(), functools.partial(context.run, cm.__exit__, None, None, None))


__all__ = ["DEFAULT_THREAD_POOL_SIZE", "check_pool_size", "new_pool", "run_sync", "sync_context"]
