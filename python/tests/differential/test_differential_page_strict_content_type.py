"""FastAPI vs Slipstream on the advanced page "Strict Content-Type": a JSON body sent without a Content-Type
header, with `text/plain`, with `application/json; charset=utf-8` and with an `application/*+json` type, under the
default (strict: a body without Content-Type is not read as JSON) and under `strict_content_type=False` (read as
JSON).

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


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"strict": strict_app, "lenient": lenient_app})


BODY = b'{"name": "Foo", "price": 2.5}'
LENIENT = (
    "not supported yet, python/app: App(strict_content_type=False) raises ValueError; a body without "
    "Content-Type is never read as JSON here, as under FastAPI's default (strict_content_type=True is accepted)"
)
ROWS = [
    page_row("strict", "POST", "/items/", content=BODY),
    page_row("strict", "POST", "/items/", content=BODY, headers={"content-type": "text/plain"}),
    page_row("strict", "POST", "/items/", content=BODY, headers={"content-type": "application/json; charset=utf-8"}),
    page_row("strict", "POST", "/items/", content=BODY, headers={"content-type": "application/merge-patch+json"}),
    page_row("lenient", "POST", "/items/", LENIENT, content=BODY),
    page_row("lenient", "POST", "/items/", LENIENT, content=BODY, headers={"content-type": "application/json"}),
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
