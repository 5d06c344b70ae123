"""An App is an ASGI 3 callable, as FastAPI's app is: httpx.AsyncClient over httpx.ASGITransport, a hand-written
ASGI WebSocket and lifespan driver, and uvicorn drive it; each answer comes from its engine (python/slipstream/_asgi/
entry.py). Where FastAPI is installed, the same app written against FastAPI is driven the same way and the two
transcripts must be equal."""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import asyncio
import contextlib
import socket
import threading
from collections.abc import AsyncIterator
from typing import Annotated, Any

import httpx
import pytest
import slipstream
from pydantic import BaseModel

fastapi = pytest.importorskip("fastapi")
from fastapi.testclient import TestClient as FastAPIClient

FRAMEWORKS = [slipstream, fastapi]


class Item(BaseModel):
    name: str
    price: float
    tags: list[str] = []


class Boom(Exception):
    pass


def new_app(fw: Any, **kwargs: Any) -> Any:
    return fw.App(**kwargs) if fw is slipstream else fw.FastAPI(**kwargs)


def build(fw: Any, log: list[str]) -> Any:
    """One app per framework, written once against FastAPI's API."""
    app = new_app(fw)

    @app.middleware("http")
    async def stamp(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers["x-stamp"] = request.method
        return response

    @app.exception_handler(Boom)
    async def on_boom(request: Any, exc: Boom) -> Any:
        return fw.responses.JSONResponse({"boom": str(exc)}, status_code=418)

    async def user(x_user: Annotated[str | None, fw.Header()] = None) -> str:
        log.append("dep enter")
        yield x_user or "anonymous"
        log.append("dep exit")

    @app.get("/")
    async def root() -> Any:
        return {"message": "hello"}

    @app.get("/items/{item_id}")
    async def read_item(item_id: int, q: str | None = None, limit: int = 10) -> Any:
        return {"item_id": item_id, "q": q, "limit": limit}

    @app.post("/items/", status_code=201)
    async def create_item(item: Item, who: Annotated[str, fw.Depends(user)]) -> Any:
        return {"item": item.model_dump(), "who": who}

    @app.get("/me")
    async def me(request: fw.Request, session: Annotated[str | None, fw.Cookie()] = None) -> Any:
        return {
            "session": session,
            "scheme": request.url.scheme,
            "url": str(request.url),
            "client": request.client.host if request.client else None,
        }

    @app.post("/login")
    async def login(response: fw.Response) -> Any:
        response.set_cookie("session", "abc123", httponly=True)
        return {"ok": True}

    @app.get("/teapot")
    async def teapot() -> Any:
        raise fw.HTTPException(status_code=404, detail="no teapot", headers={"x-why": "gone"})

    @app.get("/boom")
    async def boom() -> Any:
        raise Boom("handled")

    @app.get("/crash")
    async def crash() -> Any:
        raise ZeroDivisionError("unhandled")

    @app.get("/stream")
    async def stream() -> Any:
        async def lines() -> AsyncIterator[bytes]:
            for i in range(3):
                yield f"line {i}\n".encode()
                await asyncio.sleep(0)

        return fw.responses.StreamingResponse(lines(), media_type="text/plain")

    @app.post("/later", status_code=202)
    async def later(tasks: fw.BackgroundTasks) -> Any:
        async def work() -> None:
            await asyncio.sleep(0.01)
            log.append("background done")

        tasks.add_task(work)
        return {"queued": True}

    @app.websocket("/ws/{room}")
    async def chat(websocket: fw.WebSocket, room: str) -> None:
        if room == "closed":
            await websocket.close(code=4003)
            return
        await websocket.accept(subprotocol="chat.v1" if "chat.v1" in websocket.scope["subprotocols"] else None)
        await websocket.send_json({"room": room, "scheme": websocket.url.scheme})
        while True:
            try:
                text = await websocket.receive_text()
            except fw.WebSocketDisconnect as exc:
                log.append(f"ws disconnect {exc.code}")
                return
            if text == "bye":
                await websocket.close(code=4001, reason="bye bye")
                return
            await websocket.send_text(f"{room}:{text}")

    return app


def _answer(response: httpx.Response) -> tuple[Any, ...]:
    headers = {k: response.headers.get(k) for k in ("content-type", "content-length", "set-cookie", "x-stamp", "x-why")}
    return response.status_code, headers, response.content


async def _http_script(app: Any, log: list[str]) -> list[Any]:
    out: list[Any] = []
    transport = httpx.ASGITransport(app=app)
    # identity: FastAPI compresses nothing; the engine would gzip what the client accepts.
    async with httpx.AsyncClient(
        transport=transport, base_url="http://testserver", headers={"accept-encoding": "identity"}
    ) as client:
        out.append(_answer(await client.get("/")))
        out.append(_answer(await client.get("/items/5", params={"q": "x", "limit": "3"})))
        out.append(_answer(await client.get("/items/five")))
        out.append(_answer(await client.get("/items/5", params={"limit": "many"})))
        out.append(
            _answer(
                await client.post(
                    "/items/", json={"name": "Foo", "price": 1.5, "tags": ["a"]}, headers={"x-user": "alice"}
                )
            )
        )
        out.append(list(log))
        out.append(_answer(await client.post("/items/", json={"name": "Foo"})))
        out.append(
            _answer(await client.post("/items/", content=b"{not json", headers={"content-type": "application/json"}))
        )
        out.append(_answer(await client.post("/login")))
        out.append(dict(client.cookies))
        out.append(_answer(await client.get("/me")))
        out.append(_answer(await client.get("/teapot")))
        out.append(_answer(await client.get("/boom")))
        out.append(_answer(await client.get("/nowhere")))
        out.append(_answer(await client.delete("/")))
        out.append(_answer(await client.get("/stream")))
        log.clear()
        out.append(_answer(await client.post("/later")))
        out.append(list(log))  # the call returned after the background task, as FastAPI's does
        try:
            await client.get("/crash")
            out.append("no exception")
        except ZeroDivisionError as exc:
            out.append(("raised", repr(exc)))
    return out


def _transcripts(script: Any) -> dict[str, Any]:
    found = {}
    for fw in FRAMEWORKS:
        log: list[str] = []
        found[fw.__name__] = asyncio.run(script(build(fw, log), log))
    return found


def test_http_through_httpx_asgi_transport_is_fastapis() -> None:
    seen = _transcripts(_http_script)
    ours = seen["slipstream"]
    assert ours[0] == (
        200,
        {
            "content-type": "application/json",
            "content-length": "19",
            "set-cookie": None,
            "x-stamp": "GET",
            "x-why": None,
        },
        b'{"message":"hello"}',
    )
    assert ours[2][0] == 422 and b'"int_parsing"' in ours[2][2]
    assert ours[4][0] == 201 and ours[4][2] == b'{"item":{"name":"Foo","price":1.5,"tags":["a"]},"who":"alice"}'
    assert ours[5] == ["dep enter", "dep exit"]
    assert ours[9] == {"session": "abc123"}
    assert ours[15][2] == b"line 0\nline 1\nline 2\n"
    assert ours[-2] == ["background done"]
    assert ours[-1] == ("raised", "ZeroDivisionError('unhandled')")
    assert ours == seen["fastapi"]


async def _https_script(app: Any, log: list[str]) -> list[Any]:
    transport = httpx.ASGITransport(app=app, client=("203.0.113.7", 4567), root_path="/api")
    async with httpx.AsyncClient(
        transport=transport, base_url="https://example.org", cookies={"session": "s1"}
    ) as client:
        return [(await client.get("/api/me")).json(), (await client.get("/api/items/3")).json()]


def test_scope_scheme_client_and_root_path_reach_the_request() -> None:
    seen = _transcripts(_https_script)
    assert seen["slipstream"][0] == {
        "session": "s1",
        "scheme": "https",
        "url": "https://example.org/api/me",
        "client": "203.0.113.7",
    }
    assert seen["slipstream"] == seen["fastapi"]


class WebSocketDriver:
    """A minimal ASGI server side for one `websocket` scope: queues for both directions around the app's call."""

    def __init__(self, app: Any, path: str, subprotocols: list[str] | None = None, scheme: str = "ws") -> None:
        self.scope = {
            "type": "websocket",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "scheme": scheme,
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"testserver"), (b"sec-websocket-version", b"13")],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
            "subprotocols": subprotocols or [],
        }
        self.inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task = asyncio.ensure_future(app(self.scope, self.inbox.get, self._send))

    async def _send(self, message: dict[str, Any]) -> None:
        await self.outbox.put(message)

    async def next(self) -> dict[str, Any]:
        getting = asyncio.ensure_future(self.outbox.get())
        await asyncio.wait([getting, self.task], timeout=30, return_when=asyncio.FIRST_COMPLETED)
        if getting.done():
            return getting.result()
        getting.cancel()
        if self.task.done():
            self.task.result()  # raises what the app raised
            return {"type": "(the app returned)"}
        raise TimeoutError("no message from the app")

    async def finished(self) -> None:
        await asyncio.wait_for(self.task, 30)


