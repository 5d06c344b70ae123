"""An async handler's whole life runs in one asyncio Task, its first step (run eagerly by the engine) included:
anyio (task groups, cancel scopes), asyncio.timeout and httpx.AsyncClient work there, as under uvicorn."""

from __future__ import annotations

import asyncio
import contextvars
import socket
import sys
import threading
from typing import Any

import anyio
import anyio.lowlevel
import httpx
import pytest
from slipstream import App, BackgroundTasks, Depends, Request, TestClient


async def _no_suspension() -> None:
    pass


def _kinds() -> list[str]:
    return ["plain", "dependency", "middleware"]


def make_app(kind: str) -> tuple[App, Any]:
    """An app whose GET routes run as plain handlers, through a dependency runner, or inside HTTP middleware;
    `route` decorates a handler the same way for each kind."""
    app = App()
    if kind == "middleware":
        @app.middleware("http")
        async def passthrough(request: Request, call_next: Any) -> Any:
            return await call_next(request)

    def dep() -> int:
        return 1

    def route(path: str) -> Any:
        def decorate(func: Any) -> Any:
            if kind == "dependency":
                async def with_dep(d: int = Depends(dep)) -> Any:
                    return await func()
                with_dep.__name__ = func.__name__
                return app.get(path)(with_dep)
            return app.get(path)(func)
        return decorate

    return app, route


@pytest.mark.parametrize("kind", _kinds())
def test_anyio_task_group_and_fail_after_in_first_step(kind: str) -> None:
    app, route = make_app(kind)

    @route("/a")
    async def a() -> Any:
        async with anyio.create_task_group():
            pass
        with anyio.fail_after(5):
            await anyio.lowlevel.checkpoint()
        return {"task": asyncio.current_task() is not None}

    @route("/eager")
    async def eager() -> Any:
        with anyio.fail_after(5):
            await anyio.lowlevel.checkpoint_if_cancelled()  # does not suspend: the first step ends the handler
        return {"task": asyncio.current_task() is not None}

    with TestClient(app) as client:
        for path in ("/a", "/eager", "/a", "/eager"):
            r = client.get(path)
            assert (r.status_code, r.json()) == (200, {"task": True})


@pytest.mark.parametrize("kind", _kinds())
def test_same_task_across_a_suspension(kind: str) -> None:
    app, route = make_app(kind)

    @route("/same")
    async def same() -> Any:
        first = asyncio.current_task()
        with anyio.CancelScope():  # anyio requires the task that entered a scope to exit it
            await asyncio.sleep(0)
            second = asyncio.current_task()
            await anyio.lowlevel.checkpoint()
        third = asyncio.current_task()
        return [first is not None, first is second, second is third, first.done()]

    with TestClient(app) as client:
        for _ in range(3):
            assert client.get("/same").json() == [True, True, True, False]


@pytest.mark.parametrize("kind", _kinds())
def test_task_group_children_and_timeouts_that_fire(kind: str) -> None:
    app, route = make_app(kind)

    @route("/group")
    async def group() -> Any:
        results: list[int] = []

        async def child(n: int) -> None:
            await anyio.lowlevel.checkpoint()
            results.append(n)

        async with anyio.create_task_group() as tg:
            for n in range(3):
                tg.start_soon(child, n)
        with anyio.move_on_after(0.01) as scope:
            await anyio.Event().wait()  # never set: the scope's deadline cancels it
        return {"results": sorted(results), "moved_on": scope.cancelled_caught}

    with TestClient(app) as client:
        assert client.get("/group").json() == {"results": [0, 1, 2], "moved_on": True}


@pytest.mark.skipif(sys.version_info < (3, 11), reason="asyncio.timeout is new in Python 3.11")
@pytest.mark.parametrize("kind", _kinds())
def test_asyncio_timeout(kind: str) -> None:
    app, route = make_app(kind)

    @route("/timeout")
    async def timeout() -> Any:
        async with asyncio.timeout(5):
            await asyncio.sleep(0)
        try:
            async with asyncio.timeout(0.01):
                await asyncio.Event().wait()  # never set
        except TimeoutError:
            return {"timed_out": True, "cancelling": asyncio.current_task().cancelling()}
        return {"timed_out": False}

    @route("/eager")
    async def eager() -> Any:
        async with asyncio.timeout(5):
            await _no_suspension()
            return {"in_task": True}

    with TestClient(app) as client:
        for _ in range(2):
            assert client.get("/timeout").json() == {"timed_out": True, "cancelling": 0}
            assert client.get("/eager").json() == {"in_task": True}


