"""FastAPI vs Slipstream on the advanced pages "Lifespan Events" and "Testing Events: lifespan and startup -
shutdown": an `asynccontextmanager` lifespan that loads a model before the first request and clears it after the
last, state yielded by the lifespan (`request.state`), `@app.on_event("startup"/"shutdown")` handlers (deprecated,
still run), a router's lifespan merged into the app's, and `with TestClient(app)` entering and leaving them (a
client used without `with` does not). Each scenario runs through both frameworks' TestClients; the transcripts
(answers and the order of events) are compared.

Outcomes join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import warnings
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient

from .diff_support import Outcome, new_app, record


def lifespan_app(fw: Any, events: list[str]) -> Any:
    models: dict[str, Any] = {}

    @asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[dict[str, Any]]:
        events.append("lifespan start")
        models["answer"] = lambda x: x * 42
        yield {"greeting": "hello from the lifespan"}
        models.clear()
        events.append("lifespan end")

    app = new_app(fw, lifespan=lifespan)

    @app.get("/predict")
    async def predict(x: float) -> Any:
        if "answer" not in models:
            raise fw.HTTPException(status_code=503, detail="model not loaded")
        events.append(f"predict {x}")
        return {"result": models["answer"](x)}

    @app.get("/state")
    async def state(request: fw.Request) -> Any:
        return {"greeting": getattr(request.state, "greeting", None)}

    return app


def events_app(fw: Any, events: list[str]) -> Any:
    app = new_app(fw)
    items: dict[str, Any] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)

        @app.on_event("startup")
        async def startup_event() -> None:
            events.append("startup")
            items["foo"] = {"name": "Fighters"}

        @app.on_event("shutdown")
        def shutdown_event() -> None:
            events.append("shutdown")

    @app.get("/items/{item_id}")
    async def read_items(item_id: str) -> Any:
        if item_id not in items:
            raise fw.HTTPException(status_code=404, detail="not started")
        return items[item_id]

    return app


def router_lifespan_app(fw: Any, events: list[str]) -> Any:
    @asynccontextmanager
    async def app_lifespan(app: Any) -> AsyncIterator[dict[str, Any]]:
        events.append("app start")
        yield {"app_key": "app"}
        events.append("app end")

    @asynccontextmanager
    async def router_lifespan(app: Any) -> AsyncIterator[dict[str, Any]]:
        events.append("router start")
        yield {"router_key": "router"}
        events.append("router end")

    router = fw.APIRouter(lifespan=router_lifespan)

    @router.get("/keys")
    async def keys(request: fw.Request) -> Any:
        return {k: getattr(request.state, k, None) for k in ("app_key", "router_key")}

    app = new_app(fw, lifespan=app_lifespan)
    app.include_router(router)
    return app


def _client(fw: Any, app: Any) -> Any:
    if fw is slipstream:
        return slipstream.TestClient(app, raise_server_exceptions=False)
    return FastAPIClient(app, raise_server_exceptions=False)


def _answer(response: Any) -> tuple[int, Any]:
    return response.status_code, response.json()


def _script_lifespan(fw: Any, events: list[str]) -> list[Any]:
    out: list[Any] = []
    client = _client(fw, lifespan_app(fw, events))
    with client:
        out += [_answer(client.get("/predict?x=2")), _answer(client.get("/state"))]
        events.append("client open")
    out.append(list(events))
    return out


def _script_without_with(fw: Any, events: list[str]) -> list[Any]:
    client = _client(fw, lifespan_app(fw, events))
    out = [_answer(client.get("/predict?x=2")), list(events)]
    client.close()
    return out


def _script_on_event(fw: Any, events: list[str]) -> list[Any]:
    out: list[Any] = []
    with _client(fw, events_app(fw, events)) as client:
        out.append(_answer(client.get("/items/foo")))
        out.append(_answer(client.get("/items/bar")))
    out.append(list(events))
    return out


def _script_router_lifespan(fw: Any, events: list[str]) -> list[Any]:
    out: list[Any] = []
    with _client(fw, router_lifespan_app(fw, events)) as client:
        out.append(_answer(client.get("/keys")))
    out.append(list(events))
    return out


SCRIPTS = [_script_lifespan, _script_without_with, _script_on_event, _script_router_lifespan]


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.__name__)
def test_same_transcript(script: Callable[[Any, list[str]], list[Any]]) -> None:
    transcripts = {fw.__name__: script(fw, []) for fw in (slipstream, fastapi)}
    diffs = []
    if transcripts["slipstream"] != transcripts["fastapi"]:
        diffs.append(f"transcript: slipstream {transcripts['slipstream']!r}, fastapi {transcripts['fastapi']!r}")
    record(Outcome(f"lifespan {script.__name__}", None, diffs))
    assert not diffs, "\n".join(diffs)
