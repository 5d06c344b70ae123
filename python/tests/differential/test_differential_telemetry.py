"""FastAPI vs Slipstream on the advanced page "OpenTelemetry": the spans `FastAPI(telemetry={...})` records and
`App(telemetry={...})` records for the same requests, compared by name, kind, status and attributes (the SERVER
span, then the operation spans in the order they end).

Each framework's app gets its own SDK TracerProvider with an in-memory exporter (telemetry={"tracer_provider": ...}),
so the global providers are left alone. Rows join the session's match rate (diff_support.record).
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")
pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from .diff_support import Outcome, build_request, record

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class Item(BaseModel):
    name: str
    price: float


def _starlette_app() -> Any:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def status(request: Any) -> Any:
        return PlainTextResponse("up")

    return Starlette(routes=[Route("/status", status)])


def traced_app(fw: Any) -> tuple[Any, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    options = {"title": "Differential", "telemetry": {"tracer_provider": provider}}
    app = fw.FastAPI(**options) if fw.__name__ == "fastapi" else fw.App(**options)

    def common(x_token: Annotated[str | None, fw.Header()] = None) -> str:
        return x_token or "none"

    def log_it(message: str) -> None:
        return None

    @app.get("/items/{item_id}")
    def read_item(item_id: int, q: str | None = None) -> Any:
        return {"item_id": item_id, "q": q}

    @app.post("/items")
    async def create_item(item: Item) -> Any:
        return item

    @app.get("/with-dependency")
    async def with_dependency(token: Annotated[str, fw.Depends(common)]) -> Any:
        return {"token": token}

    @app.get("/boom")
    def boom() -> Any:
        raise ValueError("broken")

    @app.get("/teapot")
    async def teapot() -> Any:
        raise fw.HTTPException(status_code=418, detail="short and stout")

    @app.get("/plain")
    def plain() -> Any:
        return fw.responses.PlainTextResponse("plain")

    @app.post("/notify")
    async def notify(background_tasks: fw.BackgroundTasks) -> Any:
        background_tasks.add_task(log_it, "sent")
        return {"queued": True}

    @app.get("/slash/")
    def slash() -> Any:
        return {"slash": True}

    app.mount("/legacy", _starlette_app())

    @app.websocket("/ws/echo")
    async def echo(websocket: fw.WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text(await websocket.receive_text())
        await websocket.close()

    @app.websocket("/ws/broken")
    async def broken(websocket: fw.WebSocket) -> None:
        await websocket.accept()
        raise RuntimeError("handler failed")

    @app.websocket("/ws/items/{item_id}")
    async def ws_item(websocket: fw.WebSocket, item_id: int) -> None:
        await websocket.accept()
        await websocket.send_json({"item_id": item_id})
        await websocket.close()

    return app, exporter


ROWS = [
    ("GET", "/items/3?q=tea", {}),
    ("GET", "/items/3?sig=secret&q=a", {}),
    ("GET", "/items/4", {"headers": {"traceparent": TRACEPARENT}}),
    ("GET", "/items/four", {}),
    ("POST", "/items", {"json": {"name": "x", "price": 2.5}}),
    ("POST", "/items", {"json": {"name": "x"}}),
    ("GET", "/with-dependency", {"headers": {"x-token": "abc"}}),
    ("GET", "/boom", {}),
    ("GET", "/teapot", {}),
    ("GET", "/plain", {}),
    ("POST", "/notify", {}),
    ("GET", "/missing", {}),
    ("DELETE", "/items/3", {}),
    ("GET", "/slash", {}),
    ("GET", "/legacy/status", {}),
    ("GET", "/legacy/missing", {}),
]


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[], tuple[Any, Any]]]:
    import slipstream
    from fastapi.testclient import TestClient as FastAPIClient

    ours_app, ours_spans = traced_app(slipstream)
    theirs_app, theirs_spans = traced_app(fastapi)
    ours = slipstream.TestClient(ours_app, raise_server_exceptions=False, follow_redirects=False)
    theirs = FastAPIClient(theirs_app, raise_server_exceptions=False, follow_redirects=False)
    yield (ours, ours_spans), (theirs, theirs_spans)
    ours.close()
    theirs.close()


def _span_view(span: Any) -> tuple[Any, ...]:
    attributes = dict(span.attributes)
    return (span.name, span.kind.name, span.status.status_code.name, attributes)


def _spans(client: Any, exporter: InMemorySpanExporter, method: str, url: str, kwargs: dict[str, Any]) -> Any:
    exporter.clear()
    body, headers = build_request(kwargs)
    response = client.request(method, url, content=body, headers=headers)
    spans = exporter.get_finished_spans()
    server = [s for s in spans if s.kind.name == "SERVER"]
    assert len(server) == 1, [s.name for s in spans]
    operations = sorted(_span_view(s) for s in spans if s.kind.name != "SERVER")
    trace_ids = {format(s.context.trace_id, "032x") for s in spans}
    parent = format(server[0].parent.span_id, "016x") if server[0].parent is not None else None
    return response.status_code, _span_view(server[0]), operations, trace_ids, parent


@pytest.mark.parametrize(("method", "url", "kwargs"), ROWS, ids=[f"{m} {u} {k}" for m, u, k in ROWS])
def test_same_spans(pair: Any, request: Any, method: str, url: str, kwargs: dict[str, Any]) -> None:
    (ours, ours_spans), (theirs, theirs_spans) = pair
    expected = _spans(theirs, theirs_spans, method, url, kwargs)
    got = _spans(ours, ours_spans, method, url, kwargs)
    diffs = []
    names = ("status", "server span", "operation spans")
    for name, mine, reference in zip(names, got[:3], expected[:3]):
        if mine != reference:
            diffs.append(f"{name}: slipstream {mine!r} != fastapi {reference!r}")
    if "traceparent" in kwargs.get("headers", {}):
        for name, mine, reference in (("trace ids", got[3], expected[3]), ("parent", got[4], expected[4])):
            if mine != reference:
                diffs.append(f"{name}: slipstream {mine!r} != fastapi {reference!r}")
    record(Outcome(request.node.callspec.id, None, diffs))
    assert not diffs, "\n".join(diffs)


WEBSOCKET_ROWS = [("/ws/echo", "hi"), ("/ws/broken", None), ("/ws/items/5", None), ("/ws/items/five", None)]


def _websocket_spans(client: Any, exporter: InMemorySpanExporter, path: str, message: str | None) -> Any:
    exporter.clear()
    # A refused or failed connection raises here: its spans are compared all the same.
    with contextlib.suppress(Exception), client.websocket_connect(path, headers={"traceparent": TRACEPARENT}) as ws:
        if message is not None:
            ws.send_text(message)
        ws.receive()
    deadline = time.monotonic() + 10  # the server ends the span after the handler returned: wait for it
    while not any(s.kind.name == "SERVER" for s in exporter.get_finished_spans()) and time.monotonic() < deadline:
        time.sleep(0.01)
    spans = exporter.get_finished_spans()
    server = [_span_view(s) for s in spans if s.kind.name == "SERVER"]
    return server, sorted(_span_view(s) for s in spans if s.kind.name != "SERVER")


@pytest.mark.parametrize(("path", "message"), WEBSOCKET_ROWS, ids=[p for p, _ in WEBSOCKET_ROWS])
def test_same_websocket_spans(pair: Any, request: Any, path: str, message: str | None) -> None:
    (ours, ours_spans), (theirs, theirs_spans) = pair
    expected = _websocket_spans(theirs, theirs_spans, path, message)
    got = _websocket_spans(ours, ours_spans, path, message)
    diffs = [
        f"{name}: slipstream {mine!r} != fastapi {reference!r}"
        for name, mine, reference in zip(("server span", "operation spans"), got, expected)
        if mine != reference
    ]
    record(Outcome(request.node.callspec.id, None, diffs))
    assert not diffs, "\n".join(diffs)
