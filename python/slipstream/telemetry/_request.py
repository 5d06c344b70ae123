"""Per-request telemetry (imported only when an app's telemetry is on): the SERVER span, the HTTP metrics and the
log records, as FastAPI 0.165 records them, on the providers of opentelemetry-api."""

from __future__ import annotations

import os
from time import perf_counter, time_ns
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from opentelemetry import _logs, metrics, propagate, trace
from opentelemetry import context as otel_context
from opentelemetry._logs import SeverityNumber
from opentelemetry.trace import SpanKind, StatusCode

from ._config import TelemetryData

SCOPE_NAME = "slipstream"
SCHEMA_URL = "https://opentelemetry.io/schemas/1.44.0"
# OpenTelemetry's HTTP semantic conventions: the methods kept as they are (others are "_OTHER"), the query
# parameters whose value is redacted, and the duration histogram's advised buckets (seconds).
_HTTP_METHODS = frozenset(("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE"))
_SENSITIVE_QUERY = frozenset(("X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "sig", "X-Goog-Signature"))
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0)
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# The API's placeholders before an SDK (or a vendor) sets a global provider.
_PROXIES = frozenset(
    (
        ("opentelemetry.trace", "ProxyTracerProvider"),
        ("opentelemetry.metrics._internal", "_ProxyMeterProvider"),
        ("opentelemetry._logs._internal", "ProxyLoggerProvider"),
    )
)
_NO_OPS = (trace.NoOpTracerProvider, metrics.NoOpMeterProvider, _logs.NoOpLoggerProvider)
KEY = otel_context.create_key("slipstream.request")
CATCH_ALL = "/{__slipstream_path:path}"  # middleware.CATCH_ALL_PATTERN


def _placeholder(provider: Any) -> bool:
    cls = type(provider)
    return (cls.__module__, cls.__name__) in _PROXIES


def _usable(given: Any, global_provider: Any) -> Any:
    """The provider a signal records on, or None: the given one, else the global one once configured."""
    provider = given if given is not None else global_provider
    if (given is None and _placeholder(provider)) or isinstance(provider, _NO_OPS):
        return None
    return provider


def any_provider(config: dict[str, Any]) -> bool:
    """Whether some enabled signal has a provider to record on now."""
    return bool(
        (config["tracing"] and _usable(config["tracer_provider"], trace.get_tracer_provider()))
        or (config["metrics"] and _usable(config["meter_provider"], metrics.get_meter_provider()))
        or (config["logs"] and _usable(config["logger_provider"], _logs.get_logger_provider()))
    )


def current(context: Any = None) -> RequestTelemetry | None:
    value = otel_context.get_value(KEY, context)
    return value if isinstance(value, RequestTelemetry) else None


def route_selected(path: str | None) -> None:
    record = current()
    if record is not None:
        record.set_route(path)


def validation_failed(exc: Any) -> None:
    record = current()
    if record is not None:
        record.validation_failed(exc)


def exception_type(exc: BaseException) -> str:
    cls = type(exc)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _server_attributes(request: Any) -> dict[str, Any]:
    """server.address and server.port from the Host header (omitted when it is malformed)."""
    authority = request.headers.get("host")
    if authority is None:
        return {}
    try:
        url = urlsplit("//" + authority)
        address, port = url.hostname, url.port
    except ValueError:
        return {}
    if address is None or url.username is not None or url.path or url.query or url.fragment:
        return {}
    port = port if port is not None else _DEFAULT_PORTS.get(request.scheme)
    return {"server.address": address, "server.port": port} if port is not None else {"server.address": address}


def _query(query_string: str) -> str:
    pairs = parse_qsl(query_string, keep_blank_values=True)
    return urlencode([(k, "REDACTED" if k in _SENSITIVE_QUERY else v) for k, v in pairs])


class _Headers:
    """The propagator's getter over the Request's headers (baggage's values joined, as its propagator reads one)."""

    @staticmethod
    def get(carrier: Any, key: str) -> list[str] | None:
        values = carrier.getlist(key)
        if not values:
            return None
        return [",".join(values)] if key.lower() == "baggage" else values

    @staticmethod
    def keys(carrier: Any) -> list[str]:
        return list(carrier.keys())


_GETTER = _Headers()


class AppTelemetry:
    """An app's telemetry: its config, its tracer and instruments (made again when a provider changes)."""

    def __init__(self, config: dict[str, Any]) -> None:
        from .. import __version__ as version

        self.config = config
        self.version = version
        known = os.environ.get("OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS", "").strip()
        self.known_methods = frozenset(m.strip() for m in known.split(",") if m.strip()) if known else _HTTP_METHODS
        self._tracer_provider: Any = None
        self._tracer: Any = None
        self._meter_provider: Any = None
        self._instruments: tuple[Any, Any] | None = None

    def _tracer_for(self, provider: Any) -> Any:
        if provider is not self._tracer_provider:
            self._tracer = provider.get_tracer(SCOPE_NAME, self.version, schema_url=SCHEMA_URL)
            self._tracer_provider = provider
        return self._tracer

    def _instruments_for(self, provider: Any) -> tuple[Any, Any]:
        if provider is not self._meter_provider or self._instruments is None:
            meter = provider.get_meter(SCOPE_NAME, self.version, schema_url=SCHEMA_URL)
            self._instruments = (
                meter.create_histogram(
                    "http.server.request.duration",
                    unit="s",
                    description="Duration of HTTP server requests.",
                    explicit_bucket_boundaries_advisory=_BUCKETS,
                ),
                meter.create_up_down_counter(
                    "http.server.active_requests",
                    unit="{request}",
                    description="Number of active HTTP server requests.",
                ),
            )
            self._meter_provider = provider
        return self._instruments

    def start_websocket(self, websocket: Any, route: str) -> RequestTelemetry | None:
        """A WebSocket connection's telemetry, as FastAPI records it: a SERVER span "WS <route>" and log records,
        no metrics; finish() when the handler ended."""
        return self.start(websocket, route=route, websocket=True)

    def start(self, request: Any, *, route: str | None = None, websocket: bool = False) -> RequestTelemetry | None:
        """The request's telemetry, attached to the current context (end it with finish()); None when nothing is
        recorded for it (then nothing else runs)."""
        config = self.config
        if config["exclude"] is not None and config["exclude"](request.scope):
            return RequestTelemetry.excluded()
        tracer_provider = _usable(config["tracer_provider"], trace.get_tracer_provider()) if config["tracing"] else None
        meter_provider = (
            _usable(config["meter_provider"], metrics.get_meter_provider())
            if config["metrics"] and not websocket
            else None
        )
        logger_provider = _usable(config["logger_provider"], _logs.get_logger_provider()) if config["logs"] else None
        if tracer_provider is None and meter_provider is None and logger_provider is None:
            return None
        record = RequestTelemetry(self, request, tracer_provider, meter_provider, logger_provider, websocket)
        route = route if websocket else getattr(request, "route_path", None)
        if route and route != CATCH_ALL:  # the catch-all route of the misses: no route (FastAPI's 404)
            record.set_route(route)
        return record

    def exception(self, exc: BaseException) -> None:
        """An exception no handler took (answered 500): recorded on the current request."""
        record = current()
        if record is not None:
            record.exception(exc)


class RequestTelemetry:
    """One request: its span (or None), its attributes and what finish() records."""

    data: TelemetryData | None

    @classmethod
    def excluded(cls) -> RequestTelemetry:
        """A request the app's `exclude` skips: attached with nothing to record (so nothing nested inherits an
        outer request's telemetry)."""
        record = cls.__new__(cls)
        record.span = None
        record.tracer = None
        record.logger = None
        record.route = None
        record.data = None
        record.finished = True
        record.websocket = False
        record.errors = []
        record._token = otel_context.attach(otel_context.set_value(KEY, None))
        record._parent_token = None
        return record

    def __init__(
        self,
        owner: AppTelemetry,
        request: Any,
        tracer_provider: Any,
        meter_provider: Any,
        logger_provider: Any,
        websocket: bool = False,
    ) -> None:
        self.websocket = websocket
        original = "" if websocket else request.method
        method = original if original in owner.known_methods else "_OTHER"
        self.span_method = "WS" if websocket else "HTTP" if method == "_OTHER" else method
        if websocket:
            self.attributes: dict[str, Any] = {"url.scheme": request.scheme, "network.protocol.name": "websocket"}
        else:
            self.attributes = {
                "url.scheme": request.scheme,
                "http.request.method": method,
                "network.protocol.version": "1.1",
            }
        self.active_attributes = {"url.scheme": request.scheme, "http.request.method": method}
        self.route: str | None = None
        self.status: int | None = None
        self.errors: list[BaseException] = []
        self.finished = False
        self.data = TelemetryData(websocket=request) if websocket else TelemetryData(request=request)
        self.started = perf_counter()
        self.duration, self.active = (
            owner._instruments_for(meter_provider) if meter_provider is not None else (None, None)
        )
        if self.active is not None:
            self.active.add(1, self.active_attributes)
        self.logger = (
            _logs.get_logger(SCOPE_NAME, owner.version, logger_provider, schema_url=SCHEMA_URL)
            if logger_provider is not None
            else None
        )
        self.span = None
        self.tracer = None
        self._parent_token = None
        if tracer_provider is not None:
            parent = propagate.extract(request.headers, getter=_GETTER)
            self._parent_token = otel_context.attach(parent)
            tracer = owner._tracer_for(tracer_provider)
            attributes = {**self.attributes, **_server_attributes(request)}
            if not websocket:
                attributes["url.path"] = request.path
                if request.query_string:
                    attributes["url.query"] = _query(request.query_string)
                if original != method:
                    attributes["http.request.method_original"] = original
            self.span = tracer.start_span(self.span_method, context=parent, kind=SpanKind.SERVER, attributes=attributes)
            self.tracer = tracer if owner.config["operation_spans"] else None
        context = otel_context.set_value(KEY, self)
        if self.span is not None:
            context = trace.set_span_in_context(self.span, context)
        self._token = otel_context.attach(context)

    def set_route(self, path: str | None) -> None:
        if path is None or self.finished:
            return
        self.route = path
        if self.span is not None:
            self.span.set_attribute("http.route", path)
            self.span.update_name(f"{self.span_method} {path}")

    def exception(self, exc: BaseException) -> None:
        if self.finished or any(seen is exc for seen in self.errors):
            return
        self.errors.append(exc)
        if self.logger is not None and isinstance(exc, Exception):
            self.logger.emit(
                exception=exc,
                event_name="fastapi.websocket.exception" if self.websocket else "http.server.request.exception",
                timestamp=time_ns(),
                severity_number=SeverityNumber.ERROR,
                severity_text="ERROR",
                body="Unhandled exception in WebSocket connection"
                if self.websocket
                else "Unhandled exception in request",
                attributes={"http.route": self.route} if self.route else None,
            )

    def validation_failed(self, exc: Any) -> None:
        """A RequestValidationError (the 422 FastAPI raises; for a WebSocket, its invalid parameters): its body and
        errors, and a WARN log record."""
        errors = exc.errors() if callable(exc.errors) else exc.errors
        if self.data is not None:
            if not self.websocket:
                self.data.body = exc.body
            self.data.errors = errors
        if self.logger is not None:
            attributes: dict[str, Any] = {"fastapi.validation.error_count": len(errors)}
            if self.route is not None:
                attributes["http.route"] = self.route
            self.logger.emit(
                event_name="fastapi.validation.failed",
                timestamp=time_ns(),
                severity_number=SeverityNumber.WARN,
                severity_text="WARN",
                body="Request validation failed",
                attributes=attributes,
            )

    def finish(self, status: int | None = None, error: BaseException | None = None) -> None:
        """The response was sent with `status` (or the request failed with `error`): ends the span and records
        the metrics, once."""
        if self.finished:
            return
        self.finished = True
        attributes = self.attributes
        if self.route is not None:
            attributes["http.route"] = self.route
        if status is not None:
            self.status = status
            attributes["http.response.status_code"] = status
        failed = error is not None or (not self.websocket and (status is None or status >= 500))
        if failed:
            failure = error or (self.errors[-1] if self.errors else None)
            attributes["error.type"] = (
                exception_type(failure) if failure is not None else str(status or "incomplete_response")
            )
        if self.span is not None:
            self.span.set_attributes(attributes)
            if failed:
                self.span.set_status(StatusCode.ERROR)
        if self.duration is not None:
            self.duration.record(max(0.0, perf_counter() - self.started), attributes)
        if self.active is not None:
            self.active.add(-1, self.active_attributes)
        if self.span is not None:
            self.span.end()

    def detach(self) -> None:
        """Leaves the request's context (after finish() and what runs after the response)."""
        self.data = None
        self.errors = []
        otel_context.detach(self._token)
        if self._parent_token is not None:
            otel_context.detach(self._parent_token)
