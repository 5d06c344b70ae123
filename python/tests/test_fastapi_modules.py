"""The modules FastAPI apps import besides the top level: slipstream.concurrency, .exception_handlers,
.param_functions (and .openapi.docs / .openapi.utils), used as FastAPI's are and answering as FastAPI does."""

# No `from __future__ import annotations`: handlers annotate with each framework's classes, local names.
import contextlib
import contextvars
import threading
from typing import Annotated, Any

import pytest
import slipstream
from slipstream.concurrency import (
    contextmanager_in_threadpool,
    iterate_in_threadpool,
    run_in_threadpool,
    run_until_first_complete,
)

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient as FastAPIClient

_who: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


def _blocking(x: int, *, times: int) -> tuple[int, bool, str]:
    return x * times, threading.current_thread() is threading.main_thread(), _who.get()


def test_run_in_threadpool_from_a_handler() -> None:
    app = slipstream.App()
    loop_threads: list[int] = []

    @app.get("/mul/{x}")
    async def mul(x: int) -> Any:
        loop_threads.append(threading.get_ident())
        _who.set("handler")
        value, on_main, who = await run_in_threadpool(_blocking, x, times=3)
        worker = await run_in_threadpool(threading.get_ident)
        return {"value": value, "on_main": on_main, "who": who, "other_thread": worker != loop_threads[-1]}

    @app.get("/fail")
    async def fail() -> Any:
        return await run_in_threadpool(int, "not a number")

    with slipstream.TestClient(app) as client:
        assert client.get("/mul/4").json() == {"value": 12, "on_main": False, "who": "handler", "other_thread": True}
        with pytest.raises(ValueError, match="invalid literal"):
            client.get("/fail")


def test_iterate_in_threadpool_feeds_a_stream() -> None:
    app = slipstream.App()
    threads: set[bool] = set()

    def lines() -> Any:
        for i in range(3):
            threads.add(threading.current_thread() is threading.main_thread())
            yield f"line {i}\n"

    @app.get("/lines")
    async def stream() -> Any:
        return slipstream.StreamingResponse(iterate_in_threadpool(lines()), media_type="text/plain")

    with slipstream.TestClient(app) as client:
        assert client.get("/lines").text == "line 0\nline 1\nline 2\n"
    assert threads == {False}


def test_run_until_first_complete_cancels_the_others() -> None:
    import asyncio

    events: list[str] = []

    async def quick(name: str) -> None:
        events.append(name)

    async def slow() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            events.append("slow cancelled")

    async def main() -> None:
        await run_until_first_complete((slow, {}), (quick, {"name": "quick"}))

    asyncio.run(main())
    assert events == ["quick", "slow cancelled"]


def test_contextmanager_in_threadpool_enters_and_exits_in_threads() -> None:
    import asyncio

    seen: list[tuple[str, bool]] = []

    @contextlib.contextmanager
    def resource() -> Any:
        seen.append(("enter", threading.current_thread() is threading.main_thread()))
        try:
            yield "r"
        except KeyError:
            seen.append(("swallowed", threading.current_thread() is threading.main_thread()))
        else:
            seen.append(("exit", threading.current_thread() is threading.main_thread()))

    async def main() -> None:
        async with contextmanager_in_threadpool(resource()) as value:
            assert value == "r"
        async with contextmanager_in_threadpool(resource()):
            raise KeyError("inside")
        with pytest.raises(ValueError, match="kept"):
            async with contextmanager_in_threadpool(resource()):
                raise ValueError("kept")

    asyncio.run(main())
    assert seen == [("enter", False), ("exit", False), ("enter", False), ("swallowed", False), ("enter", False)]


