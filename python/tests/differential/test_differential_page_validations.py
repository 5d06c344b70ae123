"""FastAPI vs Slipstream on the tutorial pages "Query Parameters and String Validations", "Path Parameters and
Numeric Validations" and "Query Parameter Models": `Query()` with min/max_length, pattern, title, description,
alias, deprecated, include_in_schema=False, required without default, lists with defaults; `Path()` with
ge/gt/le/lt on ints and floats; a Pydantic model of query parameters with Field constraints, a Literal, a list and
`extra="forbid"`; and the OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Literal

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel, ConfigDict, Field

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Filters(BaseModel):
    limit: int = Field(100, gt=0, le=100)
    offset: int = Field(0, ge=0)
    order_by: Literal["created_at", "updated_at"] = "created_at"
    tags: list[str] = []


class StrictFilters(Filters):
    model_config = ConfigDict(extra="forbid")


def validations_app(fw: Any) -> Any:
    app = new_app(fw)
    Query, Path = fw.Query, fw.Path

    @app.get("/books/")
    async def read_books(
        q: Annotated[str | None, Query(min_length=3, max_length=12, pattern="^[a-z ]+$")] = None,
    ) -> Any:
        return {"q": q}

    @app.get("/books/required/")
    async def read_books_required(q: Annotated[str, Query(min_length=3)]) -> Any:
        return {"q": q}

    @app.get("/books/list/")
    async def read_books_list(q: Annotated[list[str], Query()] = ["first", "second"]) -> Any:  # noqa: B006
        return {"q": q}

    @app.get("/books/described/")
    async def read_books_described(
        q: Annotated[
            str | None,
            Query(
                alias="book-query",
                title="Book query",
                description="Words to look for in the titles",
                min_length=2,
                deprecated=True,
            ),
        ] = None,
        hidden: Annotated[str | None, Query(include_in_schema=False)] = None,
    ) -> Any:
        return {"q": q, "hidden": hidden}

    @app.get("/shelves/{shelf_id}")
    async def read_shelf(
        shelf_id: Annotated[int, Path(title="The shelf", ge=1, lt=100)],
        q: str,
        size: Annotated[float, Query(gt=0, le=10.5)] = 1.0,
    ) -> Any:
        return {"shelf_id": shelf_id, "q": q, "size": size}

    @app.get("/ratios/{ratio}")
    async def read_ratio(ratio: Annotated[float, Path(gt=0, lt=1)]) -> Any:
        return {"ratio": ratio}

    @app.get("/filtered/")
    async def read_filtered(filters: Annotated[Filters, Query()]) -> Any:
        return filters

    @app.get("/strict/")
    async def read_strict(filters: Annotated[StrictFilters, Query()]) -> Any:
        return filters

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"validations": validations_app})


ROWS = [
    page_row("validations", "GET", "/books/"),
    page_row("validations", "GET", "/books/?q=fixed query"),
    page_row("validations", "GET", "/books/?q=ab"),
    page_row("validations", "GET", "/books/?q=abcdefghijklmnop"),
    page_row("validations", "GET", "/books/?q=ABC"),
    page_row("validations", "GET", "/books/required/"),
    page_row("validations", "GET", "/books/required/?q=abc"),
    page_row("validations", "GET", "/books/list/"),
    page_row("validations", "GET", "/books/list/?q=a&q=b&q=c"),
    page_row("validations", "GET", "/books/described/?book-query=xy&hidden=h"),
    page_row("validations", "GET", "/books/described/?q=xy"),
    page_row("validations", "GET", "/books/described/?book-query=x"),
    page_row("validations", "GET", "/shelves/5?q=a&size=2.5"),
    page_row("validations", "GET", "/shelves/0?q=a"),
    page_row("validations", "GET", "/shelves/100?q=a&size=0"),
    page_row("validations", "GET", "/shelves/5?size=11"),
    page_row("validations", "GET", "/ratios/0.5"),
    page_row("validations", "GET", "/ratios/1"),
    page_row("validations", "GET", "/ratios/nan"),
    page_row("validations", "GET", "/filtered/"),
    page_row("validations", "GET", "/filtered/?limit=5&offset=2&order_by=updated_at&tags=a&tags=b"),
    page_row("validations", "GET", "/filtered/?limit=0&offset=-1&order_by=name"),
    page_row("validations", "GET", "/filtered/?limit=5&other=1"),
    page_row("validations", "GET", "/strict/?limit=5"),
    page_row("validations", "GET", "/strict/?limit=5&tool=plumbus"),
    page_row("validations", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
