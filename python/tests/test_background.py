"""BackgroundTasks: run after the response is sent, in order, on the executor thread (as FastAPI runs them)."""


import asyncio
import threading
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")
import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from slipstream.background import BackgroundTask
from starlette.background import BackgroundTask as StarletteBackgroundTask


def build(fw: Any, events: list[str], style: str) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    Task = StarletteBackgroundTask if fw is fastapi else BackgroundTask

    def log(message: str, suffix: str = "") -> None:
        events.append(message + suffix)

    async def alog(message: str) -> None:
        await asyncio.sleep(0.001)
        events.append("async:" + message)

    def route(path: str) -> Any:
        def deco(func: Any) -> Any:
            if style == "async":
                import functools
                import inspect

                @functools.wraps(func)
                async def handler(*a: Any, **k: Any) -> Any:
                    return func(*a, **k)

                handler.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
                app.get(path)(handler)
            else:
                app.get(path)(func)
            return func

        return deco

    @route("/tasks")
    def tasks(background_tasks: fw.BackgroundTasks, q: str = "x") -> Any:
        background_tasks.add_task(log, "first", suffix=q)
        background_tasks.add_task(alog, "second")
        background_tasks.add_task(log, "third")
        events.append("handler")
        return {"q": q}

    @route("/response")
    def response() -> Any:
        events.append("handler")
        return fw.responses.PlainTextResponse("sent", background=Task(log, "after-response"))

    @route("/both")
    def both(background_tasks: fw.BackgroundTasks) -> Any:
        # A returned Response's own background wins over the injected tasks (FastAPI's rule).
        background_tasks.add_task(log, "injected")
        return fw.responses.JSONResponse({"ok": 1}, background=Task(log, "own"))

    @route("/failing")
    def failing(background_tasks: fw.BackgroundTasks) -> Any:
        background_tasks.add_task(log, "before")
        return {"ok": True}

    return app


@pytest.mark.parametrize("style", ["def", "async"])
@pytest.mark.parametrize("url", ["/tasks?q=!", "/response", "/both", "/failing"])
def test_same_order_as_fastapi(style: str, url: str) -> None:
    results = {}
    for fw, Client in ((fastapi, FastAPIClient), (slipstream, slipstream.TestClient)):
        events: list[str] = []
        with Client(build(fw, events, style)) as client:
            response = client.get(url)
            results[fw.__name__] = (response.status_code, response.content, events)
    assert results["slipstream"] == results["fastapi"]


def test_tasks_run_after_the_response_def_ones_in_the_thread_pool() -> None:
    """As Starlette: a `def` task runs in a worker thread (a blocking one does not stall the loop), an `async def`
    one on the executor's loop."""
    sent = threading.Event()
    seen: dict[str, Any] = {}
    app = slipstream.App()

    def task() -> None:
        # The client has the response before the task finishes: the task waits for the client to say so.
        seen["after_send"] = sent.wait(10)
        seen["thread"] = threading.current_thread().name

    async def async_task() -> None:
        seen["async_thread"] = threading.get_ident()

    @app.get("/t")
    async def handler(background_tasks: slipstream.BackgroundTasks) -> Any:
        seen["handler_thread"] = threading.get_ident()
        background_tasks.add_task(task)
        background_tasks.add_task(async_task)
        return {"ok": True}

    with slipstream.TestClient(app) as client:
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
        conn.request("GET", "/t")
        body = conn.getresponse().read()
        sent.set()
        conn.close()
        assert client._runtime.wait_idle(10)
    assert body == b'{"ok":true}'
    assert seen["after_send"] is True
    assert seen["thread"].startswith("slipstream-sync")
    assert seen["async_thread"] == seen["handler_thread"] != threading.get_ident()


def test_a_failing_task_is_logged_and_later_requests_work(caplog: pytest.LogCaptureFixture) -> None:
    app = slipstream.App()

    def broken() -> None:
        raise ValueError("task failed")

    @app.get("/t")
    def handler(background_tasks: slipstream.BackgroundTasks) -> Any:
        background_tasks.add_task(broken)
        return {"ok": True}

    @app.get("/plain")
    def plain() -> Any:
        return slipstream.PlainTextResponse("x", background=BackgroundTask(broken))

    with slipstream.TestClient(app, raise_server_exceptions=False) as client:
        assert client.get("/t").json() == {"ok": True}
        assert client.get("/plain").text == "x"
        assert client.get("/t").status_code == 200
    failures = [r for r in caplog.records if r.exc_info and str(r.exc_info[1]) == "task failed"]
    assert [r.name for r in failures] == ["slipstream.error"] * 3
