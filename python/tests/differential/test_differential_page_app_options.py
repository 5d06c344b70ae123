"""FastAPI vs Slipstream on the keyword arguments of FastAPI() and APIRouter() that no guide page covers alone:
`max_body_size` on the App, an APIRouter, include_router and a route (413 "Content Too Large", the route's own
limit first), `form_limits` on an APIRouter, include_router and a route, `routes=[APIRoute(...)]` on an APIRouter, `redirect_slashes=False`, and the no-op keywords
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


def form_limits_app(fw: Any) -> Any:
    async def two_fields(a: Annotated[str, fw.Form()], b: Annotated[str, fw.Form()] = "") -> Any:
        return {"a": a, "b": b}

    app = new_app(fw)
    router = fw.APIRouter(form_limits={"max_fields": 1})
    router.add_api_route("/one", two_fields, methods=["POST"])
    router.add_api_route("/three", two_fields, methods=["POST"], form_limits={"max_fields": 3})
    app.include_router(router, prefix="/r")
    plain = fw.APIRouter()
    plain.add_api_route("/one", two_fields, methods=["POST"])
    app.include_router(plain, prefix="/inc", form_limits={"max_fields": 1})
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
    yield from client_pairs({"limits": limits_app, "router-options": router_options_app, "forms": form_limits_app})


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
    page_row("forms", "POST", "/r/one", form={"a": "1"}),
    page_row("forms", "POST", "/r/one", form={"a": "1", "b": "2"}),
    page_row("forms", "POST", "/r/three", form={"a": "1", "b": "2"}),
    page_row("forms", "POST", "/inc/one", form={"a": "1", "b": "2"}),
    page_row("forms", "POST", "/inc/one", form={"a": "1"}),
    page_row("router-options", "GET", "/r/listed?n=3"),
    page_row("router-options", "GET", "/r/slash/"),
    page_row("router-options", "GET", "/r/slash"),
    page_row("router-options", "GET", "/openapi.json"),
]

test_same_answer = same_answer_test(ROWS)
