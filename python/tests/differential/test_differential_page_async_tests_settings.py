"""FastAPI vs Slipstream on the advanced pages "Async Tests" and "Settings and Environment Variables": the app
called through `httpx.AsyncClient(transport=httpx.ASGITransport(app=app))` from async test code (a JSON route, a
422, a 404, a POST body, a Set-Cookie, a header read, dependency_overrides changed between calls; the lifespan run as
asgi-lifespan's LifespanManager runs it, its state read by a route, a streamed body read line by line), and settings from a pydantic model given to routes by a
cached dependency that `dependency_overrides` replaces in tests. Each scenario runs against both frameworks' apps;
the transcripts are compared.

Outcomes join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from functools import lru_cache
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from pydantic import BaseModel

from .diff_support import Outcome, new_app, record


class Settings(BaseModel):
    app_name: str = "Awesome API"
    admin_email: str = "admin@example.com"
    items_per_user: int = 50


@lru_cache
def get_settings() -> Settings:
    return Settings()


class Item(BaseModel):
    name: str
    price: float


def settings_app(fw: Any) -> Any:
    app = new_app(fw)

    @app.get("/")
    async def root() -> Any:
        return {"message": "Tomato"}

    @app.get("/info")
    async def info(settings: Annotated[Settings, fw.Depends(get_settings)]) -> Any:
        return {"app_name": settings.app_name, "admin_email": settings.admin_email, "items": settings.items_per_user}

    @app.post("/items/", status_code=201)
    async def create_item(item: Item, x_client: Annotated[str | None, fw.Header()] = None) -> Any:
        response = fw.responses.JSONResponse({"item": item.model_dump(), "client": x_client}, status_code=201)
        response.set_cookie("last_item", item.name)
        return response

    @app.get("/numbers/{n}")
    async def number(n: int) -> Any:
        return {"n": n}

    return app


def _answer(response: Any) -> tuple[Any, ...]:
    return (
        response.status_code,
        response.headers.get("content-type"),
        response.headers.get("set-cookie"),
        response.content,
    )


async def _async_requests(app: Any) -> list[Any]:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        return [
            _answer(await client.get("/")),
            _answer(await client.get("/numbers/7")),
            _answer(await client.get("/numbers/x")),
            _answer(await client.get("/nowhere")),
            _answer(await client.post("/items/", json={"name": "Foo", "price": 2}, headers={"x-client": "c1"})),
            _answer(await client.post("/items/", json={"name": "Foo"})),
        ]


def _script_async_client(fw: Any) -> list[Any]:
    return asyncio.run(_async_requests(settings_app(fw)))


async def _async_overrides(app: Any) -> list[Any]:
    """dependency_overrides changed between calls of one AsyncClient, as async tests do."""
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://test") as client:
        out = [(await client.get("/info")).json()]
        app.dependency_overrides[get_settings] = lambda: Settings(app_name="Overridden", items_per_user=1)
        out.append((await client.get("/info")).json())
        app.dependency_overrides.clear()
        out.append((await client.get("/info")).json())
        return out


def _script_async_overrides(fw: Any) -> list[Any]:
    return asyncio.run(_async_overrides(settings_app(fw)))


def lifespan_app(fw: Any, events: list[str]) -> Any:
    """The page's lifespan advice: an app whose startup fills state that a route reads, streamed lines too."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[dict[str, Any]]:
        events.append("startup")
        yield {"model": "loaded"}
        events.append("shutdown")

    app = new_app(fw, lifespan=lifespan)

    @app.get("/model")
    async def model(request: fw.Request) -> Any:
        return {"model": request.state.model}

    @app.get("/lines")
    async def lines() -> Any:
        async def produce() -> AsyncIterator[bytes]:
            for i in range(3):
                yield f"{i}\n".encode()

        return fw.responses.StreamingResponse(produce(), media_type="text/plain")

    return app


async def _with_lifespan(app: Any, events: list[str]) -> list[Any]:
    """What asgi-lifespan's LifespanManager does: lifespan.startup, the state handed to every request's scope,
    lifespan.shutdown."""
    scope: dict[str, Any] = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    outbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    task = asyncio.ensure_future(app(scope, inbox.get, outbox.put))
    await inbox.put({"type": "lifespan.startup"})
    out: list[Any] = [(await asyncio.wait_for(outbox.get(), 30))["type"], list(events)]

    async def with_state(inner: dict[str, Any], receive: Any, send: Any) -> None:
        await app({**inner, "state": dict(scope["state"])}, receive, send)

    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=with_state), base_url="http://test") as client:
        out.append((await client.get("/model")).json())
        async with client.stream("GET", "/lines", headers={"accept-encoding": "identity"}) as response:
            out.append((response.status_code, response.headers["content-type"],
                        [line async for line in response.aiter_lines()]))
    await inbox.put({"type": "lifespan.shutdown"})
    out.append((await asyncio.wait_for(outbox.get(), 30))["type"])
    await asyncio.wait_for(task, 30)
    out.append(list(events))
    return out


def _script_async_lifespan(fw: Any) -> list[Any]:
    events: list[str] = []
    return asyncio.run(_with_lifespan(lifespan_app(fw, events), events))


def _script_settings_override(fw: Any) -> list[Any]:
    app = settings_app(fw)
    client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
    with client:
        out = [client.get("/info").json()]
        app.dependency_overrides[get_settings] = lambda: Settings(admin_email="testing_admin@example.com")
        out.append(client.get("/info").json())
        app.dependency_overrides.clear()
        out.append(client.get("/info").json())
    return out


SCRIPTS = [_script_async_client, _script_async_overrides, _script_async_lifespan, _script_settings_override]


def _transcript(script: Callable[[Any], list[Any]], fw: Any) -> Any:
    try:
        return script(fw)
    except Exception as exc:  # noqa: BLE001 - a failure is part of the transcript
        return ("raised", repr(exc))


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda s: s.__name__)
def test_same_transcript(script: Callable[[Any], list[Any]]) -> None:
    transcripts = {fw.__name__: _transcript(script, fw) for fw in (slipstream, fastapi)}
    diffs = []
    if transcripts["slipstream"] != transcripts["fastapi"]:
        diffs.append(f"transcript: slipstream {transcripts['slipstream']!r}, fastapi {transcripts['fastapi']!r}")
    record(Outcome(f"async tests/settings {script.__name__}", None, diffs))
    assert not diffs, "\n".join(diffs)
