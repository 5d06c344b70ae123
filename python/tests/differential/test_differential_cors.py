"""FastAPI's CORSMiddleware vs Slipstream's (run by the engine in C++): the same app, options and requests must get
the same status, body and every Access-Control-* and Vary field.

Rows join the session's match rate (diff_support.record) like test_differential.py's; a row with `gap=` is a
deliberate difference, kept as a strict xfail.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel

from .diff_support import Outcome, build_request, client_pairs, compare, record

GAP_500 = ("deliberate, policy/cors: an unhandled exception's 500 carries the CORS fields (the engine adds them to "
           "every answer); Starlette's ServerErrorMiddleware sits outside CORSMiddleware and sends it without them, "
           "so a browser reports a CORS failure instead of the 500")


class Item(BaseModel):
    name: str
    price: float


def cors_app(fw: Any, **options: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()
    cors = importlib.import_module(f"{fw.__name__}.middleware.cors")
    app.add_middleware(cors.CORSMiddleware, **options)
    responses = fw.responses

    @app.get("/items/{item_id}")
    def item(item_id: int) -> dict[str, int]:
        return {"id": item_id}

    @app.post("/items")
    async def create(item: Item) -> Item:
        return item

    @app.get("/missing")
    def missing() -> None:
        raise fw.HTTPException(404, "nope")

    @app.get("/boom")
    def boom() -> None:
        raise RuntimeError("boom")

    @app.get("/vary")
    def vary() -> Any:
        return responses.JSONResponse({"a": 1}, headers={"Vary": "Accept-Language"})

    @app.get("/own-origin")
    def own_origin() -> Any:
        return responses.JSONResponse({"a": 1}, headers={"Access-Control-Allow-Origin": "https://mine.example"})

    @app.get("/stream")
    def stream() -> Any:
        return responses.StreamingResponse(iter([b"a", b"b"]), media_type="application/octet-stream")

    return app


APPS: dict[str, Callable[[Any], Any]] = {
    "listed": lambda fw: cors_app(fw, allow_origins=["https://a.example"], allow_origin_regex=r"https://[a-z]+\.b\.example",
                                  allow_methods=["GET", "POST"], allow_headers=["X-Token"],
                                  expose_headers=["X-Total", "X-Page"], max_age=60),
    "any": lambda fw: cors_app(fw, allow_origins=["*"]),
    "any-credentials": lambda fw: cors_app(fw, allow_origins=["*"], allow_credentials=True, allow_methods=["*"],
                                           allow_headers=["*"]),
    "private": lambda fw: cors_app(fw, allow_origins=["https://a.example"], allow_private_network=True,
                                   allow_credentials=True),
}


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs(APPS)


def row(app: str, method: str, url: str, headers: dict[str, str], gap: str | None = None, **kwargs: Any) -> Any:
    marks = [pytest.mark.xfail(strict=True, reason=gap)] if gap else []
    detail = " ".join(f"{k}={v}" for k, v in headers.items())
    return pytest.param(app, method, url, gap, {"headers": headers, **kwargs}, id=f"cors-{app} {method} {url} {detail}",
                        marks=marks)


A = "https://a.example"
ACRM = "access-control-request-method"
ACRH = "access-control-request-headers"
ACRPN = "access-control-request-private-network"


def preflight(origin: str, method: str, asked: str | None = None, **more: str) -> dict[str, str]:
    headers = {"origin": origin, ACRM: method, **more}
    if asked is not None:
        headers[ACRH] = asked
    return headers


ROWS = [
    # preflights
    row("listed", "OPTIONS", "/items/1", preflight(A, "GET")),
    row("listed", "OPTIONS", "/items", preflight(A, "POST", "x-token, content-type")),
    row("listed", "OPTIONS", "/items", preflight("https://pr.b.example", "POST", "X-TOKEN")),
    row("listed", "OPTIONS", "/items", preflight("https://pr.b.example.evil", "POST")),
    row("listed", "OPTIONS", "/items", preflight("https://evil.example", "DELETE", "X-Other")),
    row("listed", "OPTIONS", "/items", preflight(A, "PATCH")),
    row("listed", "OPTIONS", "/items", preflight(A, "GET", "X-Token,")),
    row("listed", "OPTIONS", "/items", preflight(A, "")),
    row("listed", "OPTIONS", "/items", preflight(A, "GET", **{ACRPN: "true"})),
    row("listed", "OPTIONS", "/no/route/here", preflight(A, "GET")),
    row("any", "OPTIONS", "/items", preflight("https://x.example", "GET", "Content-Type")),
    row("any", "OPTIONS", "/items", preflight("https://x.example", "POST")),
    row("any-credentials", "OPTIONS", "/items", preflight("https://x.example", "QUERY", "X-A, X-B")),
    row("any-credentials", "OPTIONS", "/items", preflight("https://x.example", "GET")),
    row("private", "OPTIONS", "/items/1", preflight(A, "GET", **{ACRPN: "true"})),
    row("private", "OPTIONS", "/items/1", preflight("https://x.example", "GET", **{ACRPN: "true"})),
    # OPTIONS that is not a preflight: the router's 405
    row("listed", "OPTIONS", "/items/1", {"origin": A}),
    row("any", "OPTIONS", "/items/1", {ACRM: "GET"}),
    # actual requests
    row("listed", "GET", "/items/1", {"origin": A}),
    row("listed", "GET", "/items/1", {"origin": "https://pr.b.example"}),
    row("listed", "GET", "/items/1", {"origin": "https://evil.example"}),
    row("listed", "GET", "/items/1", {}),
    row("listed", "GET", "/items/x", {"origin": A}),
    row("listed", "POST", "/items", {"origin": A}, json={"name": "w", "price": 2.5}),
    row("listed", "POST", "/items", {"origin": A}, json={"name": "w"}),
    row("listed", "GET", "/nothing", {"origin": A}),
    row("listed", "DELETE", "/items/1", {"origin": A}),
    row("listed", "GET", "/missing", {"origin": A}),
    row("listed", "GET", "/vary", {"origin": A}),
    row("listed", "GET", "/vary", {}),
    row("listed", "GET", "/own-origin", {"origin": "https://evil.example"}),
    row("listed", "GET", "/stream", {"origin": A}),
    row("listed", "GET", "/boom", {"origin": A}, gap=GAP_500),
    row("any", "GET", "/items/1", {"origin": "https://x.example"}),
    row("any", "GET", "/own-origin", {"origin": "https://x.example"}),
    row("any", "HEAD", "/items/1", {"origin": "https://x.example"}),
    row("any-credentials", "GET", "/items/1", {"origin": "https://x.example"}),
    row("any-credentials", "GET", "/own-origin", {"origin": "https://x.example"}),
    row("any-credentials", "GET", "/items/1", {}),
    row("private", "GET", "/items/1", {"origin": "https://x.example"}),
    row("private", "GET", "/vary", {"origin": A}),
]


def cors_fields(response: Any) -> dict[str, list[str]]:
    headers = response.headers
    out: dict[str, list[str]] = {}
    for name in {k.lower() for k in headers}:
        if name.startswith("access-control-") or name == "vary":
            out[name] = list(headers.get_list(name) if hasattr(headers, "get_list") else headers.getlist(name))
    return out


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROWS)
def test_same_cors_answer(pair: Any, request: pytest.FixtureRequest, app: str, method: str, url: str,
                          gap: str | None, kwargs: dict[str, Any]) -> None:
    ours, theirs = pair(app)
    body, headers = build_request(kwargs)
    expected = theirs.request(method, url, content=body, headers=headers)
    got = ours.request(method, url, content=body, headers=headers)
    diffs = compare(got, expected)
    a, b = cors_fields(got), cors_fields(expected)
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            diffs.append(f"header {name}: slipstream {a.get(name)}, fastapi {b.get(name)}")
    record(Outcome(request.node.callspec.id, gap, diffs))
    assert not diffs, "\n".join(diffs)
