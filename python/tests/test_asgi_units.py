"""slipstream.asgi's pure parts, without a server: WebSocket path discovery, raw paths, response headers."""

from __future__ import annotations

import sys

import pytest
from slipstream._asgi.discover import engine_pattern, find_websocket_paths
from slipstream._asgi.http import raw_path_of, split_headers
from slipstream.asgi import is_asgi3

fastapi = pytest.importorskip("fastapi")
starlette_routing = pytest.importorskip("starlette.routing")


def test_websocket_paths_of_fastapi_routers_mounts_and_middleware() -> None:
    from starlette.applications import Starlette
    from starlette.middleware.cors import CORSMiddleware

    app = fastapi.FastAPI()
    router = fastapi.APIRouter()

    @router.websocket("/chat/{room}")
    async def chat(websocket: fastapi.WebSocket, room: str) -> None: ...

    nested = fastapi.APIRouter()

    @nested.websocket("/deep")
    async def deep(websocket: fastapi.WebSocket) -> None: ...

    router.include_router(nested, prefix="/nested")

    @app.websocket("/items/{item_id:int}/feed")
    async def feed(websocket: fastapi.WebSocket, item_id: int) -> None: ...

    @app.get("/ws-looking-but-http")
    async def page() -> dict[str, str]:
        return {}

    app.include_router(router, prefix="/v1")

    async def ws(websocket: object) -> None: ...

    sub = Starlette(routes=[starlette_routing.WebSocketRoute("/live", ws),
                            starlette_routing.WebSocketRoute("/by/{key:uuid}/{rest:path}", ws)])
    app.mount("/sub", sub)
    wrapped = CORSMiddleware(app, allow_origins=["*"])
    assert find_websocket_paths(wrapped) == ["/items/{item_id:int}/feed", "/v1/chat/{room}", "/v1/nested/deep",
                                        "/sub/live",
                                        "/sub/by/{key:uuid}/{rest:path}"]


def test_a_convertor_the_engine_does_not_know_becomes_a_plain_parameter() -> None:
    assert engine_pattern("/t/{slug:slugish}/{n:int}") == "/t/{slug}/{n:int}"


def test_an_app_without_routes_has_no_websocket_paths() -> None:
    async def app(scope: object, receive: object, send: object) -> None: ...

    assert find_websocket_paths(app) == []
    assert is_asgi3(app)
    assert not is_asgi3("module:app")


@pytest.mark.parametrize(("path", "raw"), [
    ("/plain/path-1_2.3~", b"/plain/path-1_2.3~"),
    ("/a b", b"/a%20b"),
    ("/caf\u00e9", b"/caf%C3%A9"),
    ("/q?x", b"/q%3Fx"),
    ("/keep:@!$&'()*+,;=", b"/keep:@!$&'()*+,;="),
])
def test_raw_path_is_the_decoded_path_escaped_again(path: str, raw: bytes) -> None:
    assert raw_path_of(path) == raw


def test_split_headers_takes_the_content_type_apart_and_drops_the_framing() -> None:
    content_type, headers = split_headers([
        (b"Content-Type", b"text/plain"), (b"content-length", b"3"), (b"X-A", b"1"), (b"transfer-encoding", b"chunked"),
        (b"x-a", b"2"), (b"connection", b"close"), (b"set-cookie", b"k=\xe9"),
    ])
    assert content_type == "text/plain"
    assert headers == (("x-a", "1"), ("x-a", "2"), ("set-cookie", "k=\u00e9"))


def test_declared_length_reads_the_content_length_header() -> None:
    from slipstream._asgi.http import declared_length

    assert declared_length([(b"content-type", b"text/plain"), (b"Content-Length", b"18")]) == 18
    assert declared_length([(b"content-length", b"x")]) == 0
    assert declared_length([]) == 0


def test_the_loop_choice(monkeypatch: pytest.MonkeyPatch) -> None:
    from slipstream.asgi.server import resolve_loop

    assert resolve_loop("asyncio") == "asyncio"
    with pytest.raises(ValueError, match="loop must be 'auto', 'asyncio' or 'uvloop'"):
        resolve_loop("trio")
    monkeypatch.setitem(sys.modules, "uvloop", None)  # not installed
    assert resolve_loop("auto") == "asyncio"
    with pytest.raises(ValueError, match="needs the uvloop package"):
        resolve_loop("uvloop")


def test_response_headers_stay_bytes_for_the_server() -> None:
    from slipstream._asgi.http import split_raw_headers

    raw = [(b"Content-Type", b"text/plain; charset=\xe9"), (b"content-length", b"3"), ("X-Str", "v"),
           (b"set-cookie", b"a=1"), (b"set-cookie", b"b=2"), (b"connection", b"close")]
    assert split_raw_headers(raw) == (b"text/plain; charset=\xe9",
                                      ((b"x-str", b"v"), (b"set-cookie", b"a=1"), (b"set-cookie", b"b=2")))
