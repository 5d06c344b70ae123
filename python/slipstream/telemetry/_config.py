"""TelemetryConfig (FastAPI's options and defaults), TelemetryData, and whether an app's telemetry can emit
anything at all (decided once, when the app's server is built)."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

# FastAPI's variable, and this package's name for it.
AUTO_CONFIGURE_VARIABLES = ("SLIPSTREAM_OTEL_AUTO_CONFIGURE", "FASTAPI_OTEL_AUTO_CONFIGURE")


class TelemetryConfig(TypedDict, total=False):
    """`App(telemetry={...})`: omitted keys keep their defaults (FastAPI's).

    tracer_provider / meter_provider / logger_provider: used instead of the global providers (never shut down by
    the app). tracing (True): a SERVER span per HTTP request. metrics (True): http.server.request.duration and
    http.server.active_requests. logs (True): log records for validation failures and unhandled exceptions, with
    the exception's message and stack trace. operation_spans (True): spans for the dependencies, the endpoint,
    serialization and background tasks. auto_configure (False unless SLIPSTREAM_OTEL_AUTO_CONFIGURE or
    FASTAPI_OTEL_AUTO_CONFIGURE is "true"): OTLP/HTTP exporters from the OTEL_* environment variables, added at
    start-up. exclude: `f(scope) -> bool`, True skips the request (the scope is the Request's ASGI-like scope).
    """

    tracer_provider: Any
    meter_provider: Any
    logger_provider: Any
    tracing: bool
    metrics: bool
    logs: bool
    operation_spans: bool
    auto_configure: bool
    exclude: Callable[[MutableMapping[str, Any]], bool] | None


@dataclass(kw_only=True)
class TelemetryData:
    """What the app knows of the request being handled, for synchronous OpenTelemetry processors (read-only):
    the Request once its route runs, the body as read before validation, the handler's arguments once the
    dependencies are solved, and the validation errors with their input values."""

    request: Any = None
    websocket: Any = None
    body: Any = None
    values: dict[str, Any] | None = None
    errors: Sequence[Any] | None = None


_BOOLEANS = ("tracing", "metrics", "logs", "operation_spans", "auto_configure")
_KEYS = frozenset((*_BOOLEANS, "tracer_provider", "meter_provider", "logger_provider", "exclude"))


def config_of(telemetry: Any) -> dict[str, Any]:
    """The full config from `App(telemetry=...)` (None or a mapping); TypeError for a key FastAPI does not have
    or a value of the wrong type."""
    if telemetry is not None and not isinstance(telemetry, Mapping):
        raise TypeError(f"telemetry= takes a dict of TelemetryConfig options, not {type(telemetry).__name__}")
    given = dict(telemetry or {})
    unknown = sorted(set(given) - _KEYS)
    if unknown:
        raise TypeError(
            f"telemetry=: unknown option(s) {', '.join(unknown)}; the options are {', '.join(sorted(_KEYS))}"
        )
    for key in _BOOLEANS:
        if key in given and not isinstance(given[key], bool):
            raise TypeError(f"telemetry={{{key!r}: ...}} takes True or False, not {given[key]!r}")
    if given.get("exclude") is not None and not callable(given["exclude"]):
        raise TypeError("telemetry={'exclude': ...} takes a function of the request's scope")
    auto = any(os.environ.get(name, "").lower() == "true" for name in AUTO_CONFIGURE_VARIABLES)
    return {
        "tracer_provider": None,
        "meter_provider": None,
        "logger_provider": None,
        "tracing": True,
        "metrics": True,
        "logs": True,
        "operation_spans": True,
        "auto_configure": auto,
        "exclude": None,
        **given,
    }


def available() -> bool:
    """Whether opentelemetry-api is installed (found without importing it)."""
    try:
        return importlib.util.find_spec("opentelemetry.trace") is not None
    except ModuleNotFoundError:
        return False