def _ws_message(message: dict[str, Any]) -> dict[str, Any]:
    if message["type"] == "websocket.accept":
        return {"type": message["type"], "subprotocol": message.get("subprotocol")}
    if message["type"] == "websocket.close":
        return {"type": message["type"], "code": message.get("code", 1000), "reason": message.get("reason") or ""}
    return message


async def _websocket_script(app: Any, log: list[str]) -> list[Any]:
    out: list[Any] = []
    ws = WebSocketDriver(app, "/ws/lobby", ["chat.v1"], scheme="wss")
    await ws.inbox.put({"type": "websocket.connect"})
    out.append(_ws_message(await ws.next()))
    out.append(await ws.next())
    await ws.inbox.put({"type": "websocket.receive", "text": "hi"})
    out.append(await ws.next())
    await ws.inbox.put({"type": "websocket.receive", "text": "bye"})
    out.append(_ws_message(await ws.next()))
    await ws.finished()

    ws = WebSocketDriver(app, "/ws/two")
    await ws.inbox.put({"type": "websocket.connect"})
    out.append(_ws_message(await ws.next()))
    out.append(await ws.next())
    await ws.inbox.put({"type": "websocket.disconnect", "code": 1001})
    await ws.finished()
    await asyncio.sleep(0.05)
    out.append(list(log))

    ws = WebSocketDriver(app, "/ws/closed")
    await ws.inbox.put({"type": "websocket.connect"})
    message = await ws.next()
    out.append(message["type"])  # closed before accept: the server answers the handshake with 403
    await ws.finished()
    return out