def test_httpx_async_client_calls_another_server() -> None:
    upstream = App()

    @upstream.get("/value")
    def value() -> Any:
        return {"value": 42}

    app = App()

    with TestClient(upstream) as up:
        @app.get("/proxy")
        async def proxy() -> Any:
            async with httpx.AsyncClient() as client:
                r = await client.get(f"http://127.0.0.1:{up.port}/value")
            return {"status": r.status_code, "body": r.json()}

        with TestClient(app) as client:
            assert client.get("/proxy").json() == {"status": 200, "body": {"value": 42}}


def test_concurrent_suspended_handlers_have_their_own_tasks() -> None:
    app = App()
    gate: dict[str, Any] = {}
    tasks: list[Any] = []

    @app.get("/park/{n}")
    async def park(n: int) -> Any:
        tasks.append(asyncio.current_task())
        if len(tasks) == 2:
            gate["event"].set()
        await gate["event"].wait()
        return n

    @app.get("/setup")
    async def setup() -> Any:
        gate["event"] = asyncio.Event()
        return "ok"

    with TestClient(app, threads=2) as client:
        assert client.get("/setup").json() == "ok"
        answers: dict[int, Any] = {}

        def call(n: int) -> None:
            answers[n] = httpx.get(f"http://127.0.0.1:{client.port}/park/{n}", timeout=30).json()

        threads = [threading.Thread(target=call, args=(n,)) for n in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        assert answers == {1: 1, 2: 2}
        assert len(tasks) == 2 and tasks[0] is not tasks[1]


_var: contextvars.ContextVar[str] = contextvars.ContextVar("_var", default="unset")


def test_context_variables_are_per_request_and_survive_a_suspension() -> None:
    app = App()

    @app.get("/set/{value}")
    async def set_value(value: str) -> Any:
        before = _var.get()
        _var.set(value)
        await asyncio.sleep(0)
        return [before, _var.get()]

    @app.get("/eager/{value}")
    async def eager(value: str) -> Any:
        before = _var.get()
        _var.set(value)
        return [before, _var.get()]

    with TestClient(app) as client:
        assert client.get("/set/a").json() == ["unset", "a"]
        assert client.get("/eager/b").json() == ["unset", "b"]
        assert client.get("/set/c").json() == ["unset", "c"]


def test_a_handler_that_cancels_its_own_task_does_not_disturb_later_requests() -> None:
    app = App()

    @app.get("/self-cancel")
    async def self_cancel() -> Any:
        asyncio.current_task().cancel()
        return "cancelled itself"

    @app.get("/later")
    async def later() -> Any:
        await asyncio.sleep(0)
        with anyio.fail_after(5):
            await anyio.lowlevel.checkpoint()
        return asyncio.current_task().cancelling()

    with TestClient(app) as client:
        assert client.get("/self-cancel").json() == "cancelled itself"
        for _ in range(3):
            assert client.get("/later").json() == 0


def test_background_task_runs_in_a_task() -> None:
    app = App()
    seen: list[Any] = []
    done = threading.Event()

    async def job() -> None:
        with anyio.fail_after(5):
            await anyio.lowlevel.checkpoint()
        seen.append(asyncio.current_task() is not None)
        done.set()

    @app.get("/bg")
    async def bg(background: BackgroundTasks) -> Any:
        background.add_task(job)
        return "ok"

    with TestClient(app) as client:
        assert client.get("/bg").json() == "ok"
        assert done.wait(30)
    assert seen == [True]


def test_cancel_on_disconnect_cancels_the_handlers_task() -> None:
    app = App(cancel_on_disconnect=True)
    started = threading.Event()
    cancelled = threading.Event()
    seen: dict[str, Any] = {}

    @app.get("/slow")
    async def slow() -> Any:
        first = asyncio.current_task()
        try:
            with anyio.CancelScope():
                started.set()
                await asyncio.Event().wait()  # never set: only the disconnect ends it
        except asyncio.CancelledError:
            seen["same_task"] = asyncio.current_task() is first
            cancelled.set()
            raise
        return "never"

    with TestClient(app) as client:
        sock = socket.create_connection(("127.0.0.1", client.port), timeout=30)
        sock.sendall(b"GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")
        assert started.wait(30)
        sock.close()
        assert cancelled.wait(30)
    assert seen == {"same_task": True}
