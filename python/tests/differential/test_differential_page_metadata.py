"""FastAPI vs Slipstream on the tutorial page "Metadata and Docs URLs": the app's title, summary, description,
version, terms_of_service, contact and license_info (by identifier and by URL), openapi_tags with descriptions and
external docs (and their order), a moved `openapi_url`, moved and disabled docs URLs, `openapi_url=None` turning
the document and the docs off; the documents and the docs pages themselves.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test

DESCRIPTION = """
ChimichangApp API helps you do awesome stuff. 🚀

## Items

You can **read items**.
"""

TAGS = [
    {"name": "users", "description": "Operations with users. The **login** logic is also here."},
    {
        "name": "items",
        "description": "Manage items. So _fancy_ they have their own docs.",
        "externalDocs": {"description": "Items external docs", "url": "https://example.com/"},
    },
]


def _routes(app: Any) -> Any:
    @app.get("/items/", tags=["items"])
    async def read_items() -> Any:
        return [{"name": "Katana"}]

    @app.get("/users/", tags=["users"])
    async def read_users() -> Any:
        return [{"name": "Harry"}, {"name": "Ron"}]

    return app


def metadata_app(fw: Any) -> Any:
    app = new_app(
        fw,
        title="ChimichangApp",
        summary="Deadpool's favorite app. Nuff said.",
        description=DESCRIPTION,
        version="0.0.1",
        terms_of_service="http://example.com/terms/",
        contact={"name": "Deadpoolio the Amazing", "url": "http://x-force.example.com/contact/", "email": "dp@x.com"},
        license_info={"name": "Apache 2.0", "identifier": "Apache-2.0"},
        openapi_tags=TAGS,
    )
    return _routes(app)


def moved_app(fw: Any) -> Any:
    app = new_app(
        fw,
        license_info={"name": "MIT", "url": "https://opensource.org/licenses/MIT"},
        openapi_url="/api/v1/openapi.json",
        docs_url="/documentation",
        redoc_url=None,
    )
    return _routes(app)


def hidden_app(fw: Any) -> Any:
    return _routes(new_app(fw, openapi_url=None))


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"metadata": metadata_app, "moved": moved_app, "hidden": hidden_app})


OWN_ASSETS = (
    "deliberate, python/openapi: the docs pages are the package's own HTML (openapi/docs.py), loading Swagger UI "
    "and ReDoc from /_slipstream/docs/ when the docs extra is installed (offline), so their bytes differ; the "
    "title, document URL and Swagger UI parameters are FastAPI's"
)
ROWS = [
    page_row("metadata", "GET", "/openapi.json"),
    page_row("metadata", "GET", "/docs", OWN_ASSETS),
    page_row("metadata", "GET", "/redoc", OWN_ASSETS),
    page_row("metadata", "GET", "/items/"),
    page_row("moved", "GET", "/api/v1/openapi.json"),
    page_row("moved", "GET", "/openapi.json"),
    page_row("moved", "GET", "/documentation", OWN_ASSETS),
    page_row("moved", "GET", "/docs"),
    page_row("moved", "GET", "/redoc"),
    page_row("hidden", "GET", "/openapi.json"),
    page_row("hidden", "GET", "/docs"),
    page_row("hidden", "GET", "/redoc"),
    page_row("hidden", "GET", "/users/"),
]


test_same_answer = same_answer_test(ROWS)
