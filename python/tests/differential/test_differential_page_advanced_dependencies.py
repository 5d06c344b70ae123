"""FastAPI vs Slipstream on the pages "Advanced Dependencies", "Dependencies with yield", "Dependencies in path
operation decorators" and "Global Dependencies": a parameterized dependency (a callable instance), `yield`
dependencies that catch the handler's exception and raise an HTTPException or re-raise, exit code seen by the next
request, scope="function", use_cache=False, dependencies of the decorator and of the whole app (header checks), and
the OpenAPI document of all of them.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class OwnerError(Exception):
    pass


class FixedContentQueryChecker:
    def __init__(self, fixed_content: str) -> None:
        self.fixed_content = fixed_content

    def __call__(self, q: str = "") -> bool:
        return self.fixed_content in q if q else False


def dependencies_app(fw: Any) -> Any:
    log: list[str] = []
    data = {
        "plumbus": {"description": "Freshly pickled plumbus", "owner": "Morty"},
        "portal-gun": {"description": "Gun to create portals", "owner": "Rick"},
    }

    async def verify_token(x_token: Annotated[str, fw.Header()]) -> None:
        if x_token != "fake-super-secret-token":
            raise fw.HTTPException(status_code=400, detail="X-Token header invalid")

    async def verify_key(x_key: Annotated[str, fw.Header()]) -> str:
        if x_key != "fake-super-secret-key":
            raise fw.HTTPException(status_code=400, detail="X-Key header invalid")
        return x_key

    app = new_app(fw, dependencies=[fw.Depends(verify_token)])
    checker = FixedContentQueryChecker("bar")

    def get_username() -> Iterator[str]:
        try:
            yield "Rick"
        except OwnerError as e:
            raise fw.HTTPException(status_code=400, detail=f"Owner error: {e}") from e

    def get_db() -> Iterator[str]:
        log.append("open")
        try:
            yield "db"
        except fw.HTTPException:
            log.append("rollback")
            raise
        finally:
            log.append("close")

    def function_scoped() -> Iterator[str]:
        log.append("function-enter")
        yield "f"
        log.append("function-exit")

    counter = {"n": 0}

    def count() -> int:
        counter["n"] += 1
        return counter["n"]

    @app.get("/query-checker/")
    async def read_query_check(fixed_content_included: Annotated[bool, fw.Depends(checker)]) -> Any:
        return {"fixed_content_in_query": fixed_content_included}

    @app.get("/items/{item_id}")
    def get_item(item_id: str, username: Annotated[str, fw.Depends(get_username)]) -> Any:
        if item_id not in data:
            raise fw.HTTPException(status_code=404, detail="Item not found")
        item = data[item_id]
        if item["owner"] != username:
            raise OwnerError(username)
        return item

    @app.get("/db/{fail}")
    async def use_db(
        fail: bool,
        db: Annotated[str, fw.Depends(get_db)],
        f: Annotated[str, fw.Depends(function_scoped, scope="function")],
    ) -> Any:
        log.append("handler")
        if fail:
            raise fw.HTTPException(status_code=409, detail="conflict")
        return {"db": db, "f": f}

    @app.get("/log")
    async def read_log() -> Any:
        out = list(log)
        log.clear()
        return out

    @app.get("/counted")
    async def counted(
        a: Annotated[int, fw.Depends(count)],
        b: Annotated[int, fw.Depends(count)],
        c: Annotated[int, fw.Depends(count, use_cache=False)],
    ) -> Any:
        return {"a": a, "b": b, "c": c}

    @app.get("/keyed/", dependencies=[fw.Depends(verify_key)])
    async def keyed() -> Any:
        return [{"item": "Foo"}, {"item": "Bar"}]

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"deps": dependencies_app})


TOKEN = {"x-token": "fake-super-secret-token"}
ROWS = [
    page_row("deps", "GET", "/query-checker/?q=foobar", headers=TOKEN),
    page_row("deps", "GET", "/query-checker/?q=foo", headers=TOKEN),
    page_row("deps", "GET", "/query-checker/", headers=TOKEN),
    page_row("deps", "GET", "/query-checker/"),
    page_row("deps", "GET", "/query-checker/", headers={"x-token": "wrong"}),
    page_row("deps", "GET", "/items/portal-gun", headers=TOKEN),
    page_row("deps", "GET", "/items/plumbus", headers=TOKEN),
    page_row("deps", "GET", "/items/nothing", headers=TOKEN),
    page_row("deps", "GET", "/db/false", headers=TOKEN),
    page_row("deps", "GET", "/log", headers=TOKEN),
    page_row("deps", "GET", "/db/true", headers=TOKEN),
    page_row("deps", "GET", "/log", headers=TOKEN),
    page_row("deps", "GET", "/db/maybe", headers=TOKEN),
    page_row("deps", "GET", "/log", headers=TOKEN),
    page_row("deps", "GET", "/log", headers=TOKEN),
    page_row("deps", "GET", "/counted", headers=TOKEN),
    page_row("deps", "GET", "/keyed/", headers=TOKEN),
    page_row("deps", "GET", "/keyed/", headers={**TOKEN, "x-key": "fake-super-secret-key"}),
    page_row("deps", "GET", "/keyed/", headers={**TOKEN, "x-key": "nope"}),
    page_row("deps", "GET", "/openapi.json"),
]

test_same_answer = same_answer_test(ROWS)