def test_websocket_scope_is_fastapis() -> None:
    seen = _transcripts(_websocket_script)
    assert seen["slipstream"] == [
        {"type": "websocket.accept", "subprotocol": "chat.v1"},
        {"type": "websocket.send", "text": '{"room":"lobby","scheme":"wss"}'},
        {"type": "websocket.send", "text": "lobby:hi"},
        {"type": "websocket.close", "code": 4001, "reason": "bye bye"},
        {"type": "websocket.accept", "subprotocol": None},
        {"type": "websocket.send", "text": '{"room":"two","scheme":"ws"}'},
        ["ws disconnect 1001"],
        "websocket.close",
    ]
    assert seen["slipstream"] == seen["fastapi"]


def lifespan_app(fw: Any, events: list[str], fail: bool = False) -> Any:
    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[dict[str, Any]]:
        events.append("startup")
        if fail:
            raise RuntimeError("no database")
        yield {"greeting": "hello from the lifespan"}
        events.append("shutdown")

    app = new_app(fw, lifespan=lifespan)

    @app.get("/greet")
    async def greet(request: fw.Request) -> Any:
        return {"greeting": request.state.greeting}

    return app


async def _lifespan_script(app: Any, events: list[str]) -> list[Any]:
    out: list[Any] = []
    scope: dict[str, Any] = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}, "state": {}}
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    task = asyncio.ensure_future(app(scope, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    out.append((await asyncio.wait_for(outbox.get(), 30))["type"])
    out.append(dict(scope["state"]))
    out.append(list(events))

    async def with_state(inner: dict[str, Any], receive: Any, send: Any) -> None:
        await app({**inner, "state": dict(scope["state"])}, receive, send)  # as uvicorn hands the state on

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=with_state), base_url="http://t") as client:
        out.append((await client.get("/greet")).json())
    await inbox.put({"type": "lifespan.shutdown"})
    out.append((await asyncio.wait_for(outbox.get(), 30))["type"])
    await asyncio.wait_for(task, 30)
    out.append(list(events))
    return out


