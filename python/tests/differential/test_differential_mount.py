"""FastAPI vs Slipstream on `app.mount()` of ASGI and WSGI apps (FastAPI's "Sub Applications - Mounts" and
"Including WSGI" pages): a FastAPI sub-application (its routes, 422s, 404s, docs and OpenAPI document under the
mount's root_path), a Starlette app (url_for across the mount, a named mount), a bare ASGI app showing the scope
it gets, and a WSGI app in each framework's WSGIMiddleware; `/sub` answered 307 to `/sub/` as Starlette's router.
WebSockets through a mount are compared in test_websocket_through_a_mount.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import importlib
import json
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from pydantic import BaseModel
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute

from .diff_support import Outcome, client_pairs, compare, exchange, record


class Item(BaseModel):
    name: str
    price: float


def fastapi_sub() -> Any:
    sub = fastapi.FastAPI(title="Sub")

    @sub.get("/")
    async def sub_root() -> Any:
        return {"sub": True}

    @sub.get("/items/{item_id}")
    async def read_item(item_id: int, request: fastapi.Request, q: str | None = None) -> Any:
        return {
            "item_id": item_id,
            "q": q,
            "root_path": request.scope["root_path"],
            "path": request.url.path,
            "url_for": str(request.url_for("read_item", item_id=7)),
            "base_url": str(request.base_url),
        }

    @sub.post("/items", status_code=201)
    def create_item(item: Item) -> Any:
        return item

    @sub.get("/fail")
    async def fail() -> Any:
        raise fastapi.HTTPException(status_code=418, detail="teapot", headers={"x-sub": "1"})

    @sub.get("/boom")
    async def boom() -> Any:
        raise RuntimeError("sub-application failure")

    return sub


def starlette_sub() -> Any:
    async def hello(request: Any) -> Any:
        return JSONResponse(
            {
                "hello": request.path_params.get("name", "world"),
                "self": str(request.url_for("hello", name="x")),
                "main": str(request.url_for("main_route")),
            }
        )

    async def text(request: Any) -> Any:
        return PlainTextResponse("plain " + request.url.path, headers={"x-plain": "yes"})

    async def echo(ws: Any) -> None:
        await ws.accept()
        await ws.send_json({"root_path": ws.scope["root_path"], "path": ws.scope["path"]})
        text = await ws.receive_text()
        await ws.send_text(text.upper())
        await ws.close()

    return Starlette(
        routes=[Route("/hello/{name}", hello, name="hello"), Route("/text", text), WebSocketRoute("/ws", echo)]
    )


async def scope_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A bare ASGI app: answers with the scope's keys a mounted app relies on."""
    body = b""
    more = True
    while more:
        message = await receive()
        body += message.get("body", b"")
        more = message.get("more_body", False)
    seen = {k: scope.get(k) for k in ("type", "method", "root_path", "path", "app_root_path", "scheme")}
    seen["raw_path"] = scope["raw_path"].decode()
    seen["query_string"] = scope["query_string"].decode()
    seen["body"] = body.decode()
    seen["path_params"] = scope.get("path_params")
    payload = json.dumps(seen).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def wsgi_app(environ: dict[str, Any], start_response: Any) -> Any:
    path = environ["PATH_INFO"]
    if path == "/stream":
        start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8")])
        return iter([b"one ", b"two ", b"three"])
    if path == "/boom":
        raise RuntimeError("wsgi failure")
    keys = (
        "REQUEST_METHOD",
        "SCRIPT_NAME",
        "PATH_INFO",
        "QUERY_STRING",
        "CONTENT_TYPE",
        "CONTENT_LENGTH",
        "HTTP_X_TOKEN",
        "wsgi.url_scheme",
        "SERVER_NAME",
    )
    seen = {k: environ.get(k) for k in keys}
    seen["body"] = environ["wsgi.input"].read().decode()
    data = json.dumps(seen).encode()
    start_response(
        "202 Accepted", [("Content-Type", "application/json"), ("Content-Length", str(len(data))), ("X-Wsgi", "yes")]
    )
    return [data]


