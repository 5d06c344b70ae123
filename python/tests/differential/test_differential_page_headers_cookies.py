"""FastAPI vs Slipstream on the tutorial pages "Cookie Parameters", "Header Parameters", "Cookie Parameter Models"
and "Header Parameter Models": `Cookie()` and `Header()` parameters, underscores converted to hyphens (and
`convert_underscores=False`), repeated headers as a list, header and cookie models (with `extra="forbid"`), and the
OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel, ConfigDict

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Visit(BaseModel):
    session_id: str
    theme: str | None = None
    tracker: str | None = None


class StrictVisit(Visit):
    model_config = ConfigDict(extra="forbid")


class CommonHeaders(BaseModel):
    host: str
    save_data: bool
    if_modified_since: str | None = None
    traceparent: str | None = None
    x_tag: list[str] = []


class StrictHeaders(BaseModel):
    model_config = ConfigDict(extra="forbid")
    x_client: str


def params_app(fw: Any) -> Any:
    app = new_app(fw)
    Cookie, Header = fw.Cookie, fw.Header

    @app.get("/cookies/")
    async def read_cookies(ads_id: Annotated[str | None, Cookie()] = None, visits: Annotated[int, Cookie()] = 0) -> Any:
        return {"ads_id": ads_id, "visits": visits}

    @app.get("/headers/")
    async def read_headers(user_agent: Annotated[str | None, Header()] = None) -> Any:
        return {"User-Agent": user_agent}

    @app.get("/headers/raw/")
    async def read_raw(
        strange_header: Annotated[str | None, Header(convert_underscores=False)] = None,
    ) -> Any:
        return {"strange_header": strange_header}

    @app.get("/headers/tokens/")
    async def read_tokens(x_token: Annotated[list[str] | None, Header()] = None) -> Any:
        return {"X-Token values": x_token}

    @app.get("/headers/required/")
    async def read_required(x_count: Annotated[int, Header(ge=1)]) -> Any:
        return {"x_count": x_count}

    @app.get("/cookie-model/")
    async def read_cookie_model(cookies: Annotated[Visit, Cookie()]) -> Any:
        return cookies

    @app.get("/cookie-model/strict/")
    async def read_strict_cookie_model(cookies: Annotated[StrictVisit, Cookie()]) -> Any:
        return cookies

    @app.get("/header-model/")
    async def read_header_model(headers: Annotated[CommonHeaders, Header()]) -> Any:
        return headers

    @app.get("/header-model/strict/")
    async def read_strict_header_model(headers: Annotated[StrictHeaders, Header()]) -> Any:
        return headers

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"params": params_app})


ROWS = [
    page_row("params", "GET", "/cookies/"),
    page_row("params", "GET", "/cookies/", cookies={"ads_id": "abc", "visits": "3"}),
    page_row("params", "GET", "/cookies/", cookies={"visits": "many"}),
    page_row("params", "GET", "/headers/", headers={"user-agent": "agent/1.0"}),
    page_row("params", "GET", "/headers/raw/", headers={"strange_header": "odd"}),
    page_row("params", "GET", "/headers/raw/", headers={"strange-header": "odd"}),
    page_row("params", "GET", "/headers/tokens/"),
    page_row("params", "GET", "/headers/tokens/", headers={"x-token": "foo"}),
    page_row("params", "GET", "/headers/required/"),
    page_row("params", "GET", "/headers/required/", headers={"x-count": "0"}),
    page_row("params", "GET", "/headers/required/", headers={"x-count": "7"}),
    page_row("params", "GET", "/cookie-model/"),
    page_row("params", "GET", "/cookie-model/", cookies={"session_id": "s1", "theme": "dark"}),
    page_row("params", "GET", "/cookie-model/strict/", cookies={"session_id": "s1"}),
    page_row("params", "GET", "/cookie-model/strict/", cookies={"session_id": "s1", "santa_tracker": "good"}),
    page_row("params", "GET", "/header-model/", headers={"save-data": "true", "x-tag": "a"}),
    page_row("params", "GET", "/header-model/", headers={"save-data": "maybe", "traceparent": "t"}),
    page_row("params", "GET", "/header-model/strict/", headers={"x-client": "c"}),
    page_row("params", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
