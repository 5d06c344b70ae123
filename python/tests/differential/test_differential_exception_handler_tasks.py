"""FastAPI vs Slipstream on where an `async def` exception handler runs ("Handling Errors": custom exception
handlers): inside a Task, so that asyncio.current_task(), anyio cancel scopes and asyncio.timeout() work there,
for exceptions raised by `def` and `async def` handlers, before and after the handler suspended, on plain routes,
routes with dependencies and in apps with HTTP middleware; the exception handler may itself suspend and goes on in
its task.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import asyncio
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import anyio
import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import Outcome, client_pairs, compare, exchange, record


class Teapot(Exception):
    pass


class Slow(Exception):
    pass


def tasks_app(fw: Any, kind: str) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    if kind == "middleware":

        @app.middleware("http")
        async def passthrough(request: Any, call_next: Any) -> Any:
            return await call_next(request)

    seen: dict[str, Any] = {}

    @app.exception_handler(Teapot)
    async def on_teapot(request: Any, exc: Teapot) -> Any:
        task = asyncio.current_task()
        with anyio.move_on_after(5):  # a cancel scope needs a task
            async with asyncio.timeout(5):  # noqa: ASYNC100 - entered only to need a task
                pass
        return fw.responses.JSONResponse(
            {"error": str(exc), "in_task": task is not None, "handler's task": task is seen.get("task")},
            status_code=418,
        )

    @app.exception_handler(Slow)
    async def on_slow(request: Any, exc: Slow) -> Any:
        task = asyncio.current_task()
        await asyncio.sleep(0.001)  # suspends: awaited in the request's task
        return fw.responses.JSONResponse({"slow": str(exc), "same task": task is seen.get("task")}, status_code=409)

    def one() -> int:
        return 1

    deps = [fw.Depends(one)] if kind == "dependency" else []

    @app.get("/def", dependencies=deps)
    def sync_raises() -> Any:
        seen["task"] = None
        raise Teapot("def")

    @app.get("/async", dependencies=deps)
    async def async_raises() -> Any:
        seen["task"] = asyncio.current_task()
        raise Teapot("async")

    @app.get("/after-await", dependencies=deps)
    async def raises_after_await() -> Any:
        await asyncio.sleep(0.001)
        seen["task"] = asyncio.current_task()
        raise Teapot("after await")

    @app.get("/slow-late", dependencies=deps)
    async def slow_late() -> Any:
        await asyncio.sleep(0.001)
        seen["task"] = asyncio.current_task()
        raise Slow("late")

    @app.get("/slow", dependencies=deps)
    async def slow(n: Annotated[int, fw.Query()] = 1) -> Any:
        seen["task"] = asyncio.current_task()
        raise Slow(str(n))

    return app


KINDS = ("plain", "dependency", "middleware")


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({kind: (lambda fw, k=kind: tasks_app(fw, k)) for kind in KINDS})




def row(kind: str, url: str, gap: str | None = None) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(kind, url, gap, id=f"{kind} GET {url}", marks=marks)


ROWS = [row(kind, url) for kind in KINDS for url in ("/def", "/async", "/slow", "/after-await", "/slow-late")]


@pytest.mark.parametrize(("kind", "url", "gap"), ROWS)
def test_same_answer(pair: Any, request: pytest.FixtureRequest, kind: str, url: str, gap: str | None) -> None:
    got, expected = exchange(pair, kind, "GET", url, {})
    diffs = compare(got, expected)
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)
