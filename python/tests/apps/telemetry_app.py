"""An app traced on OpenTelemetry's global tracer provider (set here, as a deployment's setup code sets it), with
no telemetry= given: FastAPI's default. Finished spans go to the JSON-lines file named by TELEMETRY_SPANS."""

import json
import os

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor, SpanExporter, SpanExportResult
from slipstream import App


class FileExporter(SpanExporter):
    def __init__(self, path: str) -> None:
        self.path = path

    def export(self, spans):  # the SDK's SpanExporter interface
        with open(self.path, "a", encoding="utf-8") as f:
            for span in spans:
                parent = format(span.parent.span_id, "016x") if span.parent is not None else None
                f.write(
                    json.dumps(
                        {
                            "name": span.name,
                            "kind": span.kind.name,
                            "status": span.status.status_code.name,
                            "trace_id": format(span.context.trace_id, "032x"),
                            "parent": parent,
                            "attributes": dict(span.attributes),
                        }
                    )
                    + "\n"
                )
        return SpanExportResult.SUCCESS


provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(FileExporter(os.environ["TELEMETRY_SPANS"])))
trace.set_tracer_provider(provider)

app = App()


@app.get("/items/{item_id}")
def read_item(item_id: int) -> dict:
    return {"item_id": item_id}
