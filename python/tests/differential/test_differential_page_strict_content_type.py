"""FastAPI vs Slipstream on the advanced page "Strict Content-Type": a JSON body sent without a Content-Type
header, with `text/plain`, with `application/json; charset=utf-8` and with an `application/*+json` type, under the
default (strict: a body without Content-Type is not read as JSON) and under `strict_content_type=False` (read as
JSON) on the App, on an APIRouter (and a strict router in a lenient App) and on one route
(`app.router.add_api_route`).

Rows join the session's match rate (diff_support.record) like test_differential.py's; a row whose app cannot be
built is recorded as a difference too.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel

from .diff_support import Outcome, check_row, client_pairs, new_app, page_row, record


class Item(BaseModel):
    name: str
    price: float


def _items(app: Any) -> Any:
    @app.post("/items/")
    async def create_item(item: Item) -> Any:
        return item

    return app


def strict_app(fw: Any) -> Any:
    return _items(new_app(fw, strict_content_type=True))


def lenient_app(fw: Any) -> Any:
    return _items(new_app(fw, strict_content_type=False))


async def _create(item: Item) -> Any:
    return item


def levels_app(fw: Any) -> Any:
    app = _items(new_app(fw))
    lenient = fw.APIRouter(strict_content_type=False)
    lenient.add_api_route("/items/", _create, methods=["POST"])
    app.include_router(lenient, prefix="/lenient")
    app.router.add_api_route("/route-lenient/", _create, methods=["POST"], strict_content_type=False)
    return app


def strict_router_app(fw: Any) -> Any:
    app = new_app(fw, strict_content_type=False)
    strict = fw.APIRouter(strict_content_type=True)
    strict.add_api_route("/items/", _create, methods=["POST"])
    plain = fw.APIRouter()
    plain.add_api_route("/items/", _create, methods=["POST"])
    app.include_router(strict, prefix="/strict")
    app.include_router(plain, prefix="/plain")
    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"strict": strict_app, "lenient": lenient_app, "levels": levels_app,
                             "strict-router": strict_router_app})


BODY = b'{"name": "Foo", "price": 2.5}'
ROWS = [
    page_row("strict", "POST", "/items/", content=BODY),
    page_row("strict", "POST", "/items/", content=BODY, headers={"content-type": "text/plain"}),
    page_row("strict", "POST", "/items/", content=BODY, headers={"content-type": "application/json; charset=utf-8"}),
    page_row("strict", "POST", "/items/", content=BODY, headers={"content-type": "application/merge-patch+json"}),
    page_row("lenient", "POST", "/items/", content=BODY),
    page_row("lenient", "POST", "/items/", content=BODY, headers={"content-type": "application/json"}),
    page_row("lenient", "POST", "/items/", content=BODY, headers={"content-type": "text/plain"}),
    page_row("lenient", "POST", "/items/", content=b'{"name": "Foo",'),
    page_row("lenient", "POST", "/items/", content=b'{"name": "Foo"}'),
    page_row("lenient", "POST", "/items/"),
    page_row("levels", "POST", "/items/", content=BODY),
    page_row("levels", "POST", "/lenient/items/", content=BODY),
    page_row("levels", "POST", "/route-lenient/", content=BODY),
    page_row("levels", "POST", "/route-lenient/", content=BODY, headers={"content-type": "text/plain"}),
    page_row("strict-router", "POST", "/strict/items/", content=BODY),
    page_row("strict-router", "POST", "/plain/items/", content=BODY),
]


@pytest.mark.parametrize(("app", "method", "url", "gap", "kwargs"), ROWS)
def test_same_answer(pair: Any, request: Any, app: str, method: str, url: str, gap: str | None, kwargs: Any) -> None:
    case_id = request.node.callspec.id
    try:
        pair(app)
    except Exception as exc:
        record(Outcome(case_id, gap, [f"the app is not built: {exc!r}"]))
        raise
    check_row(pair, case_id, app, method, url, gap, kwargs)
