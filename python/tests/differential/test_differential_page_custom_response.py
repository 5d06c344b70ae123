"""FastAPI vs Slipstream on the advanced pages "Custom Response - HTML, Stream, File, others" and "Return a Response
Directly": response_class=HTMLResponse (and its OpenAPI media type), a Response returned directly (XML), ORJSONResponse,
PlainTextResponse, RedirectResponse as response_class returning a URL, StreamingResponse from sync and async
generators, FileResponse, a custom JSONResponse subclass, default_response_class, and jsonable_encoder into
JSONResponse.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import importlib
import json
import pathlib
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")
pytest.importorskip("orjson")

from pydantic import BaseModel

from .diff_support import client_pairs, new_app, page_row, same_answer_test

HTML = """<html><head><title>Some HTML in here</title></head><body><h1>Look ma! HTML!</h1></body></html>"""


class Item(BaseModel):
    title: str
    timestamp: datetime
    description: str | None = None


def responses_app(fw: Any, file_path: pathlib.Path) -> Any:
    responses = fw.responses
    encoders = importlib.import_module(f"{fw.__name__}.encoders")

    class PrettyJSONResponse(responses.JSONResponse):
        def render(self, content: Any) -> bytes:
            return json.dumps(content, ensure_ascii=False, indent=2).encode("utf-8")

    app = new_app(fw)

    @app.get("/html/", response_class=responses.HTMLResponse)
    async def read_html() -> Any:
        return HTML

    @app.get("/html-direct/")
    async def read_html_direct() -> Any:
        return responses.HTMLResponse(content=HTML, status_code=200)

    @app.get("/legacy/")
    def get_legacy_data() -> Any:
        data = """<?xml version="1.0"?><shampoo><Header>Apply shampoo here.</Header></shampoo>"""
        return fw.Response(content=data, media_type="application/xml")

    @app.get("/orjson/", response_class=responses.ORJSONResponse)
    async def read_orjson() -> Any:
        return [{"item_id": "Foo"}]

    @app.get("/orjson-direct/")
    async def read_orjson_direct() -> Any:
        return responses.ORJSONResponse({1: "non-str key", "x": [1.5, None, True]})

    @app.get("/plain/", response_class=responses.PlainTextResponse)
    async def read_plain() -> Any:
        return "Hello World"

    @app.get("/typer")
    async def redirect_typer() -> Any:
        return responses.RedirectResponse("https://typer.tiangolo.com")

    @app.get("/fastapi", response_class=responses.RedirectResponse)
    async def redirect_fastapi() -> Any:
        return "https://fastapi.tiangolo.com"

    @app.get("/pydantic", response_class=responses.RedirectResponse, status_code=302)
    async def redirect_pydantic() -> Any:
        return "https://docs.pydantic.dev/"

    async def fake_video_streamer() -> Any:
        for i in range(5):
            yield b"some fake video bytes " + str(i).encode()

    @app.get("/stream")
    async def stream() -> Any:
        return responses.StreamingResponse(fake_video_streamer())

    @app.get("/stream-sync")
    def stream_sync() -> Any:
        def lines() -> Iterator[str]:
            yield from ("one\n", "two\n", "three\n")

        return responses.StreamingResponse(lines(), media_type="text/plain")

    @app.get("/file", response_class=responses.FileResponse)
    async def file() -> Any:
        return str(file_path)

    @app.get("/file-direct")
    async def file_direct() -> Any:
        return responses.FileResponse(file_path, filename="report.txt")

    @app.get("/pretty", response_class=PrettyJSONResponse)
    async def pretty() -> Any:
        return {"message": "Hello World", "nested": {"a": [1, 2]}}

    @app.put("/items/{item_id}")
    def update_item(item_id: str, item: Item) -> Any:
        json_compatible_item_data = encoders.jsonable_encoder(item)
        return responses.JSONResponse(content=json_compatible_item_data, headers={"x-item": item_id})

    return app


def default_class_app(fw: Any) -> Any:
    app = new_app(fw, default_response_class=fw.responses.ORJSONResponse)

    @app.get("/items/")
    async def read_items() -> Any:
        return [{"item_id": "Foo"}]

    @app.get("/html/", response_class=fw.responses.HTMLResponse)
    async def html() -> Any:
        return "<p>still html</p>"

    return app


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], tuple[Any, Any]]]:
    file_path = tmp_path_factory.mktemp("custom-response") / "report.txt"
    file_path.write_text("a report\n" * 50)
    yield from client_pairs({"responses": lambda fw: responses_app(fw, file_path), "default": default_class_app})


ROWS = [
    page_row("responses", "GET", "/html/"),
    page_row("responses", "GET", "/html-direct/"),
    page_row("responses", "GET", "/legacy/"),
    page_row("responses", "GET", "/orjson/"),
    page_row("responses", "GET", "/orjson-direct/"),
    page_row("responses", "GET", "/plain/"),
    page_row("responses", "GET", "/typer"),
    page_row("responses", "GET", "/fastapi"),
    page_row("responses", "GET", "/pydantic"),
    page_row("responses", "GET", "/stream"),
    page_row("responses", "GET", "/stream-sync"),
    page_row("responses", "GET", "/file"),
    page_row("responses", "GET", "/file-direct"),
    page_row("responses", "GET", "/pretty"),
    page_row("responses", "PUT", "/items/7", json={"title": "t", "timestamp": "2024-01-02T03:04:05"}),
    page_row("responses", "PUT", "/items/7", json={"title": "t"}),
    page_row("responses", "GET", "/openapi.json"),
    page_row("default", "GET", "/items/"),
    page_row("default", "GET", "/html/"),
    page_row("default", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