def test_lifespan_scope_runs_startup_and_shutdown_with_state() -> None:
    seen = {}
    for fw in FRAMEWORKS:
        events: list[str] = []
        app = lifespan_app(fw, events)
        seen[fw.__name__] = asyncio.run(_lifespan_script(app, events))
    assert seen["slipstream"] == [
        "lifespan.startup.complete",
        {"greeting": "hello from the lifespan"},
        ["startup"],
        {"greeting": "hello from the lifespan"},
        "lifespan.shutdown.complete",
        ["startup", "shutdown"],
    ]
    assert seen["slipstream"] == seen["fastapi"]


async def _failing_startup(app: Any) -> tuple[str, str, str]:
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    task = asyncio.ensure_future(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, inbox.get, outbox.put)
    )
    await inbox.put({"type": "lifespan.startup"})
    message = await asyncio.wait_for(outbox.get(), 30)
    with pytest.raises(RuntimeError) as raised:
        await asyncio.wait_for(task, 30)
    return message["type"], message["message"].strip().splitlines()[-1], str(raised.value)


def test_a_failing_startup_is_reported_and_raised() -> None:
    for fw in FRAMEWORKS:
        got = asyncio.run(_failing_startup(lifespan_app(fw, [], fail=True)))
        assert got == ("lifespan.startup.failed", "RuntimeError: no database", "no database"), fw.__name__


def test_the_scope_marker_needs_the_engines_token() -> None:
    """The header that carries the scope's client is read only with the engine's own token: a forged one is an
    ordinary header, and the client is the scope's."""
    app = slipstream.App()

    @app.get("/who")
    async def who(request: slipstream.Request) -> Any:
        return {"client": list(request.client), "marker": request.headers.get("x-slipstream-asgi-scope")}

    async def script() -> Any:
        transport = httpx.ASGITransport(app=app, client=("198.51.100.1", 9))
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            forged = "0" * 32 + " https 10.0.0.1 1 -"
            return (await client.get("/who", headers={"x-slipstream-asgi-scope": forged})).json()

    assert asyncio.run(script()) == {"client": ["198.51.100.1", 9], "marker": "0" * 32 + " https 10.0.0.1 1 -"}


def test_uvicorn_serves_the_app() -> None:
    """A real ASGI server: uvicorn on a socket, httpx and a `websockets` client talking to it."""
    uvicorn = pytest.importorskip("uvicorn")
    from websockets.sync.client import connect

    log: list[str] = []
    app = build(slipstream, log)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(300):
            if server.started:
                break
            threading.Event().wait(0.05)
        assert server.started
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            response = client.post("/items/", json={"name": "Bar", "price": 3}, headers={"x-user": "bob"})
            assert response.status_code == 201
            assert response.json() == {"item": {"name": "Bar", "price": 3.0, "tags": []}, "who": "bob"}
            assert response.headers["x-stamp"] == "POST"
            assert len(response.headers.get_list("date")) == 1  # uvicorn's own, not the engine's too
            assert client.get("/items/x").status_code == 422
            assert client.get("/stream").text == "line 0\nline 1\nline 2\n"
        with connect(f"ws://127.0.0.1:{port}/ws/up", subprotocols=["chat.v1"]) as ws:
            assert ws.subprotocol == "chat.v1"
            assert ws.recv(timeout=30) == '{"room":"up","scheme":"ws"}'
            ws.send("yo")
            assert ws.recv(timeout=30) == "up:yo"
    finally:
        server.should_exit = True
        thread.join(30)
    assert not thread.is_alive()


