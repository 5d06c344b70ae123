"""FastAPI vs Slipstream with a TestClient on `base_url="https://testserver"` (FastAPI's "Behind a Proxy" and
"HTTPS" advanced pages, as tests write them): the scheme the app sees (request.url, base_url, url_for, the
scope), HTTPSRedirectMiddleware (nothing to redirect under https; from http, redirected and followed to https),
secure cookies kept by the jar and sent back only over https, the scheme a mounted ASGI app and a WSGI app
get, and a WebSocket's scheme (ws for a relative URL, wss for a wss:// one, as Starlette's client). Our TestClient talks plain HTTP to its server; an https:// request reaches the app as https.

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

from .diff_support import Outcome, build_request, compare, copy_route_class, record


def _wsgi(environ: dict[str, Any], start_response: Any) -> Any:
    data = json.dumps({"url_scheme": environ["wsgi.url_scheme"]}).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
    return [data]


async def _asgi(scope: dict[str, Any], receive: Any, send: Any) -> None:
    payload = json.dumps({"scheme": scope["scheme"], "server": list(scope["server"] or [])}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def https_app(fw: Any, redirect: bool = False, copy_request: bool = False) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    if copy_request:  # FastAPI's "Custom Request and APIRoute class": the copy keeps the scheme
        app.router.route_class = copy_route_class(fw)
    if redirect:
        module = importlib.import_module(f"{fw.__name__}.middleware.httpsredirect")
        app.add_middleware(module.HTTPSRedirectMiddleware)

    @app.get("/where/{item_id}", name="where")
    async def where(item_id: int, request: fw.Request) -> Any:
        return {
            "url": str(request.url),
            "base_url": str(request.base_url),
            "scheme": request.url.scheme,
            "is_secure": request.url.is_secure,
            "url_for": str(request.url_for("where", item_id=item_id + 1)),
            "scope_scheme": request.scope["scheme"],
            "server": list(request.scope["server"]),
        }

    @app.get("/login")
    async def login(response: fw.Response) -> Any:
        response.set_cookie("session", "s1", secure=True, httponly=True)
        response.set_cookie("plain", "p1")
        return {"ok": True}

    @app.get("/cookies")
    async def cookies(request: fw.Request) -> Any:
        return dict(request.cookies)

    @app.websocket("/ws")
    async def ws_where(websocket: fw.WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json({"url": str(websocket.url), "scheme": websocket.scope["scheme"],
                                   "is_secure": websocket.url.is_secure})
        await websocket.close()

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Starlette's WSGIMiddleware is deprecated
        wsgi = importlib.import_module(f"{fw.__name__}.middleware.wsgi").WSGIMiddleware
    app.mount("/wsgi", wsgi(_wsgi))
    app.mount("/asgi", _asgi)
    return app


APPS: dict[str, Callable[[Any], Any]] = {"plain": https_app, "redirect": lambda fw: https_app(fw, redirect=True),
                                         "copied": lambda fw: https_app(fw, copy_request=True)}


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str, str, bool], tuple[Any, Any]]]:
    built: dict[tuple[str, str, bool], tuple[Any, Any]] = {}

    def get(app: str, base_url: str, follow: bool) -> tuple[Any, Any]:
        key = (app, base_url, follow)
        if key not in built:
            options = {"base_url": base_url, "raise_server_exceptions": False, "follow_redirects": follow}
            built[key] = (
                slipstream.TestClient(APPS[app](slipstream), **options),
                FastAPIClient(APPS[app](fastapi), **options),
            )
        return built[key]

    yield get
    for ours, theirs in built.values():
        ours.close()
        theirs.close()


def row(app: str, base_url: str, url: str, follow: bool = False, gap: str | None = None) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    return pytest.param(app, base_url, url, follow, gap, id=f"{app} {base_url} {url} follow={follow}", marks=marks)


HTTPS, HTTP = "https://testserver", "http://testserver"
ROWS = [
    row("plain", HTTPS, "/where/1?q=x"),
    row("copied", HTTPS, "/where/1?q=x"),
    row("copied", HTTPS, "https://testserver:8443/where/2"),
    row("copied", HTTP, "/where/3"),
    row("plain", HTTPS, "https://testserver:8443/where/2"),
    row("plain", HTTPS, "http://testserver/where/3"),
    row("plain", HTTP, "https://example.com/where/4"),
    row("plain", HTTPS, "/wsgi/"),
    row("plain", HTTPS, "/asgi/"),
    row("plain", HTTPS, "/where/x"),
    row("redirect", HTTPS, "/where/5"),
    row("redirect", HTTP, "/where/6"),
    row("redirect", HTTP, "/where/7", follow=True),
    row("redirect", HTTP, "http://testserver:8080/where/8"),
]


@pytest.mark.parametrize(("app", "base_url", "url", "follow", "gap"), ROWS)
def test_same_answer(
    pair: Any, request: pytest.FixtureRequest, app: str, base_url: str, url: str, follow: bool, gap: str | None
) -> None:
    ours, theirs = pair(app, base_url, follow)
    _body, headers = build_request({})
    got, expected = ours.get(url, headers=headers), theirs.get(url, headers=headers)
    diffs = compare(got, expected)
    if str(got.url) != str(expected.url):
        diffs.append(f"final url: slipstream {got.url}, fastapi {expected.url}")
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize("url", ["/ws", "wss://testserver/ws", "ws://testserver/ws", "wss://example.com:8443/ws"])
def test_same_websocket_scheme(pair: Any, url: str) -> None:
    """The WebSocket's scheme and URL under a TestClient on an https:// base_url: as Starlette's client, a relative
    URL is ws://testserver and a wss:// URL reaches the handler as wss."""
    ours, theirs = pair("plain", HTTPS, False)
    seen = []
    for client in (ours, theirs):
        with client.websocket_connect(url) as ws:
            seen.append(ws.receive_json())
    diffs = [] if seen[0] == seen[1] else [f"websocket: slipstream {seen[0]}, fastapi {seen[1]}"]
    record(Outcome(f"websocket scheme {url}", None, diffs))
    assert not diffs, diffs[0]


def test_secure_cookies_travel_only_over_https() -> None:
    seen = {}
    for fw in (slipstream, fastapi):
        app = https_app(fw)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client:
            client.get("https://testserver/login")
            seen[fw.__name__] = (
                client.get("https://testserver/cookies").json(),
                client.get("http://testserver/cookies").json(),
            )
    assert seen["slipstream"] == seen["fastapi"] == ({"session": "s1", "plain": "p1"}, {"plain": "p1"})


def test_the_scheme_marker_is_the_test_servers_only() -> None:
    """The TestClient marks an https:// request with a header its own server reads and removes: the app never
    sees it, nor does the response's request; a server not built by a TestClient treats it as any header."""
    app = slipstream.App()

    @app.get("/seen")
    async def seen(request: slipstream.Request) -> Any:
        return {"scheme": request.url.scheme, "headers": sorted(request.headers.keys())}

    marker = "x-slipstream-testclient-scheme"
    with slipstream.TestClient(app, base_url="https://testserver") as client:
        response = client.get("/seen")
        assert response.json()["scheme"] == "https"
        assert marker not in response.json()["headers"]
        assert marker not in response.request.headers
    with slipstream.TestClient(app, testclient_scheme=False) as client:
        answer = client.get("/seen", headers={marker: "https"}).json()
        assert answer["scheme"] == "http"
        assert marker in answer["headers"]