def _handlers_app(fw: Any) -> Any:
    handlers = __import__(f"{fw.__name__}.exception_handlers", fromlist=["x"])
    app = fw.FastAPI() if fw is fastapi else fw.App()
    log: list[str] = []
    app.state.log = log

    @app.exception_handler(fw.HTTPException)
    async def logged_http(request: fw.Request, exc: Any) -> Any:
        log.append(f"http {exc.status_code}")
        return await handlers.http_exception_handler(request, exc)

    @app.exception_handler(fw.exceptions.RequestValidationError)
    async def logged_validation(request: fw.Request, exc: Any) -> Any:
        log.append("validation")
        return await handlers.request_validation_exception_handler(request, exc)

    @app.get("/status/{code}")
    def status(code: int) -> Any:
        raise fw.HTTPException(status_code=code, detail=f"status {code}", headers={"x-code": str(code)})

    @app.get("/needs-int")
    def needs_int(n: int, tags: Annotated[list[str], fw.Query(min_length=1)]) -> Any:
        return n

    @app.get("/log")
    def read_log() -> Any:
        return log

    return app


@pytest.mark.parametrize("url", ["/status/404", "/status/418", "/status/204", "/status/205", "/status/304",
                                 "/needs-int?n=x", "/needs-int?n=1", "/nothing"])
def test_default_handlers_reused_answer_as_fastapis(url: str) -> None:
    with slipstream.TestClient(_handlers_app(slipstream)) as ours, FastAPIClient(_handlers_app(fastapi)) as theirs:
        a, b = ours.get(url), theirs.get(url)
        assert (a.status_code, a.headers.get("x-code"), a.headers.get("content-type"), a.content) == \
            (b.status_code, b.headers.get("x-code"), b.headers.get("content-type"), b.content)
        log = ours.get("/log").json()
        assert log == theirs.get("/log").json()
        # A path no route matches raises Starlette's HTTPException, which a handler for FastAPI's subclass skips.
        assert (log == []) == (url == "/nothing")


def test_204_and_205_have_no_body() -> None:
    with slipstream.TestClient(_handlers_app(slipstream)) as client:
        for code in (204, 205):
            r = client.get(f"/status/{code}")
            assert (r.status_code, r.content, r.headers["x-code"]) == (code, b"", str(code))


def test_websocket_validation_handler_closes_with_1008() -> None:
    from slipstream.exception_handlers import websocket_request_validation_exception_handler

    class Errors(Exception):
        def errors(self) -> list[dict[str, Any]]:
            return [{"loc": ["query", "token"], "msg": "Field required", "type": "missing"}]

    app = slipstream.App()

    @app.websocket("/ws")
    async def ws(websocket: slipstream.WebSocket) -> None:
        await websocket.accept()
        await websocket_request_validation_exception_handler(websocket, Errors())

    with slipstream.TestClient(app) as client, client.websocket_connect("/ws") as session, \
            pytest.raises(slipstream.WebSocketDisconnect) as info:
        session.receive_text()
    assert info.value.code == 1008
    assert "Field required" in info.value.reason


def test_param_functions_are_the_top_level_declarations() -> None:
    import fastapi.param_functions as theirs
    import slipstream.param_functions as ours

    names = ["Body", "Cookie", "Depends", "File", "Form", "Header", "Path", "Query", "Security"]
    assert all(hasattr(theirs, name) for name in names)
    assert [getattr(ours, name) for name in names] == [getattr(slipstream, name) for name in names]


def test_openapi_modules_are_importable_as_in_fastapi() -> None:
    from slipstream.openapi.docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
    from slipstream.openapi.utils import get_openapi

    def build(fw: Any) -> Any:
        app = fw.FastAPI(title="Shop", version="2") if fw is fastapi else fw.App(title="Shop", version="2")

        @app.get("/items/{item_id}")
        def item(item_id: int) -> Any:
            return item_id

        return app

    from fastapi.openapi.utils import get_openapi as fastapi_get_openapi

    app, fa = build(slipstream), build(fastapi)
    ours = get_openapi(title="Shop", version="2", routes=app.routes)
    theirs = fastapi_get_openapi(title="Shop", version="2", routes=fa.routes)
    assert ours == theirs
    page = get_swagger_ui_html(openapi_url="/openapi.json", title="Shop docs")
    assert b"<title>Shop docs</title>" in page.body and b"/openapi.json" in page.body
    assert b"/openapi.json" in get_redoc_html(openapi_url="/openapi.json", title="Shop").body
    assert b"oauth2" in get_swagger_ui_oauth2_redirect_html().body.lower()
