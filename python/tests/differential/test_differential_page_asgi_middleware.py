"""FastAPI vs Slipstream on pure ASGI middleware classes (`app.add_middleware(Class, **options)` where Class is
`__init__(self, app, **options)` + `async def __call__(self, scope, receive, send)`), written here as third-party
middleware is: one that adds a response header, one that rewrites the path (the request is routed again), one that
answers 403 by itself, one that raises (a 500, or the app's Exception handler's answer), one that counts the
response's bytes, one that adds a request header the endpoint reads, ordered with `@app.middleware("http")`; and
on WebSocket connections (transcripts through both TestClients): one that wraps receive and send (the endpoint's
messages rewritten both ways, a header on the handshake's answer), one that refuses the handshake, one that raises,
one that passes the connection through untouched.

Starlette's own BaseHTTPMiddleware class (a pure ASGI class from Slipstream's view) runs under both frameworks too.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient

from .diff_support import Outcome, client_pairs, new_app, page_row, record, same_answer_test


class AddHeader:
    def __init__(self, app: Any, name: str = "x-added", value: str = "1") -> None:
        self.app, self.name, self.value = app, name.encode(), value.encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], (self.name, self.value)]
            await send(message)

        await self.app(scope, receive, send_with_header)


class Rewrite:
    def __init__(self, app: Any, old: str = "/old/", new: str = "/items/") -> None:
        self.app, self.old, self.new = app, old, new

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.old):
            path = self.new + scope["path"][len(self.old) :]
            scope = {**scope, "path": path, "raw_path": path.encode()}
        await self.app(scope, receive, send)


class Forbid:
    def __init__(self, app: Any, prefix: str = "/admin") -> None:
        self.app, self.prefix = app, prefix

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith(self.prefix):
            await send(
                {
                    "type": "http.response.start",
                    "status": 403,
                    "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", b"9")],
                }
            )
            await send({"type": "http.response.body", "body": b"Forbidden"})
            return
        await self.app(scope, receive, send)


class Boom(Exception):
    pass


class Raise:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/boom":
            raise Boom("middleware failed")
        await self.app(scope, receive, send)


class CountBytes:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        chunks: list[Any] = []

        async def hold(message: Any) -> None:
            chunks.append(message)

        await self.app(scope, receive, hold)
        size = sum(len(m.get("body", b"")) for m in chunks if m["type"] == "http.response.body")
        for message in chunks:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], (b"x-bytes", str(size).encode())]
            await send(message)


class RequestHeader:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            scope = {**scope, "headers": [*scope["headers"], (b"x-user", b"ann")]}
        await self.app(scope, receive, send)


def _routes(app: Any, fw: Any) -> Any:
    @app.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    @app.get("/items/{item_id}")
    def item(item_id: int) -> dict[str, int]:
        return {"item_id": item_id}

    @app.post("/echo")
    async def echo(request: fw.Request) -> dict[str, Any]:
        return {"body": (await request.body()).decode(), "user": request.headers.get("x-user")}

    @app.get("/admin/panel")
    def admin() -> str:
        return "secret"

    @app.get("/boom")
    def boom() -> str:
        return "unreached"

    @app.get("/fail")
    def fail() -> str:
        raise Boom("endpoint failed")

    return app


def stack_app(fw: Any) -> Any:
    app = _routes(new_app(fw), fw)
    app.add_middleware(AddHeader, name="x-inner", value="a")
    app.add_middleware(Rewrite)
    app.add_middleware(Forbid)
    app.add_middleware(CountBytes)
    app.add_middleware(RequestHeader)

    @app.middleware("http")
    async def outer(request: Any, call_next: Callable[..., Any]) -> Any:
        response = await call_next(request)
        response.headers["x-outer"] = request.url.path
        return response

    return app


def raising_app(fw: Any) -> Any:
    app = _routes(new_app(fw), fw)
    app.add_middleware(Raise)
    app.add_middleware(AddHeader)
    return app


def handled_app(fw: Any) -> Any:
    app = raising_app(fw)

    @app.exception_handler(Exception)
    async def on_error(request: Any, exc: Exception) -> Any:
        return fw.responses.JSONResponse({"error": str(exc)}, status_code=500)

    return app


def options_app(fw: Any) -> Any:
    mw = fw.middleware.Middleware if fw is not fastapi else __import__("starlette.middleware").middleware.Middleware
    app = new_app(fw, middleware=[mw(AddHeader, name="x-first", value="1"), mw(Rewrite, old="/o/")])
    return _routes(app, fw)


def starlette_base_app(fw: Any) -> Any:
    """Starlette's own BaseHTTPMiddleware (an ASGI middleware class from Slipstream's view) under both frameworks,
    inside a pure ASGI one."""
    from starlette.middleware.base import BaseHTTPMiddleware

    class PathHeader(BaseHTTPMiddleware):
        async def dispatch(self, request: Any, call_next: Callable[..., Any]) -> Any:
            response = await call_next(request)
            response.headers["x-path"] = request.url.path
            return response

    app = _routes(new_app(fw), fw)
    app.add_middleware(PathHeader)
    app.add_middleware(Rewrite)
    return app


APPS = {
    "stack": stack_app,
    "raising": raising_app,
    "handled": handled_app,
    "options": options_app,
    "starlette_base": starlette_base_app,
}

ROWS = [
    page_row("stack", "GET", "/hello"),
    page_row("stack", "GET", "/items/5"),
    page_row("stack", "GET", "/items/x"),
    page_row("stack", "GET", "/old/7"),
    page_row("stack", "GET", "/old/x"),
    page_row("stack", "GET", "/old/"),
    page_row("stack", "GET", "/admin/panel"),
    page_row("stack", "GET", "/nowhere"),
    page_row("stack", "DELETE", "/hello"),
    page_row("stack", "POST", "/echo", content="payload"),
    page_row("raising", "GET", "/boom"),
    page_row("raising", "GET", "/fail"),
    page_row("raising", "GET", "/hello"),
    page_row("handled", "GET", "/boom"),
    page_row("handled", "GET", "/fail"),
    page_row("options", "GET", "/o/3"),
    page_row("options", "GET", "/hello"),
    page_row("starlette_base", "GET", "/old/4"),
    page_row("starlette_base", "GET", "/nowhere"),
    page_row("starlette_base", "POST", "/echo", content="payload"),
]


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs(APPS)


test_same_answer = same_answer_test(ROWS)


class WsWrap:
    """Upper-cases what the client sends, brackets what the endpoint sends, adds a header to the handshake, refuses
    /ws/deny with 1008 and raises on /ws/raise; http scopes pass through."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            await self.app(scope, receive, send)
            return
        if scope["path"] == "/ws/deny":
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["path"] == "/ws/raise":
            raise Boom("websocket middleware failed")

        async def wrapped_send(message: Any) -> None:
            if message["type"] == "websocket.accept":
                message = {**message, "headers": [*(message.get("headers") or []), (b"x-ws", b"wrapped")]}
            elif message["type"] == "websocket.send" and message.get("text") is not None:
                message = {**message, "text": f"[{message['text']}]"}
            await send(message)

        async def wrapped_receive() -> Any:
            message = await receive()
            if message["type"] == "websocket.receive" and message.get("text") is not None:
                message = {**message, "text": message["text"].upper()}
            return message

        await self.app(scope, wrapped_receive, wrapped_send)


