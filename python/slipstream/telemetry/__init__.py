"""FastAPI's native OpenTelemetry for an App: `App(telemetry={...})` (FastAPI 0.165's `FastAPI(telemetry=...)`).

With opentelemetry-api installed and an OpenTelemetry provider configured (the global ones, or those given in the
config), every HTTP request gets a SERVER span named and attributed as FastAPI names it ("GET /items/{item_id}",
OpenTelemetry's HTTP semantic conventions), with the request's W3C traceparent as parent; the
`http.server.request.duration` and `http.server.active_requests` metrics; OpenTelemetry log records for validation
failures and unhandled exceptions; and operation spans for the dependencies, the endpoint, serialization and
background tasks. Options and defaults are FastAPI's (TelemetryConfig). An app whose telemetry can emit nothing
when it starts (opentelemetry not installed, every signal off, or no provider configured yet)
serves requests exactly as without this module: nothing of it runs per request.

`_config` holds the options and the start-time decision; `_request` (which imports opentelemetry) the per-request
spans, metrics and logs; `_operations` the operation spans; `_auto` the OTLP export from environment variables.
"""

from __future__ import annotations

from contextlib import nullcontext
from typing import Any

from ._config import TelemetryConfig, TelemetryData, available, config_of

__all__ = ["TelemetryConfig", "TelemetryData", "config_of", "get_telemetry_data"]


def get_telemetry_data(context: Any = None) -> TelemetryData | None:
    """The TelemetryData of the request being handled, read from an OpenTelemetry context (default: the current
    one; a log processor passes `record.context`); None outside a traced request, after it finished, or without
    opentelemetry."""
    if not available():
        return None
    from ._request import current

    record = current(context)
    return record.data if record is not None else None


def resolve(config: dict[str, Any]) -> bool:
    """Whether requests go through telemetry: opentelemetry installed, a signal on, and a provider to record it
    configured when the server is built (given in the config, or global), or auto_configure on (which sets them).
    Providers set later (in the lifespan) are not seen: FastAPI looks per request, this app once."""
    if not any(config[k] for k in ("tracing", "metrics", "logs")) or not available():
        return False
    if config["auto_configure"]:
        return True
    from ._request import any_provider

    return any_provider(config)


def for_app(config: dict[str, Any]) -> Any:
    """The app's per-request telemetry (a _request.AppTelemetry), or None when it can emit nothing: see resolve()."""
    global _spans, _requests
    if not resolve(config):
        return None
    from . import _auto, _request
    from ._request import AppTelemetry

    _auto.configure(config)
    _requests = _request
    if config["operation_spans"] and config["tracing"] and _spans is None:
        from . import _operations as operations

        _spans = operations
    return AppTelemetry(config)


_NOTHING = nullcontext()
_spans: Any = None  # the _operations module, once an app with operation spans has started
_requests: Any = None  # the _request module, once an app's telemetry has started


def route_selected(path: str | None) -> None:
    """The route pattern chosen for the current request where the engine's match is not it (a 405 or a
    redirect answered by the catch-all route): its span's name and http.route."""
    if _requests is not None:
        _requests.route_selected(path)


def validation_failed(exc: Any) -> None:
    """A RequestValidationError raised for the current request: recorded (TelemetryData, a WARN log record)."""
    if _requests is not None:
        _requests.validation_failed(exc)


def operating() -> bool:
    """Whether operation spans may be recorded (an app with them has started): callers take their plain path
    otherwise."""
    return _spans is not None


def operation(name: str, function: Any) -> Any:
    """A context manager: FastAPI's operation span `fastapi.<name>` in the current traced request; a no-op (one
    global read) while no app has telemetry with operation spans."""
    if _spans is None:
        return _NOTHING
    return _spans.operation(name, function)
