"""`slipstream run --log-level/--log-format`: the engine's lines and Python's logging records in the same shape;
a handler's exception is logged with its method and path (never the query)."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import textwrap

from slipstream.log_setup import ColorFormatter, JsonFormatter


def test_formatters() -> None:
    record = logging.LogRecord("app", logging.WARNING, __file__, 1, "slow %s", ("path",), None)
    line = json.loads(JsonFormatter().format(record))
    assert (line["level"], line["logger"], line["msg"]) == ("warning", "app", "slow path")
    assert line["ts"].endswith("Z") and len(line["ts"]) == 24
    assert ColorFormatter().format(record) == "\x1b[33mwarning\x1b[0m: app: slow path"


def test_json_logs_from_the_engine_and_python_with_the_failing_request() -> None:
    program = textwrap.dedent("""
        import logging, sys
        from slipstream import App, TestClient
        from slipstream.log_setup import configure

        configure("info", "json")
        app = App()

        @app.get("/boom")
        def boom() -> None:
            raise RuntimeError("kaboom")

        with TestClient(app, raise_server_exceptions=False) as client:
            assert client.get("/boom?token=secret").status_code == 500
    """)
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stderr.splitlines()]
    failure = [r for r in records if "kaboom" in r.get("exc", "")]
    assert len(failure) == 1 and failure[0]["msg"].endswith(": GET /boom") and failure[0]["level"] == "error"
    assert "secret" not in out.stderr
