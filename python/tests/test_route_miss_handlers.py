"""Exception handlers that FastAPI calls for a path no route matches (404) or a method no route takes (405): one
for the status, or for Starlette's HTTPException class; a handler for FastAPI's subclass is not called. Checked on
the served app (no TestClient: the engine answers misses itself unless such a handler exists) and against
FastAPI through both TestClients."""

# No `from __future__ import annotations`: handlers annotate with each framework's classes, local names.
import http.client
from collections.abc import Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")
import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from starlette.exceptions import HTTPException as StarletteHTTPException


def _app(fw: Any, handled: Any) -> Any:
    app = fw.FastAPI() if fw is fastapi else fw.App()

    @app.exception_handler(handled)
    async def custom(request: Any, exc: Any) -> Any:
        return fw.responses.PlainTextResponse(f"custom {exc.status_code}", status_code=exc.status_code)

    @app.get("/items")
    def items() -> Any:
        return [1]

    @app.get("/folder/")
    def folder() -> Any:
        return "folder"

    return app


HANDLED = {"404": 404, "405": 405, "starlette": StarletteHTTPException, "fastapi-subclass": "HTTPException"}
REQUESTS = [("GET", "/nothing"), ("POST", "/items"), ("HEAD", "/items"), ("GET", "/folder"), ("GET", "/items")]


def _handled(fw: Any, key: str) -> Any:
    value = HANDLED[key]
    return fw.HTTPException if value == "HTTPException" else value


@pytest.fixture
def served() -> Iterator[Any]:
    """Serves an app on the real engine as App.run() builds it (no TestClient), answering (status, body)."""
    started: list[Any] = []

    def serve(app: Any) -> Any:
        native, _runtime = app.build_native(threads=1, access_log=False)
        native.listen("127.0.0.1", 0)
        native.start()
        started.append(native)

        def ask(method: str, path: str) -> tuple[int, bytes]:
            conn = http.client.HTTPConnection("127.0.0.1", native.port, timeout=10)
            try:
                conn.request(method, path)
                response = conn.getresponse()
                return response.status, response.read()
            finally:
                conn.close()

        return ask

    yield serve
    for native in started:
        native.stop()
        native.wait()


@pytest.mark.parametrize("key", list(HANDLED))
def test_the_same_handlers_see_misses_as_in_fastapi(key: str, served: Any) -> None:
    ask = served(_app(slipstream, _handled(slipstream, key)))
    with FastAPIClient(_app(fastapi, _handled(fastapi, key)), follow_redirects=False) as theirs, \
            slipstream.TestClient(_app(slipstream, _handled(slipstream, key)), follow_redirects=False) as ours:
        for method, path in REQUESTS:
            expected = theirs.request(method, path)
            assert ask(method, path) == (expected.status_code, expected.content), (key, method, path)
            got = ours.request(method, path)
            assert (got.status_code, got.content) == (expected.status_code, expected.content), (key, method, path)


def test_literal_answers_with_a_404_handler(served: Any) -> None:
    ask = served(_app(slipstream, 404))
    assert ask("GET", "/nothing") == (404, b"custom 404")
    assert ask("POST", "/items") == (405, b'{"detail":"Method Not Allowed"}')
    assert ask("GET", "/folder")[0] == 307
    ask_plain = served(_app(slipstream, slipstream.HTTPException))
    assert ask_plain("GET", "/nothing") == (404, b'{"detail":"Not Found"}')
