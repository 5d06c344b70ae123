"""BackgroundTasks: functions run after the response is sent (Starlette's API): `async def` ones on the executor's
loop, plain `def` ones in the app's thread pool (as Starlette runs them: a blocking task does not stall the loop)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any

from . import _threads, telemetry


def _is_async_callable(func: Any) -> bool:
    while hasattr(func, "func") and hasattr(func, "args"):  # functools.partial
        func = func.func
    return inspect.iscoroutinefunction(func) or inspect.iscoroutinefunction(getattr(func, "__call__", None))  # noqa: B004


class BackgroundTask:
    """One call: `func(*args, **kwargs)`; awaited when `func` is async, else called in the thread pool."""

    def __init__(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.is_async = _is_async_callable(func)

    async def __call__(self) -> None:
        if self.is_async:
            await self.func(*self.args, **self.kwargs)
        else:
            await _threads.run_sync(self.func, *self.args, **self.kwargs)


class BackgroundTasks(BackgroundTask):
    """Tasks run in the order added, after the response is sent. Declare a handler or dependency parameter of this
    type to get the request's instance, or pass one as `Response(background=...)`."""

    def __init__(self, tasks: Sequence[BackgroundTask] | None = None) -> None:
        self.tasks = list(tasks) if tasks else []

    def add_task(self, func: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.tasks.append(BackgroundTask(func, *args, **kwargs))

    async def __call__(self) -> None:
        if telemetry.operating():  # FastAPI's fastapi.background_task span around each task of a traced request
            for task in self.tasks:
                with telemetry.operation("background_task", task.func):
                    await task()
            return
        for task in self.tasks:
            await task()