class HttpDriver:
    """A minimal ASGI server side for one `http` scope: the request body in the given messages, then
    http.disconnect once `leave` is set; every message the app sends is kept in `sent`."""

    def __init__(self, app: Any, method: str, path: str, chunks: list[bytes], headers: list[Any]) -> None:
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(b"host", b"testserver"), *headers],
            "client": ("127.0.0.1", 50001),
            "server": ("testserver", 80),
        }
        self.body = [
            {"type": "http.request", "body": chunk, "more_body": i < len(chunks) - 1} for i, chunk in enumerate(chunks)
        ]
        self.leave = asyncio.Event()
        self.sent: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task = asyncio.ensure_future(app(self.scope, self._receive, self.sent.put))

    async def _receive(self) -> dict[str, Any]:
        if self.body:
            return self.body.pop(0)
        await self.leave.wait()
        return {"type": "http.disconnect"}


def streaming_app(release: threading.Event, cancelled: threading.Event) -> Any:
    app = slipstream.App(cancel_on_disconnect=True)

    @app.post("/upload")
    async def upload(request: slipstream.Request) -> Any:
        body = await request.body()
        return {"size": len(body), "head": body[:5].decode(), "te": request.headers.get("transfer-encoding")}

    @app.get("/live")
    async def live() -> Any:
        async def events() -> AsyncIterator[bytes]:
            yield b"first\n"
            while not release.is_set():
                await asyncio.sleep(0.005)
            yield b"second\n"

        return slipstream.responses.StreamingResponse(events(), media_type="text/plain")

    @app.get("/hang")
    async def hang() -> Any:
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return {}

    return app


def test_request_and_response_bodies_stream_and_a_disconnect_reaches_the_handler() -> None:
    release, cancelled = threading.Event(), threading.Event()
    app = streaming_app(release, cancelled)

    async def script() -> list[Any]:
        out: list[Any] = []
        # A body in three messages without Content-Length (as over HTTP/2): sent to the engine chunked.
        upload = HttpDriver(app, "POST", "/upload", [b"hello ", b"", b"world" * 1000], [])
        start = await asyncio.wait_for(upload.sent.get(), 30)
        body = await asyncio.wait_for(upload.sent.get(), 30)
        out.append((start["status"], body["body"], body.get("more_body", False)))
        upload.leave.set()
        await asyncio.wait_for(upload.task, 30)

        # The first chunk arrives while the handler still holds the second back.
        live = HttpDriver(app, "GET", "/live", [b""], [])
        out.append((await asyncio.wait_for(live.sent.get(), 30))["status"])
        out.append(await asyncio.wait_for(live.sent.get(), 30))
        release.set()
        rest = []
        while True:
            message = await asyncio.wait_for(live.sent.get(), 30)
            rest.append(message["body"])
            if not message.get("more_body"):
                break
        out.append(b"".join(rest))
        live.leave.set()
        await asyncio.wait_for(live.task, 30)

        # The client leaves before the answer: the call returns and the engine cancels the handler.
        hang = HttpDriver(app, "GET", "/hang", [b""], [])
        await asyncio.sleep(0.05)
        hang.leave.set()
        await asyncio.wait_for(hang.task, 30)
        out.append(hang.sent.empty())
        return out

    got = asyncio.run(script())
    assert got == [
        (200, b'{"size":5006,"head":"hello","te":"chunked"}', False),
        200,
        {"type": "http.response.body", "body": b"first\n", "more_body": True},
        b"second\n",
        True,
    ]
    assert cancelled.wait(30)


