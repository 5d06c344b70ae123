"""FastAPI vs Slipstream on the keyword arguments of FastAPI() and APIRouter() that no guide page covers alone:
`max_body_size` on the App, an APIRouter, include_router and a route (413 "Content Too Large", the route's own
limit first), `routes=[APIRoute(...)]` on an APIRouter, `redirect_slashes=False`, and the no-op keywords
(`default=`, `dependency_overrides_provider=`) that FastAPI accepts.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


def limits_app(fw: Any) -> Any:
    app = new_app(fw, max_body_size=10)

    @app.post("/a")
    async def small(x: Annotated[dict[str, Any], fw.Body()]) -> Any:
        return x

    @app.post("/raw")
    async def raw(request: fw.Request) -> Any:
        return {"n": len(await request.body())}

    @app.get("/g")
    async def get() -> Any:
        return {"ok": True}

    @app.post("/c", max_body_size=100)
    async def roomy(x: Annotated[dict[str, Any], fw.Body()]) -> Any:
        return x

    bigger = fw.APIRouter(max_body_size=20)

    @bigger.post("/b")
    async def b(x: Annotated[dict[str, Any], fw.Body()]) -> Any:
        return x

    app.include_router(bigger)
    tight = fw.APIRouter()

    @tight.post("/d")
    async def d(x: Annotated[dict[str, Any], fw.Body()]) -> Any:
        return x

    app.include_router(tight, prefix="/inc", max_body_size=5)
    return app


def router_options_app(fw: Any) -> Any:
    async def listed(n: int = 1) -> Any:
        return {"n": n}

    app = new_app(fw)
    router = fw.APIRouter(
        routes=[fw.routing.APIRoute("/listed", listed)],
        redirect_slashes=False,
        default=None,
        dependency_overrides_provider=None,
    )

    @router.get("/slash/")
    async def slash() -> Any:
        return {"slash": True}

    app.include_router(router, prefix="/r")
    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"limits": limits_app, "router-options": router_options_app})


JSON = {"content-type": "application/json"}
ROWS = [
    page_row("limits", "POST", "/a", content=b'{"a":1}', headers=JSON),
    page_row("limits", "POST", "/a", content=b'{"a":"123456789"}', headers=JSON),
    page_row("limits", "POST", "/raw", content=b"x" * 11),
    page_row("limits", "POST", "/raw", content=b"x" * 10),
    page_row("limits", "GET", "/g", content=b"x" * 100),
    page_row("limits", "POST", "/b", content=b'{"a":"123456789"}', headers=JSON),
    page_row("limits", "POST", "/b", content=b'{"a":"1234567890123456789"}', headers=JSON),
    page_row("limits", "POST", "/c", content=b'{"a":"1234567890123"}', headers=JSON),
    page_row("limits", "POST", "/c", content=b"x" * 200, headers=JSON),
    page_row("limits", "POST", "/inc/d", content=b'{"a":1}', headers=JSON),
    page_row("limits", "POST", "/inc/d", content=b"{}", headers=JSON),
    page_row("limits", "POST", "/nowhere", content=b"x" * 100),
    page_row("limits", "POST", "/nowhere", content=b"x" * 5),
    page_row("limits", "DELETE", "/a", content=b"x" * 100),
    page_row("limits", "DELETE", "/a"),
    page_row("router-options", "GET", "/r/listed?n=3"),
    page_row("router-options", "GET", "/r/slash/"),
    page_row("router-options", "GET", "/r/slash"),
    page_row("router-options", "GET", "/openapi.json"),
]

test_same_answer = same_answer_test(ROWS)
