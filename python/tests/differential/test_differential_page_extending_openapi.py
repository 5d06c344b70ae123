"""FastAPI vs Slipstream on the advanced pages "Extending OpenAPI" and "Conditional OpenAPI": `app.openapi`
replaced by a function that calls `get_openapi(...)` with the app's routes, adds an `x-logo` to `info` and caches the
result in `app.openapi_schema`; the document switched off by a setting (`openapi_url=None`); the routes still
answering in both.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import importlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


def _items(app: Any) -> Any:
    @app.get("/items/")
    async def read_items() -> Any:
        return [{"name": "Foo"}]

    return app


def extended_app(fw: Any) -> Any:
    app = _items(new_app(fw))
    get_openapi = importlib.import_module(f"{fw.__name__}.openapi.utils").get_openapi
    built: list[int] = []

    def custom_openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        built.append(1)
        schema = get_openapi(
            title="Custom title",
            version="2.5.0",
            summary="This is a very custom OpenAPI schema",
            description="Here's a longer description of the custom **OpenAPI** schema",
            routes=app.routes,
        )
        schema["info"]["x-logo"] = {"url": "https://example.com/logo.png"}
        schema["info"]["x-built"] = len(built)
        app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = custom_openapi
    return app


def conditional_app(fw: Any) -> Any:
    settings = {"openapi_url": ""}
    return _items(new_app(fw, openapi_url=settings["openapi_url"] or None))


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"extended": extended_app, "conditional": conditional_app})


ROWS = [
    page_row("extended", "GET", "/openapi.json"),
    page_row("extended", "GET", "/openapi.json"),
    page_row("extended", "GET", "/items/"),
    page_row("conditional", "GET", "/openapi.json"),
    page_row("conditional", "GET", "/docs"),
    page_row("conditional", "GET", "/items/"),
]


test_same_answer = same_answer_test(ROWS)
