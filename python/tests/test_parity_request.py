"""The Request's Starlette API (client as Address, base_url, url_for/url_path_for, scope, stream(), receive(),
is_disconnected()) and the TrustedHost / HTTPSRedirect / GZip middleware: behaviour the differential suite cannot
reach (root_path, https, mounts, refused options, the wire)."""

from __future__ import annotations

import http.client
from pathlib import Path
from typing import Any

import pytest
from slipstream import App, Request, StaticFiles, TestClient
from slipstream.datastructures import URL, Address, URLPath
from slipstream.exceptions import NoMatchFound
from slipstream.middleware.gzip import GZipMiddleware
from slipstream.middleware.httpsredirect import HTTPSRedirectMiddleware
from slipstream.middleware.trustedhost import TrustedHostMiddleware, parse_host


def test_url_parts_and_replace() -> None:
    url = URL("http", "example.com:8080", "/a/b", "x=1")
    assert (url.hostname, url.port, url.is_secure) == ("example.com", 8080, False)
    assert str(url.replace(scheme="https", netloc="www.example.com")) == "https://www.example.com/a/b?x=1"
    assert str(url.replace(port=9000)) == "http://example.com:9000/a/b?x=1"
    v6 = URL("https", "[::1]:443", "/", "")
    assert (v6.hostname, v6.port, v6.is_secure) == ("::1", 443, True)
    assert URL("http", "h", "/").port is None
    with pytest.raises(TypeError):
        url.replace(fragment="x")


def test_url_path_absolute() -> None:
    path = URLPath("/items/3")
    assert path == "/items/3" and isinstance(path, str)
    assert str(path.make_absolute_url("https://h.example/api/")) == "https://h.example/api/items/3"
    ws = URLPath("/ws", protocol="websocket")
    assert str(ws.make_absolute_url(URL("https", "h", "/", ""))) == "wss://h/ws"
    assert Address("1.2.3.4", 5) == ("1.2.3.4", 5) and Address("1.2.3.4", 5).port == 5


@pytest.mark.parametrize(("header", "host"), [
    ("example.com", "example.com"), ("example.com:80", "example.com"), ("[::1]:8000", "[::1]"), ("[::1]", "[::1]"),
    ("bad host", None), ("a:b", None), ("[zz::1]", None), ("[::1", None), (None, None), ("", None),
])
def test_parse_host(header: str | None, host: str | None) -> None:
    assert parse_host(header) == host


def test_trusted_host_refuses_bad_patterns() -> None:
    for pattern in ("ex*ample.com", "*example.com", "a.*.com"):
        with pytest.raises(AssertionError, match="Domain wildcard"):
            TrustedHostMiddleware(None, allowed_hosts=[pattern])
    with pytest.raises(TypeError):
        TrustedHostMiddleware(None, allowed_hosts="example.com")  # type: ignore[arg-type]


def test_gzip_options() -> None:
    options = GZipMiddleware(None, minimum_size=10, compresslevel=6).server_options()
    assert options["compression_encodings"] == "gzip" and options["gzip_level"] == 6
    assert options["compression_min_size"] == 10
    for bad in ({"minimum_size": -1}, {"compresslevel": 0}, {"compresslevel": 10}, {"minimum_size": True}):
        with pytest.raises(ValueError):
            GZipMiddleware(None, **bad)  # type: ignore[arg-type]
    app = App()
    app.add_middleware(GZipMiddleware)
    with pytest.raises(ValueError, match="already added"):
        app.add_middleware(GZipMiddleware)
    clash = App(gzip_level=3)
    clash.add_middleware(GZipMiddleware)
    with pytest.raises(ValueError, match="configured twice"):
        clash.build()


def urls_app(tmp_path: Path | None = None, **options: Any) -> App:
    app = App(**options)

    @app.get("/items/{item_id}", name="item")
    def item(item_id: int) -> int:
        return item_id

    @app.get("/urls")
    def urls(request: Request) -> dict[str, Any]:
        out = {"item": str(request.url_for("item", item_id=2)), "base": str(request.base_url),
               "scheme": request.scope["scheme"], "root_path": request.scope["root_path"],
               "client": type(request.client).__name__}
        if tmp_path is not None:
            out["static"] = str(request.url_for("static", path="/css/site.css"))
        return out

    if tmp_path is not None:
        app.mount("/static", StaticFiles(directory=tmp_path), name="static")
    return app


def test_url_for_behind_root_path() -> None:
    with TestClient(urls_app(root_path="/api")) as client:
        assert client.get("/urls").json() == {
            "item": "http://testserver/api/items/2", "base": "http://testserver/api/", "scheme": "http",
            "root_path": "/api", "client": "Address"}


def test_url_for_https_from_a_trusted_proxy() -> None:
    with TestClient(urls_app(proxy_headers=True)) as client:
        got = client.get("/urls", headers={"x-forwarded-proto": "https", "x-forwarded-for": "9.9.9.9"}).json()
        assert got["item"] == "https://testserver/items/2" and got["scheme"] == "https"
        assert got["client"] == "Address"


