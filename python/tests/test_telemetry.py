"""App(telemetry={...}): FastAPI's native OpenTelemetry through the TestClient, with the SDK's in-memory exporter
and metric reader given as the app's providers (the global ones stay unset here; test_telemetry_server.py serves
an app that records on the global providers, over a real socket)."""

import logging
import time
from typing import Annotated, Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import InMemoryLogRecordExporter, SimpleLogRecordProcessor
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from pydantic import BaseModel
from slipstream import App, BackgroundTasks, Depends, HTTPException, TestClient
from slipstream.telemetry import get_telemetry_data

TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
PARENT_ID = "b7ad6b7169203331"


class Item(BaseModel):
    name: str


class Signals:
    """An SDK tracer, meter and logger provider, each with an in-memory exporter or reader."""

    def __init__(self) -> None:
        self.spans = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.spans))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])
        self.logs = InMemoryLogRecordExporter()
        self.logger_provider = LoggerProvider()
        self.logger_provider.add_log_record_processor(SimpleLogRecordProcessor(self.logs))

    def config(self, **options: Any) -> dict[str, Any]:
        return {
            "tracer_provider": self.tracer_provider,
            "meter_provider": self.meter_provider,
            "logger_provider": self.logger_provider,
            **options,
        }

    def server_spans(self) -> list[Any]:
        return [s for s in self.spans.get_finished_spans() if s.kind == SpanKind.SERVER]

    def points(self, name: str) -> list[Any]:
        data = self.reader.get_metrics_data()
        if data is None:  # nothing recorded
            return []
        return [
            p
            for rm in data.resource_metrics
            for sm in rm.scope_metrics
            for m in sm.metrics
            if m.name == name
            for p in m.data.data_points
        ]


def make_app(signals: Signals, **options: Any) -> App:
    app = App(telemetry=signals.config(**options))
    seen: dict[str, Any] = {}
    app.state.seen = seen

    def token(x_token: Annotated[str | None, Depends(lambda: None)] = None) -> str:
        return "t"

    @app.get("/items/{item_id}")
    def read_item(item_id: int, q: str | None = None) -> Any:
        data = get_telemetry_data()
        seen["path"] = data.request.url.path if data is not None else None
        return {"item_id": item_id}

    @app.post("/items")
    async def create_item(item: Item) -> Any:
        return item

    @app.get("/boom")
    def boom() -> Any:
        raise ValueError("broken")

    @app.get("/teapot")
    async def teapot(t: Annotated[str, Depends(token)]) -> Any:
        raise HTTPException(418)

    @app.post("/later")
    async def later(tasks: BackgroundTasks) -> Any:
        tasks.add_task(lambda: seen.setdefault("task", True))
        return {"ok": True}

    return app


@pytest.fixture
def signals() -> Signals:
    return Signals()


def test_server_span_as_fastapi_names_it_with_the_traceparent_as_parent(signals: Signals) -> None:
    with TestClient(make_app(signals)) as client:
        headers = {"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01", "host": "api.example.com:8443"}
        assert client.get("/items/3?q=tea&sig=secret", headers=headers).json() == {"item_id": 3}
    (span,) = signals.server_spans()
    assert (span.name, span.status.status_code) == ("GET /items/{item_id}", StatusCode.UNSET)
    assert dict(span.attributes) == {
        "url.scheme": "http",
        "http.request.method": "GET",
        "network.protocol.version": "1.1",
        "server.address": "api.example.com",
        "server.port": 8443,
        "url.path": "/items/3",
        "url.query": "q=tea&sig=REDACTED",
        "http.route": "/items/{item_id}",
        "http.response.status_code": 200,
    }
    assert format(span.context.trace_id, "032x") == TRACE_ID
    assert format(span.parent.span_id, "016x") == PARENT_ID and span.parent.is_remote
    operations = {s.name: s for s in signals.spans.get_finished_spans() if s.kind == SpanKind.INTERNAL}
    assert sorted(operations) == ["fastapi.dependencies", "fastapi.endpoint", "fastapi.serialization"]
    assert all(s.parent.span_id == span.context.span_id for s in operations.values())
    assert operations["fastapi.endpoint"].attributes["code.function.name"].endswith("make_app.<locals>.read_item")


