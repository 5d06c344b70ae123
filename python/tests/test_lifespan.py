"""lifespan / on_startup / on_shutdown, app.state and request.state: the same as FastAPI's TestClient."""


import contextlib
import socket
import threading
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")
import slipstream
from fastapi.testclient import TestClient as FastAPIClient


def make_app(fw: Any, kind: str, events: list[str]) -> Any:
    App = fw.FastAPI if fw is fastapi else fw.App
    if kind == "lifespan":

        @contextlib.asynccontextmanager
        async def lifespan(app: Any) -> Any:
            events.append("start")
            app.state.ready = True
            yield {"db": "conn"}
            events.append("stop")

        app = App(lifespan=lifespan)
    elif kind == "generator":

        def lifespan(app: Any) -> Any:  # a plain generator function is accepted too
            events.append("start")
            yield {"db": "gen"}
            events.append("stop")

        app = App(lifespan=lifespan)
    else:
        async def start() -> None:
            events.append("start")

        app = App(on_startup=[start], on_shutdown=[lambda: events.append("stop")])

        with pytest.warns(DeprecationWarning) if fw is fastapi else contextlib.nullcontext():
            @app.on_event("startup")
            def second() -> None:
                events.append("start2")

    @app.get("/state")
    def state(request: fw.Request) -> Any:
        request.state.seen = True
        return {"db": getattr(request.state, "db", None), "ready": getattr(request.app.state, "ready", None)}

    return app


@pytest.mark.parametrize("kind", ["lifespan", "generator", "events"])
def test_lifespan_runs_around_the_client_context(kind: str) -> None:
    results = {}
    for fw, Client in ((fastapi, FastAPIClient), (slipstream, slipstream.TestClient)):
        events: list[str] = []
        app = make_app(fw, kind, events)
        with Client(app) as client:
            events.append("request")
            body = client.get("/state").json()
            body2 = client.get("/state").json()  # request.state is per request: `seen` does not leak
        results[fw.__name__] = (events, body, body2)
    assert results["slipstream"] == results["fastapi"]


def test_no_lifespan_without_the_context_manager() -> None:
    events: list[str] = []
    app = make_app(slipstream, "lifespan", events)
    client = slipstream.TestClient(app)
    try:
        assert client.get("/state").json() == {"db": None, "ready": None}
    finally:
        client.close()
    assert events == []


def test_startup_failure_raises_from_the_context_manager() -> None:
    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        raise RuntimeError("no database")
        yield

    app = slipstream.App(lifespan=lifespan)
    with pytest.raises(RuntimeError, match="no database"), slipstream.TestClient(app):
        pass


def test_lifespan_awaits_on_the_executor_loop() -> None:
    import asyncio

    loops: list[Any] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        await asyncio.sleep(0.001)
        loops.append(asyncio.get_running_loop())
        yield
        await asyncio.sleep(0.001)

    app = slipstream.App(lifespan=lifespan)

    @app.get("/loop")
    async def loop() -> Any:
        await asyncio.sleep(0)
        return {"same": asyncio.get_running_loop() is loops[0]}

    with slipstream.TestClient(app) as client:
        assert client.get("/loop").json() == {"same": True}


def test_router_handlers_join_the_app_as_in_fastapi() -> None:
    results = {}
    for fw, Client in ((fastapi, FastAPIClient), (slipstream, slipstream.TestClient)):
        events: list[str] = []
        router = fw.APIRouter(on_startup=[lambda e=events: e.append("router")])
        on_startup = [lambda e=events: e.append("app")]
        app = fw.FastAPI(on_startup=on_startup) if fw is fastapi else fw.App(on_startup=on_startup)
        app.include_router(router)
        with Client(app):
            pass
        results[fw.__name__] = events
    assert results["slipstream"] == results["fastapi"]


def test_run_executes_startup_and_shutdown() -> None:
    """App.run(): startup before serving, shutdown after the drain (stopped through the native server)."""
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        events.append("start")
        yield
        events.append("stop")

    app = slipstream.App(lifespan=lifespan, access_log=False)

    @app.get("/ping")
    def ping() -> Any:
        return {"events": list(events)}

    native, runtime = app.build_native(threads=1)
    runtime.run_lifespan = True
    native.listen("127.0.0.1", 0)
    port = native.port
    result: dict[str, Any] = {}

    def serve() -> None:
        result["rc"] = native.run()

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(b"GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            data = b""
            while chunk := sock.recv(4096):
                data += chunk
    finally:
        native.stop()
        thread.join(30)
    assert data.endswith(b'{"events":["start"]}')
    assert events == ["start", "stop"]
    assert result["rc"] == 0
