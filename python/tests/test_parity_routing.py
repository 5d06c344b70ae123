"""FastAPI's routing misses: redirect_slashes (307 to the other form of the path) and HEAD on a GET-only route
(405); with and without HTTP middleware, through TestClient and a raw socket."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from slipstream import App, TestClient


def build(**options: Any) -> App:
    app = App(**options)

    @app.get("/items")
    def items() -> list[int]:
        return [1]

    @app.post("/items")
    def add() -> str:
        return "added"

    @app.get("/folder/")
    def folder() -> str:
        return "folder"

    @app.get("/users/{user_id}")
    def user(user_id: int) -> int:
        return user_id

    @app.get("/users/me/")
    def me() -> str:
        return "me"

    @app.get("/files/{rest:path}")
    def files(rest: str) -> str:
        return rest

    @app.api_route("/both", methods=["GET", "HEAD"])
    def both() -> str:
        return "both"

    return app


def with_middleware(app: App) -> App:
    @app.middleware("http")
    async def tag(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers["x-mw"] = "1"
        return response

    return app


@pytest.fixture(params=["plain", "middleware"])
def client(request: pytest.FixtureRequest) -> Any:
    app = build() if request.param == "plain" else with_middleware(build())
    with TestClient(app, follow_redirects=False) as c:
        yield c


@pytest.mark.parametrize(("method", "url", "location"), [
    ("GET", "/items/", "http://testserver/items"),
    ("POST", "/items/?a=1&b=2", "http://testserver/items?a=1&b=2"),
    ("DELETE", "/items/", "http://testserver/items"),
    ("GET", "/folder", "http://testserver/folder/"),
    ("PUT", "/folder", "http://testserver/folder/"),
    ("GET", "/users/5/", "http://testserver/users/5"),
    ("GET", "/users/abc/", "http://testserver/users/abc"),
])
def test_redirect_slashes(client: Any, method: str, url: str, location: str) -> None:
    r = client.request(method, url)
    assert (r.status_code, r.headers.get("location"), r.content) == (307, location, b"")
    assert r.headers.get("content-type") is None


@pytest.mark.parametrize(("url", "status", "body"), [
    ("/users/me", 422, None),  # "/users/{user_id}" takes it: no redirect (FastAPI's 422 for an int)
    ("/users/me/", 200, b'"me"'),
    ("/files/a/b/", 200, b'"a/b/"'),
    ("/nothing/", 404, b'{"detail":"Not Found"}'),
])
def test_no_redirect_where_a_route_matches_or_none_would(client: Any, url: str, status: int,
                                                         body: bytes | None) -> None:
    r = client.get(url)
    assert r.status_code == status
    if body is not None:
        assert r.content == body


def test_head_on_a_get_only_route_is_405(client: Any) -> None:
    r = client.head("/items")
    assert (r.status_code, r.headers["allow"], r.headers["content-length"], r.content) == (405, "GET", "31", b"")
    assert client.head("/users/3").status_code == 405
    assert client.head("/both").status_code == 200
    assert client.get("/items").json() == [1]  # the connection stays usable after the bodiless 405


def test_head_405_on_a_raw_socket_has_no_body() -> None:
    with TestClient(build()) as client, socket.create_connection(("127.0.0.1", client.port), timeout=10) as sock:
        sock.sendall(b"HEAD /items HTTP/1.1\r\nHost: x\r\n\r\nGET /items HTTP/1.1\r\nHost: x\r\n\r\n")
        data = b""
        while data.count(b"HTTP/1.1") < 2 or not data.endswith(b"[1]"):
            chunk = sock.recv(65536)
            assert chunk
            data += chunk
        first, second = data.split(b"HTTP/1.1 200", 1)
        assert first.startswith(b"HTTP/1.1 405") and first.endswith(b"\r\n\r\n")
        assert second.endswith(b"[1]")


def test_redirect_slashes_off() -> None:
    for app in (build(redirect_slashes=False), with_middleware(build(redirect_slashes=False))):
        with TestClient(app) as client:
            assert client.get("/items/").status_code == 404
            assert client.get("/folder").status_code == 404


def test_redirect_uses_the_host_header() -> None:
    with TestClient(build(), follow_redirects=False) as client:
        r = client.get("/items/", headers={"host": "example.com:8080"})
        assert r.headers["location"] == "http://example.com:8080/items"