def test_the_handler_reads_its_request_from_the_telemetry_data(signals: Signals) -> None:
    app = make_app(signals)
    with TestClient(app) as client:
        client.get("/items/5")
    assert app.state.seen["path"] == "/items/5"
    assert get_telemetry_data() is None  # outside a request


def test_errors_misses_and_validation(signals: Signals) -> None:
    with TestClient(make_app(signals), raise_server_exceptions=False) as client:
        assert client.get("/boom").status_code == 500
        assert client.get("/teapot").status_code == 418
        assert client.post("/items", json={"nam": 1}).status_code == 422
        assert client.get("/nowhere").status_code == 404
        assert client.delete("/items/1").status_code == 405
    boom, teapot, invalid, missing, not_allowed = signals.server_spans()
    assert (boom.name, boom.status.status_code, boom.attributes["error.type"]) == (
        "GET /boom",
        StatusCode.ERROR,
        "ValueError",
    )
    assert boom.attributes["http.response.status_code"] == 500
    assert (teapot.status.status_code, teapot.attributes["http.response.status_code"]) == (StatusCode.UNSET, 418)
    assert "error.type" not in teapot.attributes
    assert (invalid.name, invalid.attributes["http.response.status_code"]) == ("POST /items", 422)
    assert (missing.name, missing.attributes["http.response.status_code"]) == ("GET", 404)
    assert "http.route" not in missing.attributes
    assert (not_allowed.name, not_allowed.attributes["http.route"]) == ("DELETE /items/{item_id}", "/items/{item_id}")
    endpoint = [s for s in signals.spans.get_finished_spans() if s.name == "fastapi.endpoint"]
    assert [(s.status.status_code, s.attributes.get("error.type")) for s in endpoint] == [
        (StatusCode.ERROR, "ValueError"),
        (StatusCode.UNSET, None),
    ]  # an HTTPException is an answer
    logs = [r.log_record for r in signals.logs.get_finished_logs()]
    assert [(r.event_name, r.severity_text) for r in logs] == [
        ("http.server.request.exception", "ERROR"),
        ("fastapi.validation.failed", "WARN"),
    ]
    assert logs[0].attributes["http.route"] == "/boom" and logs[0].attributes["exception.type"] == "ValueError"
    assert dict(logs[1].attributes) == {"fastapi.validation.error_count": 1, "http.route": "/items"}
    assert format(logs[0].trace_id, "032x") == format(boom.context.trace_id, "032x")  # log correlation


def test_metrics(signals: Signals) -> None:
    with TestClient(make_app(signals), raise_server_exceptions=False) as client:
        for _ in range(3):
            client.get("/items/1")
        client.get("/boom")
    by_route = {
        (p.attributes.get("http.route"), p.attributes.get("http.response.status_code")): p
        for p in signals.points("http.server.request.duration")
    }
    ok = by_route[("/items/{item_id}", 200)]
    assert ok.count == 3 and ok.explicit_bounds[:3] == (0.005, 0.01, 0.025)
    assert dict(ok.attributes) == {
        "url.scheme": "http",
        "http.request.method": "GET",
        "network.protocol.version": "1.1",
        "http.route": "/items/{item_id}",
        "http.response.status_code": 200,
    }
    assert by_route[("/boom", 500)].attributes["error.type"] == "ValueError"
    (active,) = signals.points("http.server.active_requests")
    assert (dict(active.attributes), active.value) == ({"url.scheme": "http", "http.request.method": "GET"}, 0)


def test_background_tasks_get_their_span(signals: Signals) -> None:
    app = make_app(signals)
    with TestClient(app) as client:
        assert client.post("/later").json() == {"ok": True}
    assert app.state.seen["task"] is True
    (task,) = [s for s in signals.spans.get_finished_spans() if s.name == "fastapi.background_task"]
    (server,) = signals.server_spans()
    assert task.parent.span_id == server.context.span_id


