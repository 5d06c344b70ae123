"""FastAPI vs Slipstream on the tutorial pages "Dependencies", "Classes as Dependencies", "Sub-dependencies" and
"Dependencies in path operation decorators": a function dependency shared by two routes, a class as dependency
(`Depends(CommonQueryParams)` and the `Depends()` shortcut), a sub-dependency chain reading a query and a cookie,
the per-request cache (a dependency used twice runs once; `use_cache=False` runs it again), `dependencies=[...]` on
a decorator whose values are unused and whose exceptions answer, `Annotated` aliases reused, and the OpenAPI
document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test

FAKE_ITEMS = [{"item_name": "Foo"}, {"item_name": "Bar"}, {"item_name": "Baz"}]


class CommonQueryParams:
    def __init__(self, q: str | None = None, skip: int = 0, limit: int = 100) -> None:
        self.q = q
        self.skip = skip
        self.limit = limit


def dependencies_app(fw: Any) -> Any:
    app = new_app(fw)
    Depends, Cookie, Header, HTTPException = fw.Depends, fw.Cookie, fw.Header, fw.HTTPException
    calls: list[str] = []

    async def common_parameters(q: str | None = None, skip: int = 0, limit: int = 100) -> dict[str, Any]:
        return {"q": q, "skip": skip, "limit": limit}

    CommonsDep = Annotated[dict, Depends(common_parameters)]

    @app.get("/items/")
    async def read_items(commons: CommonsDep) -> Any:
        return commons

    @app.get("/users/")
    async def read_users(commons: CommonsDep) -> Any:
        return commons

    @app.get("/classes/")
    async def read_classes(commons: Annotated[CommonQueryParams, Depends(CommonQueryParams)]) -> Any:
        response: dict[str, Any] = {}
        if commons.q:
            response.update({"q": commons.q})
        response.update({"items": FAKE_ITEMS[commons.skip : commons.skip + commons.limit]})
        return response

    @app.get("/shortcut/")
    async def read_shortcut(commons: Annotated[CommonQueryParams, Depends()]) -> Any:
        return {"q": commons.q, "skip": commons.skip, "limit": commons.limit}

    def query_extractor(q: str | None = None) -> str | None:
        calls.append("query_extractor")
        return q

    def query_or_cookie_extractor(
        q: Annotated[str | None, Depends(query_extractor)],
        last_query: Annotated[str | None, Cookie()] = None,
    ) -> str | None:
        return q or last_query

    @app.get("/sub/")
    async def read_query(
        query_or_default: Annotated[str | None, Depends(query_or_cookie_extractor)],
        again: Annotated[str | None, Depends(query_extractor)],
        fresh: Annotated[str | None, Depends(query_extractor, use_cache=False)],
    ) -> Any:
        ran = list(calls)
        calls.clear()
        return {"q_or_cookie": query_or_default, "again": again, "fresh": fresh, "calls": ran}

    async def verify_token(x_token: Annotated[str, Header()]) -> str:
        if x_token != "fake-super-secret-token":
            raise HTTPException(status_code=400, detail="X-Token header invalid")
        return x_token

    async def verify_key(x_key: Annotated[str, Header()]) -> str:
        if x_key != "fake-super-secret-key":
            raise HTTPException(status_code=400, detail="X-Key header invalid")
        return x_key

    @app.get("/guarded/", dependencies=[Depends(verify_token), Depends(verify_key)])
    async def read_guarded() -> Any:
        return [{"item": "Foo"}, {"item": "Bar"}]

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"deps": dependencies_app})


KEYS = {"x-token": "fake-super-secret-token", "x-key": "fake-super-secret-key"}
ROWS = [
    page_row("deps", "GET", "/items/"),
    page_row("deps", "GET", "/items/?q=foo&skip=5&limit=30"),
    page_row("deps", "GET", "/users/?limit=x"),
    page_row("deps", "GET", "/classes/?skip=1&limit=1&q=bar"),
    page_row("deps", "GET", "/classes/?skip=z"),
    page_row("deps", "GET", "/shortcut/?q=a"),
    page_row("deps", "GET", "/sub/?q=tea"),
    page_row("deps", "GET", "/sub/", cookies={"last_query": "coffee"}),
    page_row("deps", "GET", "/guarded/", headers=KEYS),
    page_row("deps", "GET", "/guarded/", headers={**KEYS, "x-key": "wrong"}),
    page_row("deps", "GET", "/guarded/", headers={**KEYS, "x-token": "wrong"}),
    page_row("deps", "GET", "/guarded/", headers={"x-key": "fake-super-secret-key"}),
    page_row("deps", "GET", "/guarded/"),
    page_row("deps", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
