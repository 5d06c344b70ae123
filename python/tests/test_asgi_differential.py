"""FastAPI, Starlette and bare ASGI apps served unchanged by uvicorn and by `slipstream asgi` (subprocesses, real
sockets): the same requests must get the same status, headers (less date, server, x-request-id and the body's
framing) and body bytes, and the same WebSocket transcripts. Each app's match rate is printed."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator

import pytest

sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/asgi_apps")
from harness import Http, Server, Ws, compare, ws_transcript

pytest.importorskip("uvicorn")
pytest.importorskip("fastapi")
pytest.importorskip("websockets")

FASTAPI_CASES = [
    Http("root", "GET", "/"),
    Http("hello", "GET", "/hello"),
    Http("sync handler", "GET", "/sync?n=7"),
    Http("path and query", "GET", "/users/42/items?limit=5&q=abc"),
    Http("query 422", "GET", "/users/42/items?limit=0"),
    Http("path 422", "GET", "/users/abc/items"),
    Http("path converter", "GET", "/files/a/b/c.txt"),
    Http("percent-encoded path", "GET", "/files/with%20space/%C3%A9t%C3%A9"),
    Http("json body 201", "POST", "/items", {"json": {"name": "pen", "price": 1.5, "tags": ["a"]}}),
    Http("json body 422", "POST", "/items", {"json": {"name": "pen", "price": -1}}),
    Http("malformed json 422", "POST", "/items", {"content": b"{not json", "headers": {"content-type": "application/json"}}),
    Http("put with header", "PUT", "/items/3", {"json": {"name": "x", "price": 2}, "headers": {"x-token": "t0k"}}),
    Http("delete 204", "DELETE", "/items/3"),
    Http("echo json", "POST", "/echo", {"json": {"nested": {"list": [1, 2, 3]}, "unicode": "żółw"}}),
    Http("raw body", "POST", "/raw", {"content": b"\x00\x01binary" * 100}),
    Http("request headers and cookies", "GET", "/headers", {"headers": {"x-custom": "v1", "cookie": "session=s1"}}),
    Http("set-cookie", "GET", "/cookie"),
    Http("redirect", "GET", "/redirect", {"follow_redirects": False}),
    Http("HTTPException with headers", "GET", "/http-error"),
    Http("custom exception handler", "GET", "/teapot"),
    Http("unhandled exception 500", "GET", "/crash"),
    Http("404", "GET", "/does/not/exist"),
    Http("405", "POST", "/hello"),
    Http("HEAD on a GET route", "HEAD", "/hello"),
    Http("OPTIONS", "OPTIONS", "/hello"),
    Http("streaming", "GET", "/stream?n=6"),
    Http("streaming from a sync iterator", "GET", "/stream-sync"),
    Http("file response", "GET", "/file"),
    Http("large body", "GET", "/large"),
    Http("lifespan state", "GET", "/state"),
    Http("background task queued", "GET", "/background?key=k1"),
    Http("background task ran", "GET", "/background-result?key=k1"),
    Http("openapi document", "GET", "/openapi.json"),
    Http("docs page", "GET", "/docs"),
    Ws("websocket echo and close code", "/ws/echo", ws_transcript(["one", "two", "bye"])),
    Ws("websocket path, query, subprotocol", "/ws/json/lobby?token=xyz",
       ws_transcript([json.dumps({"a": 1})], subprotocols=["chat"], read=0)),
    Ws("websocket closed before accept", "/ws/refuse", ws_transcript([])),
    Http("route of an included router", "GET", "/v2/rooms/blue"),
    Ws("websocket of an included router", "/v2/rooms/blue/ws", ws_transcript([], read=0)),
]

STARLETTE_CASES = [
    Http("html", "GET", "/"),
    Http("path converter", "GET", "/users/12?q=a&q=b"),
    Http("path converter miss", "GET", "/users/abc"),
    Http("urlencoded form", "POST", "/form", {"data": {"a": "1", "b": "two"}}),
    Http("multipart form", "POST", "/form", {"data": {"field": "v"}, "files": {"up": ("a.txt", b"abc", "text/plain")}}),
    Http("request stream", "POST", "/upload-size", {"content": b"y" * 200_000}),
    Http("lifespan state", "GET", "/state"),
    Http("event stream", "GET", "/stream"),
    Http("file with filename", "GET", "/file"),
    Http("background task queued", "GET", "/background?key=s1"),
    Http("background task ran", "GET", "/background-result?key=s1"),
    Http("HTTPException handler", "GET", "/missing"),
    Http("unhandled exception 500", "GET", "/boom"),
    Http("no route", "GET", "/nowhere"),
    Http("method not allowed", "DELETE", "/"),
    Http("204", "GET", "/empty"),
    Http("mount", "GET", "/sub/hello"),
    Http("HEAD of a whole body", "HEAD", "/"),
    Http("HEAD of a streamed body", "HEAD", "/stream"),
    Http("HEAD of a file", "HEAD", "/file"),
    Http("range of a file", "GET", "/file", {"headers": {"range": "bytes=6-9"}}),
    Ws("websocket echo, client closes", "/ws", ws_transcript(["a", "bc"], client_closes=True)),
    Ws("websocket bytes and close code", "/ws/bytes", ws_transcript([b"\x01\x02\x03"], read=0)),
]

RAW_CASES = [
    Http("scope", "GET", "/scope?a=1&b=%20x", {"headers": {"x-one": "1", "X-Two": "2"}}),
    Http("scope of an encoded path", "GET", "/scope/caf%C3%A9/a%20b"),
    Http("request body", "POST", "/echo", {"content": b"z" * 70_000}),
    Http("chunked request body", "POST", "/echo", {"content": lambda: iter([b"ab", b"cd", b"ef"])}),
    Http("raise before start: 500", "GET", "/raise-before"),
    Http("raise after start: connection cut", "GET", "/raise-after-start"),
    Http("raise mid-body: connection cut", "GET", "/raise-mid-body"),
    Http("return without a response: 500", "GET", "/no-response"),
    Http("send after completion", "GET", "/send-twice"),
    Http("send after completion raised", "GET", "/send-twice-result"),
    Http("streamed chunks, repeated header", "GET", "/chunks"),
    Http("unknown path", "PATCH", "/x"),
    Ws("websocket accept headers and close code", "/ws/echo",
       ws_transcript(["hi", "close"], headers=["x-accepted"])),
    Ws("websocket denial response", "/ws/deny", ws_transcript([])),
    Ws("websocket app raising before accept", "/ws/raise", ws_transcript([])),
    Ws("websocket scope", "/ws/scope?room=1", ws_transcript([], subprotocols=["a", "b"])),
]

RAW_WS = ["--ws-path", "/ws/echo", "--ws-path", "/ws/deny", "--ws-path", "/ws/raise", "--ws-path", "/ws/scope"]


@pytest.fixture(scope="module")
def servers(request: pytest.FixtureRequest) -> Iterator[dict[str, tuple[Server, Server]]]:
    started: dict[str, tuple[Server, Server]] = {}
    yield started
    for left, right in started.values():
        left.close()
        right.close()


def _pair(servers: dict[str, tuple[Server, Server]], module: str, extra: list[str] | None = None,
          both: list[str] | None = None) -> tuple[Server, Server]:
    key = " ".join([module, *(both or [])])
    if key not in servers:
        uvicorn = Server("uvicorn", f"{module}:app", both or []).start()
        ours = Server("slipstream", f"{module}:app", [*(extra or []), *(both or [])]).start()
        servers[key] = (uvicorn, ours)
    return servers[key]


@pytest.mark.parametrize(("module", "cases", "extra"), [
    ("fastapi_app", FASTAPI_CASES, None),
    ("starlette_app", STARLETTE_CASES, None),
    ("raw_app", RAW_CASES, RAW_WS),
], ids=["fastapi", "starlette", "raw-asgi"])
def test_same_answers_as_uvicorn(servers: dict[str, tuple[Server, Server]], module: str, cases: list[Http | Ws],
                                 extra: list[str] | None, capsys: pytest.CaptureFixture[str]) -> None:
    uvicorn, ours = _pair(servers, module, extra)
    matched, mismatches = compare(cases, uvicorn, ours)
    with capsys.disabled():
        print(f"\n{module}: {len(matched)}/{len(cases)} cases match uvicorn ({100 * len(matched) / len(cases):.0f}%)")
    assert not mismatches, "\n".join(mismatches) + f"\n--- slipstream log:\n{ours.output()[-3000:]}"


ROOT_PATH_CASES = [
    Http("scope under a root path", "GET", "/scope/x%20y/z?q=1"),
    Http("route under a root path", "POST", "/echo", {"content": b"rooted"}),
]


def test_same_scope_under_a_root_path(servers: dict[str, tuple[Server, Server]]) -> None:
    uvicorn, ours = _pair(servers, "raw_app", both=["--root-path", "/api"])
    _matched, mismatches = compare(ROOT_PATH_CASES, uvicorn, ours)
    assert not mismatches, "\n".join(mismatches)


def test_raw_path_keeps_an_escaped_slash(servers: dict[str, tuple[Server, Server]]) -> None:
    uvicorn, ours = _pair(servers, "raw_app", both=["--root-path", "/api"])
    _matched, mismatches = compare([Http("escaped slash", "GET", "/scope/x%2Fy")], uvicorn, ours)
    assert not mismatches, "\n".join(mismatches)