@pytest.mark.parametrize(
    ("options", "spans", "durations", "logs"),
    [
        ({"tracing": False}, [], 1, 1),
        ({"metrics": False}, ["GET /boom", "fastapi.dependencies", "fastapi.endpoint"], 0, 1),
        ({"logs": False}, ["GET /boom", "fastapi.dependencies", "fastapi.endpoint"], 1, 0),
        ({"operation_spans": False}, ["GET /boom"], 1, 1),
        ({"exclude": lambda scope: scope["path"] == "/boom"}, [], 0, 0),
    ],
    ids=["tracing off", "metrics off", "logs off", "operation spans off", "excluded"],
)
def test_options(signals: Signals, options: dict[str, Any], spans: list[str], durations: int, logs: int) -> None:
    with TestClient(make_app(signals, **options), raise_server_exceptions=False) as client:
        assert client.get("/boom").status_code == 500
    assert sorted(s.name for s in signals.spans.get_finished_spans()) == sorted(spans)
    assert len(signals.points("http.server.request.duration")) == durations
    assert len(signals.logs.get_finished_logs()) == logs


def test_nothing_runs_when_telemetry_can_emit_nothing(caplog: Any) -> None:
    caplog.set_level(logging.WARNING)
    quiet = App()  # no telemetry= and no global provider configured in this process
    off = App(telemetry={"tracing": False, "metrics": False, "logs": False})
    unconfigured = App(telemetry={"tracing": True, "operation_spans": False})  # no provider to record on
    for app in (quiet, off, unconfigured):
        app.get("/x")(lambda: {"x": 1})
        with TestClient(app) as client:
            assert client.get("/x").json() == {"x": 1}
        assert app.telemetry is None
        assert app.exception_handlers.middleware is False  # the plain path: no Request, no Python for misses


def test_auto_configure_failures_are_warnings_and_the_app_serves(
    monkeypatch: Any, caplog: Any, signals: Signals
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setenv("OTEL_TRACES_EXPORTER", "zipkin")
    caplog.set_level(logging.WARNING, logger="slipstream")
    app = make_app(signals, auto_configure=True)
    with TestClient(app) as client:
        assert client.get("/items/1").status_code == 200
    assert "automatic telemetry configuration failed: OTEL_TRACES_EXPORTER=zipkin" in caplog.text
    assert [s.name for s in signals.server_spans()] == ["GET /items/{item_id}"]  # the given providers still record


def test_auto_configure_needs_the_otlp_exporter(monkeypatch: Any, caplog: Any, signals: Signals) -> None:
    pytest.importorskip("opentelemetry.sdk")
    if __import__("importlib").util.find_spec("opentelemetry.exporter") is not None:
        pytest.skip("the OTLP exporter is installed here")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    monkeypatch.setenv("SLIPSTREAM_OTEL_AUTO_CONFIGURE", "true")
    caplog.set_level(logging.WARNING, logger="slipstream")
    with TestClient(make_app(signals)) as client:
        assert client.get("/items/1").status_code == 200
    assert "needs opentelemetry-sdk and opentelemetry-exporter-otlp-proto-http" in caplog.text


def test_websocket_connections_get_a_span_and_no_metrics(signals: Signals) -> None:
    from slipstream import WebSocket

    app = App(telemetry=signals.config())

    @app.websocket("/ws/{room}")
    async def chat(websocket: WebSocket, room: str) -> None:
        await websocket.accept()
        await websocket.send_text(room + ":" + await websocket.receive_text())
        await websocket.close()

    with TestClient(app) as client:
        with client.websocket_connect("/ws/blue", headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"}) as ws:
            ws.send_text("hi")
            assert ws.receive_text() == "blue:hi"
        deadline = time.monotonic() + 10  # the span ends once the handler returned
        while not signals.server_spans() and time.monotonic() < deadline:
            time.sleep(0.01)
    (span,) = signals.server_spans()
    assert (span.name, span.status.status_code) == ("WS /ws/{room}", StatusCode.UNSET)
    assert dict(span.attributes) == {
        "url.scheme": "ws",
        "network.protocol.name": "websocket",
        "server.address": "testserver",
        "server.port": 80,
        "http.route": "/ws/{room}",
    }
    assert (format(span.context.trace_id, "032x"), format(span.parent.span_id, "016x")) == (TRACE_ID, PARENT_ID)
    assert signals.points("http.server.request.duration") == []
