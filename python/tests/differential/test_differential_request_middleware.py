"""FastAPI vs Slipstream on the Request's Starlette API (client as Address, base_url, url_for / url_path_for,
scope, stream(), receive(), is_disconnected()) and on TrustedHostMiddleware, HTTPSRedirectMiddleware and
GZipMiddleware imported from `<framework>.middleware.*`.

Rows join the session's match rate (diff_support.record) like test_differential.py's. The Request routes answer
JSON views of what the handler saw, leaving out what legitimately differs (the client's address: FastAPI's
TestClient calls itself "testclient", Slipstream's is a real socket).
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's Request, a local.
import gzip
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream

from .diff_support import Outcome, build_request, client_pairs, compare, record


def request_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    Request = fw.Request

    @app.get("/client")
    def client(request: Request) -> dict[str, Any]:
        c = request.client
        return {"type": type(c).__name__, "fields": list(c._fields), "len": len(c),
                "host": isinstance(c.host, str) and c.host == c[0], "port": isinstance(c.port, int) and c.port == c[1]}

    @app.get("/base")
    def base(request: Request) -> dict[str, str]:
        return {"base_url": str(request.base_url), "url": str(request.url)}

    @app.get("/items/{item_id}", name="read_item")
    def item(item_id: int) -> int:
        return item_id

    @app.get("/files/{file_path:path}")
    def get_file(file_path: str) -> str:
        return file_path

    @app.get("/users/{user_id}/posts/{post_id}")
    async def user_post(user_id: str, post_id: int) -> list[Any]:
        return [user_id, post_id]

    @app.websocket("/ws/{room}", name="room_socket")
    async def room(websocket: fw.WebSocket, room: str) -> None:
        await websocket.accept()
        await websocket.close()

    @app.get("/urls")
    def urls(request: Request) -> dict[str, str]:
        return {
            "item": str(request.url_for("read_item", item_id=3)),
            "item_path": app.url_path_for("read_item", item_id="42"),
            "file": str(request.url_for("get_file", file_path="a/b/c.txt")),
            "post": str(request.url_for("user_post", user_id="ann", post_id=7)),
            "ws": str(request.url_for("room_socket", room="lobby")),
            "self": str(request.url_for("urls")),
        }

    @app.get("/urls/missing/{case}")
    def missing(request: Request, case: str) -> dict[str, str]:
        calls = {"name": lambda: request.url_for("nothing"), "params": lambda: request.url_for("read_item"),
                 "extra": lambda: request.url_for("read_item", item_id=1, other=2),
                 "app": lambda: app.url_path_for("read_item", wrong=1)}
        try:
            calls[case]()
        except Exception as exc:  # noqa: BLE001 - the exception's name and message are compared
            return {"error": type(exc).__name__, "message": str(exc)}
        return {"error": ""}

    @app.get("/scope/{thing}")
    def scope(request: Request, thing: str) -> dict[str, Any]:
        s = request.scope
        return {
            "type": s["type"], "http_version": s["http_version"], "method": s["method"], "scheme": s["scheme"],
            "path": s["path"], "raw_path": s["raw_path"].decode(), "root_path": s["root_path"],
            "query_string": s["query_string"].decode(), "server": list(s["server"]),
            "host": [v.decode() for k, v in s["headers"] if k == b"host"],
            "x_custom": [v.decode() for k, v in s["headers"] if k == b"x-custom"],
            "client_is_pair": len(s["client"]) == 2, "app": s["app"] is app, "route_path": s["route"].path,
            "route_name": s["route"].name, "path_params": s["path_params"],
        }

    @app.post("/stream")
    async def stream(request: Request) -> dict[str, Any]:
        chunks = [chunk.decode() async for chunk in request.stream()]
        return {"joined": "".join(chunks), "last_empty": chunks[-1] == ""}

    @app.post("/body-then-stream")
    async def body_then_stream(request: Request) -> dict[str, Any]:
        body = await request.body()
        chunks = [chunk async for chunk in request.stream()]
        return {"body": body.decode(), "stream": b"".join(chunks).decode(), "n": len(chunks)}

    @app.get("/disconnected")
    async def disconnected(request: Request) -> bool:
        return await request.is_disconnected()

    return app


def _middleware(fw: Any, module: str) -> Any:
    return importlib.import_module(f"{fw.__name__}.middleware.{module}")


def _routes(app: Any, fw: Any) -> Any:
    @app.get("/")
    def root() -> dict[str, str]:
        return {"hello": "world"}

    @app.get("/items")
    def items(q: str = "") -> dict[str, str]:
        return {"q": q}

    @app.post("/items")
    def add() -> dict[str, bool]:
        return {"added": True}

    @app.get("/big")
    def big() -> list[dict[str, Any]]:
        return [{"id": i, "name": f"item {i}", "tags": ["a", "b"]} for i in range(200)]

    @app.get("/text")
    def text() -> Any:
        return fw.responses.PlainTextResponse("hello " * 300)

    @app.get("/stream")
    def stream() -> Any:
        return fw.responses.StreamingResponse(iter([b"x" * 400, b"y" * 400]), media_type="text/plain")

    return app


def trusted_app(fw: Any, **options: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    app.add_middleware(_middleware(fw, "trustedhost").TrustedHostMiddleware, **options)
    return _routes(app, fw)


def https_app(fw: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    app.add_middleware(_middleware(fw, "httpsredirect").HTTPSRedirectMiddleware)
    return _routes(app, fw)


def gzip_app(fw: Any, **options: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    app.add_middleware(_middleware(fw, "gzip").GZipMiddleware, **options)
    return _routes(app, fw)


HOSTS = ["example.com", "*.example.org", "www.site.test"]
GAP_HOST = ("deliberate, server/http1: a Host header that is not `host[:port]` is refused by the engine before any "
            "route or middleware (400 problem+json \"invalid Host header\"); TrustedHostMiddleware's own 400 "
            "\"Invalid host header\" answers the well-formed hosts it does not allow")
APPS: dict[str, Callable[[Any], Any]] = {
    "request": request_app,
    "trusted": lambda fw: trusted_app(fw, allowed_hosts=HOSTS),
    "trusted-no-www": lambda fw: trusted_app(fw, allowed_hosts=HOSTS, www_redirect=False),
    "trusted-any": lambda fw: trusted_app(fw),
    "https": https_app,
    "gzip": lambda fw: gzip_app(fw, minimum_size=1000),
    "gzip-default": gzip_app,
}


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs(APPS)


def row(app: str, method: str, url: str, headers: dict[str, str] | None = None, gap: str | None = None,
        **kwargs: Any) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    detail = " ".join(f"{k}={v}" for k, v in (headers or {}).items())
    return pytest.param(app, method, url, gap, {"headers": headers or {}, **kwargs},
                        id=f"{app} {method} {url} {detail}".strip(), marks=marks)


ROWS = [
    row("request", "GET", "/client"),
    row("request", "GET", "/base"),
    row("request", "GET", "/base?x=1", {"host": "api.example.com:8080"}),
    row("request", "GET", "/urls"),
    row("request", "GET", "/urls", {"host": "example.com"}),
    row("request", "GET", "/urls/missing/name"),
    row("request", "GET", "/urls/missing/params"),
    row("request", "GET", "/urls/missing/extra"),
    row("request", "GET", "/urls/missing/app"),
    row("request", "GET", "/scope/abc?x=1&y=2", {"x-custom": "v"}),
    row("request", "POST", "/stream", content=b"hello stream"),
    row("request", "POST", "/stream", content=b""),
    row("request", "POST", "/body-then-stream", content=b"abc"),
    row("request", "GET", "/disconnected"),
    # TrustedHostMiddleware
    row("trusted", "GET", "/", {"host": "example.com"}),
    row("trusted", "GET", "/", {"host": "EXAMPLE.com:8443"}),
    row("trusted", "GET", "/items?q=1", {"host": "api.example.org"}),
    row("trusted", "GET", "/items?q=1", {"host": "example.org"}),
    row("trusted", "GET", "/", {"host": "evil.com"}),
    row("trusted", "GET", "/nothing", {"host": "evil.com"}),
    row("trusted", "GET", "/nothing", {"host": "example.com"}),
    row("trusted", "POST", "/items", {"host": "evil.com"}),
    row("trusted", "GET", "/items?q=a%20b", {"host": "site.test"}),
    row("trusted", "GET", "/", {"host": "site.test:8000"}),
    row("trusted", "GET", "/", {"host": "www.site.test"}),
    row("trusted", "GET", "/", {"host": "bad host"}, gap=GAP_HOST),
    row("trusted", "GET", "/", {"host": "example.com:port"}),
    row("trusted", "GET", "/", {"host": "[::1]:8000"}),
    row("trusted-no-www", "GET", "/", {"host": "site.test"}),
    row("trusted-any", "GET", "/", {"host": "anything.invalid"}),
    # HTTPSRedirectMiddleware
    row("https", "GET", "/items?q=1", {"host": "example.com"}),
    row("https", "GET", "/", {"host": "example.com:80"}),
    row("https", "GET", "/", {"host": "example.com:443"}),
    row("https", "GET", "/items", {"host": "example.com:8080"}),
    row("https", "POST", "/items", {"host": "example.com"}),
    row("https", "GET", "/nothing"),
    # GZipMiddleware (bodies compared decoded; Content-Encoding and Vary compared below)
    row("gzip", "GET", "/big", {"accept-encoding": "gzip"}),
    row("gzip", "GET", "/big", {"accept-encoding": "gzip, deflate, br"}),
    row("gzip", "GET", "/big"),
    row("gzip", "GET", "/items", {"accept-encoding": "gzip"}),
    row("gzip", "GET", "/text", {"accept-encoding": "gzip"}),
    row("gzip-default", "GET", "/text", {"accept-encoding": "gzip"}),
    row("gzip-default", "GET", "/items", {"accept-encoding": "gzip"}),
    row("gzip", "GET", "/stream", {"accept-encoding": "gzip"}),
    row("gzip-default", "GET", "/stream", {"accept-encoding": "gzip"}),
]

_CODING = ("content-encoding", "vary")


def _coding_fields(response: Any) -> dict[str, list[str]]:
    headers = response.headers
    get = headers.get_list if hasattr(headers, "get_list") else headers.getlist
    return {name: list(get(name)) for name in _CODING if list(get(name))}


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROWS)
def test_same_answer(pair: Any, request: pytest.FixtureRequest, app: str, method: str, url: str, gap: str | None,
                     kwargs: dict[str, Any]) -> None:
    ours, theirs = pair(app)
    body, headers = build_request(kwargs)
    expected = theirs.request(method, url, content=body, headers=headers)
    got = ours.request(method, url, content=body, headers=headers)
    diffs = compare(got, expected)
    if app.startswith("gzip"):  # compressed lengths differ by coder; the decoded body and the coding must not
        diffs = [d for d in diffs if not d.startswith("header content-length")]
        a, b = _coding_fields(got), _coding_fields(expected)
        if a != b:
            diffs.append(f"content coding: slipstream {a}, fastapi {b}")
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)


def test_gzip_bytes_on_the_wire() -> None:
    """The engine's gzip is real gzip at the middleware's threshold: a raw client sees the coded body."""
    import http.client

    with slipstream.TestClient(APPS["gzip"](slipstream)) as client:
        conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
        conn.request("GET", "/big", headers={"accept-encoding": "gzip"})
        response = conn.getresponse()
        raw = response.read()
        assert response.getheader("content-encoding") == "gzip"
        assert "accept-encoding" in (response.getheader("vary") or "").lower()
        assert gzip.decompress(raw).startswith(b'[{"id":0')
        conn.request("GET", "/items", headers={"accept-encoding": "gzip"})
        small = conn.getresponse()
        assert small.getheader("content-encoding") is None and small.read() == b'{"q":""}'
        conn.close()
