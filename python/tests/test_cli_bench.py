"""`slipstream bench URL` against a real server on a real socket: closed and open loop counts, statuses, a POST
with a body and headers, transport errors, refused arguments, and open-loop latency charged from each request's
scheduled time when the server stalls (a lower bound the stall guarantees, not a speed); HTTP/1.1 and HTTP/2 over
TLS (ALPN, certificate verification) and HTTP/2 with prior knowledge, each request's protocol checked on the
server's side; the HTML report."""

from __future__ import annotations

import json
import pathlib
import re
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from typing import Any

from pydantic import BaseModel
from slipstream import App, TestClient


class Item(BaseModel):
    name: str


def make_app(release: threading.Event, entered: threading.Event | None = None) -> App:
    app = App()
    seen = {"stall": 0}

    @app.get("/hello")
    def hello() -> dict[str, str]:
        return {"hello": "world"}

    @app.post("/items")
    def create(item: Item) -> Item:
        return item

    @app.get("/stall")
    def stall() -> dict[str, int]:
        seen["stall"] += 1
        if seen["stall"] == 1:
            if entered is not None:
                entered.set()
            release.wait(30)  # the first request holds the only connection until the test releases it
        return {"n": seen["stall"]}

    return app


def bench(*args: str) -> tuple[int, dict[str, Any], str]:
    done = subprocess.run(
        [sys.executable, "-m", "slipstream", "bench", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, (json.loads(done.stdout) if done.stdout.strip() else {}), done.stderr


def test_closed_and_open_loop_count_every_answer() -> None:
    with TestClient(make_app(threading.Event()), threads=1) as client:
        url = f"http://127.0.0.1:{client.port}"
        code, closed, err = bench(f"{url}/hello", "-c", "3", "-d", "0.5", "--warmup", "0.1")
        assert code == 0, err
        assert closed["mode"] == "closed" and closed["errors"] == {} and closed["responses"] > 0
        assert closed["statuses"] == {"200": closed["responses"]}
        assert set(closed["latency_ms"]) == {"mean", "p50", "p90", "p99", "p99.9", "max"}

        # Open loop: exactly rate x duration requests are scheduled and measured (the warm-up's are not).
        code, opened, err = bench(f"{url}/hello", "-r", "200", "-d", "0.5", "--warmup", "0.25")
        assert code == 0, err
        assert (opened["mode"], opened["responses"], opened["statuses"]) == ("open", 100, {"200": 100})

        # A POST with a body and a header: every answer counted by its status, a 422 as much as a 200.
        post = ("-m", "POST", "-H", "content-type: application/json", "-r", "40", "-d", "0.5", "--warmup", "0")
        for body, status in ((json.dumps({"name": "tea"}), "200"), ("{}", "422")):
            code, posted, err = bench(f"{url}/items", "--body", body, *post)
            assert code == 0 and posted["statuses"] == {status: 20}, err


def test_open_loop_latency_counts_from_the_scheduled_time() -> None:
    """One connection, 50 requests/s for 1 s; the first request is held for 0.5 s after it reaches the handler.
    Measured from its scheduled time it took at least those 0.5 s, and so did, less 20 ms per place, each request
    due meanwhile (they wait for the one connection): a lower bound the stall sets, whatever the machine's speed."""
    release, entered = threading.Event(), threading.Event()
    with TestClient(make_app(release, entered), threads=1) as client:
        argv = (f"http://127.0.0.1:{client.port}/stall", "-c", "1", "-r", "50", "-d", "1", "--warmup", "0")
        result: dict[str, Any] = {}
        runner = threading.Thread(
            target=lambda: result.update(zip(("code", "summary", "err"), bench(*argv), strict=True))
        )
        runner.start()
        assert entered.wait(60)
        time.sleep(0.5)  # the stall itself (what is measured), not a wait for something to happen
        release.set()
        runner.join(120)
    summary = result["summary"]
    assert result["code"] == 0, result["err"]
    assert summary["responses"] == 50 and summary["statuses"] == {"200": 50}
    assert summary["latency_ms"]["max"] >= 500 and summary["latency_ms"]["p90"] >= 300


def test_refused_connections_are_errors() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    code, summary, _ = bench(f"http://127.0.0.1:{port}/", "-c", "2", "-d", "0.3", "--warmup", "0")
    assert code == 1 and summary["responses"] == 0
    assert set(summary["errors"]) == {"ConnectionRefusedError"} and summary["errors"]["ConnectionRefusedError"] > 0


def test_bad_arguments_are_refused() -> None:
    for args, message in (
        (["ftp://example.test/"], "only http:// and https:// URLs"),
        (["http://127.0.0.1:1/", "--insecure"], "apply to https:// URLs only"),
        (["http://127.0.0.1:1/", "--streams", "4"], "--streams applies to --http2 only"),
        (["http://127.0.0.1:1/", "--http2", "--streams", "0"], "--streams must be 1 to 1000"),
        (["http://127.0.0.1:1/", "-H", "host: elsewhere"], "Host comes from the URL"),
        (["http://127.0.0.1:1/", "-c", "0"], "--connections must be 1 to 10000"),
        (["http://127.0.0.1:1/", "-H", "no-colon"], "a header is NAME:VALUE"),
        (["http://127.0.0.1:1/", "-r", "1000000", "-d", "3600"], "rate x (duration + warm-up)"),
        (["http://127.0.0.1:1/", "-m", "get"], "upper-case token"),
    ):
        code, _, err = bench(*args)
        assert code == 2 and message in err, (args, err)


class Served:
    """The app on a real socket with the given server options (TLS, HTTP/2); `h2_streams()` reads the engine's
    count of HTTP/2 streams from /metrics, so a test sees which protocol the requests came in."""

    def __init__(self, **options: Any) -> None:
        self.tls = "tls_cert_file" in options
        self.app = make_app(threading.Event())
        self.native = self.app.build(threads=1, access_log=False, **options)
        self.native.listen("127.0.0.1", 0)
        self.native.start()
        self.port = self.native.port

    def h2_streams(self) -> int:
        context = ssl._create_unverified_context() if self.tls else None
        scheme = "https" if self.tls else "http"
        with urllib.request.urlopen(f"{scheme}://127.0.0.1:{self.port}/metrics", context=context, timeout=30) as r:
            text = r.read().decode()
        found = re.search(r"^slipstream_http2_streams_opened_total (\d+)", text, re.MULTILINE)
        return int(found.group(1)) if found else 0

    def __enter__(self) -> Served:  # noqa: PYI034
        return self

    def __exit__(self, *_: object) -> None:
        self.native.stop()
        self.native.wait()


def test_https_and_http2(self_signed_cert: tuple[pathlib.Path, pathlib.Path]) -> None:
    cert, key = self_signed_cert
    with Served(tls_cert_file=str(cert), tls_key_file=str(key), http2=True) as server:
        url = f"https://127.0.0.1:{server.port}/hello"
        quick = ("-d", "0.4", "--warmup", "0")
        # HTTP/1.1 over TLS, the certificate verified against the CA given: no HTTP/2 stream opened.
        code, summary, err = bench(url, "--cacert", str(cert), "-c", "2", *quick)
        assert code == 0 and summary["protocol"] == "http/1.1" and summary["errors"] == {}, err
        assert summary["statuses"] == {"200": summary["responses"]} and server.h2_streams() == 0
        # An unverifiable certificate: every request is an error, unless --insecure.
        code, summary, _ = bench(url, "-c", "1", *quick)
        assert code == 1 and summary["responses"] == 0 and set(summary["errors"]) == {"SSLCertVerificationError"}
        # HTTP/2 by ALPN, four streams on each of two connections: each answer came on a stream of its own.
        code, summary, err = bench(url, "--insecure", "--http2", "-c", "2", "--streams", "4", *quick)
        assert code == 0 and summary["protocol"] == "h2" and summary["errors"] == {}, err
        assert summary["statuses"] == {"200": summary["responses"]} and server.h2_streams() >= summary["responses"]
        # Open loop: exactly rate x duration requests.
        code, summary, err = bench(url, "--insecure", "--http2", "-r", "100", "-d", "0.5", "--warmup", "0")
        assert code == 0 and summary["statuses"] == {"200": 50}, err
        # A POST body over HTTP/2: each answer counted by its status.
        post = ("-m", "POST", "-H", "content-type: application/json", "-r", "40", "-d", "0.5", "--warmup", "0")
        items = f"https://127.0.0.1:{server.port}/items"
        for body, status in ((json.dumps({"name": "tea"}), "200"), ("{}", "422")):
            code, posted, err = bench(items, "--insecure", "--http2", "--body", body, *post)
            assert code == 0 and posted["statuses"] == {status: 20}, err


def test_http2_with_prior_knowledge_and_the_report(tmp_path: pathlib.Path) -> None:
    with Served(http2=True) as server:
        report = tmp_path / "report.html"
        url = f"http://127.0.0.1:{server.port}/hello"
        argv = ("--http2", "--streams", "3", "-d", "0.5", "--warmup", "0", "--report", str(report))
        code, summary, err = bench(url, *argv)
        assert code == 0 and summary["errors"] == {} and summary["responses"] > 0, err
        assert server.h2_streams() >= summary["responses"]
        page = report.read_text()
        assert page.startswith("<!DOCTYPE html>") and "HTTP/2, 3 stream(s) per connection" in page
        assert page.count("<svg") == 2 and page.count("<polyline") == 2
        assert f"{summary['responses']} (" in page
    missing = tmp_path / "missing" / "r.html"
    code, _, err = bench("http://127.0.0.1:1/", "--report", str(missing), "-d", "0.1", "--warmup", "0")
    assert code == 2 and "--report" in err