class PassThrough:
    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


def ws_app(fw: Any, middleware: Any) -> Any:
    app = new_app(fw)
    app.add_middleware(AddHeader)
    app.add_middleware(middleware)

    @app.websocket("/ws/{name}")
    async def chat(websocket: fw.WebSocket, name: str) -> None:
        await websocket.accept()
        async for text in websocket.iter_text():
            await websocket.send_text(f"{name}: {text}")
            if text.lower() == "bye":
                await websocket.close()
                return

    return app


def _ws_script(client: Any) -> list[Any]:
    out: list[Any] = []
    with client.websocket_connect("/ws/ann") as ws:
        for text in ("hello", "Bye"):
            ws.send_text(text)
            out.append(ws.receive_text())
    for path in ("/ws/deny", "/ws/raise"):
        try:
            with client.websocket_connect(path) as ws:
                ws.send_text("x")
                out.append(ws.receive_text())
        except Exception as exc:  # noqa: BLE001 - the refusal's kind and code are compared
            out.append((path, type(exc).__name__, getattr(exc, "code", None)))
    return out


@pytest.mark.parametrize("middleware", [WsWrap, PassThrough], ids=lambda m: m.__name__)
def test_websocket_transcript(middleware: Any) -> None:
    transcripts = {}
    for fw in (slipstream, fastapi):
        app = ws_app(fw, middleware)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client:
            transcripts[fw.__name__] = _ws_script(client)
    diffs = []
    if transcripts["slipstream"] != transcripts["fastapi"]:
        diffs.append(f"transcript: slipstream {transcripts['slipstream']!r}, fastapi {transcripts['fastapi']!r}")
    record(Outcome(f"asgi middleware websocket {middleware.__name__}", None, diffs))
    assert not diffs, "\n".join(diffs)
