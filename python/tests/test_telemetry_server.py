"""App telemetry on the real server (`slipstream run` in a subprocess, real sockets): an app with no telemetry=
traces on the global tracer provider its module configures, as FastAPI does; a request's W3C traceparent is its
span's parent, and the engine's access log carries the same trace id."""

import http.client
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("opentelemetry.sdk")

TESTS = Path(__file__).resolve().parent
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"


def test_spans_on_the_global_provider_match_the_access_log(tmp_path: Path) -> None:
    spans_file = tmp_path / "spans.jsonl"
    env = {
        **os.environ,
        "SLIPSTREAM_PORT": "0",
        "SLIPSTREAM_THREADS": "1",
        "TELEMETRY_SPANS": str(spans_file),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")])),
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "slipstream", "run", "apps.telemetry_app:app", "--host", "127.0.0.1"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        port = None
        for raw in proc.stderr:
            line = raw.decode()
            if "serving" in line and "http://" in line:
                port = int(line.rsplit(":", 1)[1])
                break
        assert port is not None, f"server exited with {proc.wait()} before listening"
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/items/7", headers={"traceparent": f"00-{TRACE_ID}-{PARENT_ID}-01"})
        response = conn.getresponse()
        assert (response.status, json.loads(response.read())) == (200, {"item_id": 7})
        conn.request("GET", "/items/8")
        assert conn.getresponse().read() == b'{"item_id":8}'
        conn.request("GET", "/missing")
        assert conn.getresponse().status == 404
        conn.close()
        proc.send_signal(signal.SIGTERM)
        out, _ = proc.communicate(timeout=30)
        assert proc.returncode == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    spans = [json.loads(line) for line in spans_file.read_text().splitlines()]
    server = [s for s in spans if s["kind"] == "SERVER"]
    assert [(s["name"], s["status"], s["attributes"]["http.response.status_code"]) for s in server] == [
        ("GET /items/{item_id}", "UNSET", 200),
        ("GET /items/{item_id}", "UNSET", 200),
        ("GET", "UNSET", 404),
    ]
    first, second, _missing = server
    assert first["attributes"]["server.address"] == "127.0.0.1" and first["attributes"]["server.port"] == port
    assert (first["trace_id"], first["parent"]) == (TRACE_ID, PARENT_ID)
    assert second["parent"] is None and second["trace_id"] != TRACE_ID
    access = [json.loads(line) for line in out.decode().splitlines() if line.startswith("{")]
    by_path = {entry["path"]: entry for entry in access}
    assert by_path["/items/7"]["trace_id"] == first["trace_id"]  # the engine's log and the span agree
    assert by_path["/items/8"]["trace_id"] == ""
