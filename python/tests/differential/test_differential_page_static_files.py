"""FastAPI vs Slipstream on the tutorial page "Static Files": `app.mount("/static", StaticFiles(directory=...),
name="static")` serving text, JSON, CSS and binary files from a folder and its subfolders, the 404 for a missing
file and for a folder, `..` that would leave the folder, HEAD, a POST (405), `html=True` serving index.html and
404.html, a route beside the mount, `url_path_for` of the mount, and the OpenAPI document (the mount is not in it).

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import functools
import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


def static_app(fw: Any, root: Path) -> Any:
    app = new_app(fw)
    static_files = importlib.import_module(f"{fw.__name__}.staticfiles").StaticFiles
    app.mount("/static", static_files(directory=root / "static"), name="static")
    app.mount("/site", static_files(directory=root / "site", html=True), name="site")

    @app.get("/")
    async def home(request: fw.Request) -> Any:
        return {
            "logo": str(request.url_for("static", path="img/logo.png")),
            "css": app.url_path_for("static", path="a.css"),
        }

    return app


@pytest.fixture(scope="module")
def pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], tuple[Any, Any]]]:
    root = tmp_path_factory.mktemp("static-page")
    (root / "static" / "img").mkdir(parents=True)
    (root / "static" / "hello.txt").write_text("Hello, static world\n")
    (root / "static" / "data.json").write_text('{"a": 1}')
    (root / "static" / "a.css").write_text("body { color: teal; }\n")
    (root / "static" / "img" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(64)))
    (root / "site" / "docs").mkdir(parents=True)
    (root / "site" / "index.html").write_text("<h1>Home</h1>\n")
    (root / "site" / "docs" / "index.html").write_text("<h1>Docs</h1>\n")
    (root / "site" / "404.html").write_text("<h1>Lost</h1>\n")
    (root / "secret.txt").write_text("outside the folder\n")
    yield from client_pairs({"static": functools.partial(static_app, root=root)})


ROWS = [
    page_row("static", "GET", "/static/hello.txt"),
    page_row("static", "GET", "/static/data.json"),
    page_row("static", "GET", "/static/a.css"),
    page_row("static", "GET", "/static/img/logo.png"),
    page_row("static", "HEAD", "/static/hello.txt"),
    page_row("static", "POST", "/static/hello.txt"),
    page_row("static", "GET", "/static/missing.txt"),
    page_row("static", "GET", "/static/img"),
    page_row("static", "GET", "/static/img/"),
    page_row("static", "GET", "/static/../secret.txt"),
    page_row("static", "GET", "/static/%2e%2e/secret.txt"),
    page_row("static", "GET", "/site/"),
    page_row("static", "GET", "/site"),
    page_row("static", "GET", "/site/docs/"),
    page_row("static", "GET", "/site/docs"),
    page_row("static", "GET", "/site/nowhere"),
    page_row("static", "GET", "/"),
    page_row("static", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
