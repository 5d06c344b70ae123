"""BENCH_OTEL=1: OpenTelemetry's global tracer and meter providers set as a deployment's setup code sets them (the
SDK, a batch span processor, a metric reader), with an exporter that drops what it gets: the telemetry's cost in
the app, without an export's. FastAPI and Slipstream apps then trace every request (their telemetry's default)."""

import os


def install_if_asked() -> bool:
    if os.environ.get("BENCH_OTEL") != "1":
        return False
    from opentelemetry import metrics, trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult

    class Dropping(SpanExporter):
        def export(self, spans):
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Dropping()))
    trace.set_tracer_provider(provider)
    metrics.set_meter_provider(MeterProvider(metric_readers=[InMemoryMetricReader()]))
    return True