def refusing_app(fw: Any) -> Any:
    app = new_app(fw)

    @app.websocket("/policy")
    async def policy(websocket: fw.WebSocket) -> None:
        raise fw.WebSocketException(code=1008, reason="no token")

    @app.websocket("/early")
    async def early(websocket: fw.WebSocket) -> None:
        raise KeyError("before accept")

    @app.websocket("/late")
    async def late(websocket: fw.WebSocket) -> None:
        await websocket.accept()
        await websocket.receive_text()
        raise KeyError("after accept")

    return app


async def _refusals(app: Any, log: list[str]) -> list[Any]:
    out: list[Any] = []
    for path in ("/policy", "/nowhere", "/early", "/late"):
        ws = WebSocketDriver(app, path)
        await ws.inbox.put({"type": "websocket.connect"})
        try:
            message = await ws.next()
            out.append(_ws_message(message))
            if message["type"] == "websocket.accept":
                await ws.inbox.put({"type": "websocket.receive", "text": "go"})
                out.append(_ws_message(await ws.next()))
            await ws.finished()
            out.append("returned")
        except KeyError as exc:
            out.append(("raised", repr(exc)))
    return out


def test_websocket_refusals_and_handler_exceptions_are_fastapis() -> None:
    seen = {fw.__name__: asyncio.run(_refusals(refusing_app(fw), [])) for fw in FRAMEWORKS}
    assert seen["slipstream"] == [
        {"type": "websocket.close", "code": 1008, "reason": "no token"},
        "returned",
        {"type": "websocket.close", "code": 1000, "reason": ""},
        "returned",
        ("raised", "KeyError('before accept')"),
        {"type": "websocket.accept", "subprotocol": None},
        ("raised", "KeyError('after accept')"),
    ]
    assert seen["slipstream"] == seen["fastapi"]


def test_an_app_mounted_in_an_app() -> None:
    """An App is an ASGI app, so another App mounts it (as FastAPI mounts a FastAPI sub-application): its routes,
    validation and WebSocket routes under the prefix, with the mount's root_path in the URLs."""
    seen = {}
    for fw in FRAMEWORKS:
        sub = new_app(fw)

        @sub.post("/items")
        async def items(item: Item, request: fw.Request) -> Any:
            return {"item": item.model_dump(), "url": str(request.url), "root_path": request.scope["root_path"]}

        @sub.websocket("/ws")
        async def ws(websocket: fw.WebSocket) -> None:
            await websocket.accept()
            await websocket.send_json({"url": str(websocket.url), "root_path": websocket.scope["root_path"]})
            await websocket.close()

        app = new_app(fw)
        app.mount("/sub", sub)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client:
            good = client.post("/sub/items", json={"name": "a", "price": 1})
            bad = client.post("/sub/items", json={"name": "a"})
            with client.websocket_connect("/sub/ws") as session:
                seen[fw.__name__] = (good.status_code, good.json(), bad.status_code, bad.json(), session.receive_json())
    assert seen["slipstream"] == (
        200,
        {"item": {"name": "a", "price": 1.0, "tags": []}, "url": "http://testserver/sub/items", "root_path": "/sub"},
        422,
        {"detail": [{"type": "missing", "loc": ["body", "price"], "msg": "Field required", "input": {"name": "a"}}]},
        {"url": "ws://testserver/sub/ws", "root_path": "/sub"},
    )
    assert seen["slipstream"] == seen["fastapi"]


def test_raise_app_exceptions_false_gives_the_500_and_tls_options_are_refused() -> None:
    seen = {}
    for fw in FRAMEWORKS:
        app = build(fw, [])

        async def script(app: Any = app) -> Any:
            transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                response = await client.get("/crash")
                return response.status_code, response.text

        seen[fw.__name__] = asyncio.run(script())
    assert seen["slipstream"] == seen["fastapi"] == (500, "Internal Server Error")

    secured = slipstream.App(tls_cert_file="cert.pem", tls_key_file="key.pem")

    async def call() -> None:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=secured), base_url="http://t") as client:
            await client.get("/")

    with pytest.raises(ValueError, match="TLS is the ASGI server's"):
        asyncio.run(call())