def _wsgi_middleware(fw: Any) -> Any:
    with warnings.catch_warnings():  # Starlette's copy is deprecated (a2wsgi is its suggested replacement)
        warnings.simplefilter("ignore")
        return importlib.import_module(f"{fw.__name__}.middleware.wsgi").WSGIMiddleware


def mount_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()

    @app.get("/main", name="main_route")
    async def main(request: fw.Request) -> Any:
        return {
            "main": True,
            "sub": str(request.url_for("read_item", item_id=3)),
            "named": str(request.url_for("starlette:hello", name="y")),
        }

    app.mount("/sub", fastapi_sub())
    app.mount("/star", starlette_sub(), name="starlette")
    app.mount("/scope", scope_app)
    app.mount("/legacy", _wsgi_middleware(fw)(wsgi_app))
    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"mount": mount_app})


def row(method: str, url: str, gap: str | None = None, **kwargs: Any) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(method, url, gap, kwargs, id=f"mount {method} {url}", marks=marks)


ROWS = [
    row("GET", "/main"),
    row("GET", "/sub/"),
    row("GET", "/sub"),
    row("POST", "/sub"),
    row("GET", "/sub?x=1"),
    row("GET", "/sub/items/5?q=tea"),
    row("GET", "/sub/items/five"),
    row("POST", "/sub/items", json={"name": "tea", "price": 2.5}),
    row("POST", "/sub/items", json={"name": "tea"}),
    row("GET", "/sub/items"),
    row("DELETE", "/sub/items/5"),
    row("GET", "/sub/nowhere"),
    row("GET", "/sub/fail"),
    row("GET", "/sub/boom"),
    row("GET", "/sub/openapi.json"),
    row("GET", "/sub/docs"),
    row("GET", "/sub/redoc"),
    row("GET", "/star/hello/ann"),
    row("GET", "/star/text"),
    row("GET", "/star/missing"),
    row("GET", "/scope/a/b?c=d"),
    row("PUT", "/scope/x", content=b"payload", headers={"content-type": "text/plain"}),
    row("GET", "/scope/"),
    row("GET", "/legacy/some/path?x=1", headers={"x-token": "t"}),
    row("POST", "/legacy/form", content=b"a=1&b=2", headers={"content-type": "application/x-www-form-urlencoded"}),
    row("GET", "/legacy/stream"),
    row("GET", "/legacy/boom"),
    row("GET", "/legacy"),
    row("GET", "/nothing"),
]


@pytest.mark.parametrize(("method", "url", "gap", "kwargs"), ROWS)
def test_same_answer(
    pair: Any, request: pytest.FixtureRequest, method: str, url: str, gap: str | None, kwargs: dict[str, Any]
) -> None:
    got, expected = exchange(pair, "mount", method, url, kwargs)
    diffs = compare(got, expected)
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)


def test_websocket_through_a_mount() -> None:
    answers = {}
    for fw in (slipstream, fastapi):
        app = mount_app(fw)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client, client.websocket_connect("/star/ws") as ws:
            first = ws.receive_json()
            ws.send_text("shout")
            answers[fw.__name__] = (first, ws.receive_text())
    assert answers["slipstream"] == answers["fastapi"] == ({"root_path": "/star", "path": "/star/ws"}, "SHOUT")


def test_server_exceptions_of_a_mounted_app_reach_the_test() -> None:
    """raise_server_exceptions=True (the default): the mounted app's exception is raised in the test, in both."""
    for fw in (slipstream, fastapi):
        client = slipstream.TestClient(mount_app(fw)) if fw is slipstream else FastAPIClient(mount_app(fw))
        with client, pytest.raises(RuntimeError, match="sub-application failure"):
            client.get("/sub/boom")


def test_url_path_for_reaches_into_mounts() -> None:
    for fw in (slipstream, fastapi):
        app = mount_app(fw)
        assert str(app.url_path_for("read_item", item_id=9)) == "/sub/items/9"
        assert str(app.url_path_for("starlette:hello", name="z")) == "/star/hello/z"
