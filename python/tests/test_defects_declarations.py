"""Declarations that FastAPI serves and Slipstream used to get wrong (issue 30, items 13, 14, 18, 19, 20): the same
app runs under both frameworks, through a real server (Slipstream's TestClient) and FastAPI's TestClient, and the
answers (status, JSON body, selected headers) or the OpenAPI documents must be equal."""

import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")
import slipstream
import starlette.exceptions
from fastapi.testclient import TestClient as FastAPIClient

Factory = Callable[[Any], Any]


def new_app(fw: Any) -> Any:
    return fw.FastAPI() if fw is fastapi else fw.App()


@pytest.fixture
def pair() -> Iterator[Callable[[Factory], tuple[Any, Any]]]:
    """pair(factory) -> (Slipstream client, FastAPI client) for the app `factory(framework module)`."""
    opened: list[Any] = []

    def make(factory: Factory) -> tuple[Any, Any]:
        ours = slipstream.TestClient(factory(slipstream))
        theirs = FastAPIClient(factory(fastapi), raise_server_exceptions=False)
        opened.extend((ours, theirs))
        return ours, theirs

    yield make
    for client in opened:
        client.close()


def same_answer(clients: tuple[Any, Any], method: str, url: str, **kwargs: Any) -> Any:
    """Sends one request to both; asserts the status, the JSON body and the given headers match; returns ours."""
    ours, theirs = clients
    headers = kwargs.pop("compare_headers", ())
    a = ours.request(method, url, **kwargs)
    b = theirs.request(method, url, **kwargs)
    assert (a.status_code, a.json()) == (b.status_code, b.json()), f"{method} {url} {kwargs}"
    for name in headers:
        assert a.headers.get(name) == b.headers.get(name), name
    return a


# ---- item 14: `items: list = Form()` keeps every value ----

def bare_list_form_app(fw: Any) -> Any:
    app = new_app(fw)

    @app.post("/tags")
    def tags(items: list = fw.Form(), single: str = fw.Form("x"),  # noqa: B008 - FastAPI style
             kinds: Annotated[set | None, fw.Form()] = None) -> dict[str, Any]:
        return {"items": items, "single": single, "kinds": sorted(kinds) if kinds is not None else None}

    return app


def test_bare_list_form_field_keeps_every_value(pair: Any) -> None:
    clients = pair(bare_list_form_app)
    r = same_answer(clients, "POST", "/tags", content=b"items=a&items=b&single=s1&single=s2&kinds=k&kinds=j",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.json() == {"items": ["a", "b"], "single": "s2", "kinds": ["j", "k"]}
    r = same_answer(clients, "POST", "/tags", content=b"items=only",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.json() == {"items": ["only"], "single": "x", "kinds": None}
    r = same_answer(clients, "POST", "/tags", content=b"single=s",
                    headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 422


# ---- item 20: Starlette's HTTPException and slipstream's are one hierarchy ----

def http_exception_app(fw: Any) -> Any:
    app = new_app(fw)
    seen: list[str] = []

    @app.get("/starlette")
    def raises_starlette() -> None:
        raise starlette.exceptions.HTTPException(404, "no such thing", headers={"x-why": "gone"})

    @app.get("/starlette-default")
    def raises_starlette_default() -> None:
        raise starlette.exceptions.HTTPException(418)

    @app.get("/own")
    def raises_own() -> None:
        raise fw.HTTPException(409, "conflict")

    return app, seen


def test_starlette_http_exception_is_answered_with_its_status(pair: Any) -> None:
    clients = pair(lambda fw: http_exception_app(fw)[0])
    r = same_answer(clients, "GET", "/starlette", compare_headers=("x-why",))
    assert (r.status_code, r.json(), r.headers["x-why"]) == (404, {"detail": "no such thing"}, "gone")
    r = same_answer(clients, "GET", "/starlette-default")
    assert (r.status_code, r.json()) == (418, {"detail": "I'm a Teapot"})
    assert issubclass(slipstream.HTTPException, starlette.exceptions.HTTPException)


def test_handler_for_starlette_http_exception_catches_slipstreams(pair: Any) -> None:
    def factory(fw: Any) -> Any:
        app, _ = http_exception_app(fw)

        @app.exception_handler(starlette.exceptions.HTTPException)
        def handler(request: Any, exc: Any) -> Any:
            return fw.responses.JSONResponse({"module": type(exc).__module__.split(".")[0], "status": exc.status_code,
                                              "detail": exc.detail}, status_code=299)

        return app

    clients = pair(factory)
    ours, _ = clients
    r = same_answer(clients, "GET", "/starlette")
    assert (r.status_code, r.json()) == (299, {"module": "starlette", "status": 404, "detail": "no such thing"})
    r = ours.get("/own")  # FastAPI's class is fastapi.exceptions.HTTPException: only the module differs
    assert (r.status_code, r.json()) == (299, {"module": "slipstream", "status": 409, "detail": "conflict"})
    assert clients[1].get("/own").json() == {"module": "fastapi", "status": 409, "detail": "conflict"}


def test_http_exception_without_starlette_installed() -> None:
    """Starlette is optional: with it unimportable, slipstream's HTTPException is still answered as before."""
    script = textwrap.dedent("""
        import sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name == "starlette" or name.startswith("starlette."):
                    raise ImportError("starlette blocked")
                return None
        sys.meta_path.insert(0, Block())
        import slipstream
        assert slipstream.HTTPException.__mro__[1] is Exception, slipstream.HTTPException.__mro__
        app = slipstream.App()

        @app.get("/x")
        def x():
            raise slipstream.HTTPException(409, "conflict", headers={"x-a": "1"})

        @app.exception_handler(418)
        def teapot(request, exc):
            return slipstream.JSONResponse({"handled": exc.detail}, status_code=200)

        @app.get("/t")
        def t():
            raise slipstream.HTTPException(418)

        with slipstream.TestClient(app) as client:
            r = client.get("/x")
            print(r.status_code, r.json(), r.headers["x-a"])
            r = client.get("/t")
            print(r.status_code, r.json())
        print("starlette" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False,
                          env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["409 {'detail': 'conflict'} 1", "200 {'handled': \"I'm a Teapot\"}", "False"]