def test_url_for_a_static_mount(tmp_path: Path) -> None:
    app = urls_app(tmp_path)
    assert app.url_path_for("static", path="/a/b.css") == "/static/a/b.css"
    with pytest.raises(NoMatchFound):
        app.url_path_for("static")
    with TestClient(app) as client:
        assert client.get("/urls").json()["static"] == "http://testserver/static/css/site.css"


def test_url_path_for_convertors_and_routers() -> None:
    from slipstream import APIRouter

    app = App()
    router = APIRouter(prefix="/r")

    @router.get("/n/{n:int}")
    def by_number(n: int) -> int:
        return n

    app.include_router(router)
    assert app.url_path_for("by_number", n=4) == "/r/n/4"
    assert app.routes[0].name == "by_number"
    with pytest.raises(NoMatchFound, match='No route exists for name "by_number" and params "n".'):
        app.url_path_for("by_number", n=-1)
    with pytest.raises(NoMatchFound):
        app.url_path_for("by_number")


def test_request_body_views() -> None:
    app = App()

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, Any]:
        first = await request.receive()
        second = await request.receive()
        chunks = [c async for c in request.stream()]
        return {"first": [first["type"], first["body"].decode(), first["more_body"]], "second": second["type"],
                "chunks": [c.decode() for c in chunks], "disconnected": await request.is_disconnected(),
                "server": list(request.scope["server"]), "route": request.scope["route"].path}

    with TestClient(app) as client:
        assert client.post("/echo", content=b"data").json() == {
            "first": ["http.request", "data", False], "second": "http.disconnect", "chunks": ["data", ""],
            "disconnected": False, "server": ["testserver", 80], "route": "/echo"}


def test_starlette_classes_are_accepted() -> None:
    starlette = pytest.importorskip("starlette.middleware.trustedhost")
    from starlette.middleware.gzip import GZipMiddleware as StarletteGZip
    from starlette.middleware.httpsredirect import HTTPSRedirectMiddleware as StarletteRedirect

    app = App()
    app.add_middleware(starlette.TrustedHostMiddleware, allowed_hosts=["testserver"])
    app.add_middleware(StarletteGZip, minimum_size=5)
    assert isinstance(app.user_middleware[0], TrustedHostMiddleware)
    assert app.compression_server_options()["compression_min_size"] == 5
    other = App()
    other.add_middleware(StarletteRedirect)
    assert isinstance(other.user_middleware[0], HTTPSRedirectMiddleware)

    @app.get("/")
    def root() -> str:
        return "ok"

    with TestClient(app) as client:
        assert client.get("/").text == '"ok"'
        assert client.get("/", headers={"host": "other"}).status_code == 400


def test_https_redirect_not_for_https() -> None:
    app = App(proxy_headers=True)
    app.add_middleware(HTTPSRedirectMiddleware)

    @app.get("/x")
    def x() -> str:
        return "x"

    with TestClient(app, follow_redirects=False) as client:
        plain = client.get("/x?a=1", headers={"host": "h.example:8080"})
        assert plain.status_code == 307 and plain.headers["location"] == "https://h.example:8080/x?a=1"
        assert client.get("/x", headers={"x-forwarded-proto": "https"}).json() == "x"


def test_gzip_threshold_on_the_wire() -> None:
    app = App()
    app.add_middleware(GZipMiddleware, minimum_size=100)

    @app.get("/n/{n}")
    def body(n: int) -> str:
        return "a" * n

    with TestClient(app) as client:
        conn = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
        for n, coded in ((50, None), (200, "gzip")):
            conn.request("GET", f"/n/{n}", headers={"accept-encoding": "gzip, br, zstd"})
            response = conn.getresponse()
            response.read()
            assert response.getheader("content-encoding") == coded
        conn.close()


def test_middleware_entries_of_the_app() -> None:
    from slipstream.middleware import Middleware

    app = App(middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=["testserver"]),
                          Middleware(GZipMiddleware, minimum_size=1, compresslevel=1),
                          Middleware(HTTPSRedirectMiddleware)])
    assert [type(m).__name__ for m in app.user_middleware] == ["TrustedHostMiddleware", "HTTPSRedirectMiddleware"]
    assert app.compression_server_options()["gzip_level"] == 1

    @app.get("/")
    def root() -> str:
        return "ok"

    with TestClient(app, follow_redirects=False) as client:
        assert client.get("/", headers={"host": "elsewhere"}).status_code == 400  # the outer one answers first
        redirect = client.get("/")
        assert (redirect.status_code, redirect.headers["location"]) == (307, "https://testserver/")


def test_websocket_client_is_an_address() -> None:
    from slipstream import App, TestClient, WebSocket
    from slipstream.datastructures import Address

    app = App()

    @app.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        client = websocket.client
        assert isinstance(client, Address)
        await websocket.send_json({"host": client.host, "port": client.port, "scope": list(websocket.scope["client"])})
        await websocket.close()

    with TestClient(app) as tc, tc.websocket_connect("/ws") as conn:
        got = conn.receive_json()
    assert got["host"] == "127.0.0.1" and got["port"] > 0 and got["scope"] == [got["host"], got["port"]]
