"""auto_configure: OTLP/HTTP exporters from the OTEL_* environment variables, added once per provider when an app
with telemetry starts (FastAPI's rules: OTEL_{TRACES,METRICS,LOGS}_EXPORTER otlp or none, the endpoint from
OTEL_EXPORTER_OTLP_{SIGNAL}_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT + /v1/<signal>, the http/protobuf protocol).
A global provider still the API's placeholder is replaced by an SDK one; a configured provider gets the exporter
added. Needs opentelemetry-sdk and opentelemetry-exporter-otlp-proto-http."""

from __future__ import annotations

import logging
import os
import threading
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import _logs, metrics, trace

from ._request import _placeholder

logger = logging.getLogger("slipstream")
_lock = threading.Lock()
_configured: list[tuple[str, Any]] = []  # (signal, provider) pairs given an exporter by this module


class AutoConfigureError(RuntimeError):
    """The environment asks for an export this module cannot set up."""


def endpoint(signal: str) -> str | None:
    """The OTLP endpoint of `signal` (TRACES, METRICS, LOGS), or None when it is not exported."""
    exporter = (os.environ.get(f"OTEL_{signal}_EXPORTER") or "otlp").strip().lower()
    url = os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")
    if not url:
        base = os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        url = f"{base.rstrip('/')}/v1/{signal.lower()}" if base else None
    if not url or exporter == "none":
        return None
    if exporter != "otlp":
        raise AutoConfigureError(
            f"OTEL_{signal}_EXPORTER={exporter}: automatic telemetry exports otlp or none; "
            "configure other exporters on your providers and pass telemetry={'auto_configure': "
            "False}"
        )
    protocol = (
        os.environ.get(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL")
        or os.environ.get("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    )
    if protocol != "http/protobuf":
        raise AutoConfigureError(f"OTLP protocol {protocol}: automatic telemetry uses http/protobuf")
    parsed = urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.hostname:
        raise AutoConfigureError(f"invalid OTLP {signal.lower()} endpoint {url!r}: an absolute http(s) URL is needed")
    return url


def configure(config: dict[str, Any]) -> None:
    """Adds the exporters the environment asks for; a failure is logged (WARNING) and start-up goes on."""
    if not config["auto_configure"] or os.environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return
    try:
        _configure(config)
    except Exception as exc:  # noqa: BLE001 - optional telemetry never stops an app from starting
        logger.warning("automatic telemetry configuration failed: %s", exc)


def _configure(config: dict[str, Any]) -> None:
    wanted = [
        (signal, given, url)
        for signal, on, given in (
            ("TRACES", config["tracing"], config["tracer_provider"]),
            ("METRICS", config["metrics"], config["meter_provider"]),
            ("LOGS", config["logs"], config["logger_provider"]),
        )
        if on and (url := endpoint(signal)) is not None
    ]
    if not wanted:
        return
    try:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.metrics import MeterProvider
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise AutoConfigureError(
            "automatic OpenTelemetry export needs opentelemetry-sdk and "
            "opentelemetry-exporter-otlp-proto-http (pip install 'slipstream[telemetry]' "
            "opentelemetry-exporter-otlp-proto-http)"
        ) from exc
    with _lock:
        for signal, given, url in wanted:
            provider = (
                given
                if given is not None
                else {
                    "TRACES": trace.get_tracer_provider,
                    "METRICS": metrics.get_meter_provider,
                    "LOGS": _logs.get_logger_provider,
                }[signal]()
            )
            if any(s == signal and p is provider for s, p in _configured):
                continue
            if signal == "TRACES":
                component: Any = BatchSpanProcessor(OTLPSpanExporter(endpoint=url))
                if given is None and _placeholder(provider):
                    provider = TracerProvider()
                    trace.set_tracer_provider(provider)
                provider.add_span_processor(component)
            elif signal == "METRICS":
                component = PeriodicExportingMetricReader(OTLPMetricExporter(endpoint=url))
                if given is None and _placeholder(provider):
                    provider = MeterProvider(metric_readers=[component])
                    metrics.set_meter_provider(provider)
                else:
                    provider.add_metric_reader(component)
            else:
                component = BatchLogRecordProcessor(OTLPLogExporter(endpoint=url))
                if given is None and _placeholder(provider):
                    provider = LoggerProvider()
                    _logs.set_logger_provider(provider)
                provider.add_log_record_processor(component)
            _configured.append((signal, provider))
