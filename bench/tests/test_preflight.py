"""Pre-flight compares status, media type and body bytes; checked against a local stdlib server."""
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from harness import preflight, workloads
from harness.workloads import Probe, payloads

HELLO = Probe("GET", "/hello", None, 200, payloads.HELLO)


@pytest.mark.parametrize("status, ctype, body, expected", [
    (200, "application/json", payloads.HELLO, None),
    (200, "application/json; charset=utf-8", payloads.HELLO, None),
    (404, "application/json", payloads.HELLO, "GET /hello: status 404, expected 200"),
    (200, "text/plain", payloads.HELLO, "GET /hello: content type 'text/plain', expected 'application/json'"),
    (200, None, payloads.HELLO, "GET /hello: content type None, expected 'application/json'"),
])
def test_check_response(status, ctype, body, expected):
    assert preflight.check_response(HELLO, status, ctype, body) == expected


def test_body_difference_is_reported():
    message = preflight.check_response(HELLO, 200, "application/json", b'{"message": "hello"}')
    assert message.startswith("GET /hello: body differs (20 bytes")


def test_invalid_probe_checks_status_only():
    probe = workloads.WORKLOADS["validated"].probes[1]
    assert preflight.check_response(probe, 422, "text/html", b"anything") is None
    assert preflight.check_response(probe, 400, "application/json", b"") == "POST /items: status 400, expected 422"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    hello_body = payloads.HELLO

    def _send(self, status, body):
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        self._send(200, self.hello_body) if self.path == "/hello" else self._send(404, b"{}")

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self._send(422 if b"-1.0" in body else 200, body)

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    started = []

    def start(hello_body=payloads.HELLO):
        handler = type("H", (_Handler,), {"hello_body": hello_body})
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
        started.append(httpd)
        return httpd.server_address[1]
    yield start
    for httpd in started:
        httpd.shutdown()
        httpd.server_close()


def test_run_against_a_server(server):
    port = server()
    assert preflight.run("127.0.0.1", port, workloads.WORKLOADS["hello"]) is None
    assert preflight.run("127.0.0.1", port, workloads.WORKLOADS["echo"]) is None
    assert preflight.run("127.0.0.1", port, workloads.WORKLOADS["validated"]) is None
    assert preflight.run("127.0.0.1", port, workloads.WORKLOADS["large"]) == "GET /large: status 404, expected 200"


def test_run_reports_a_mismatching_body(server):
    port = server(b'{"message":"hi"}')
    assert preflight.run("127.0.0.1", port, workloads.WORKLOADS["hello"]).startswith("GET /hello: body differs")


def test_run_reports_a_dead_server():
    from harness import procs
    assert preflight.run("127.0.0.1", procs.free_port(), workloads.WORKLOADS["hello"]).startswith(
        "GET /hello: ConnectionRefusedError")
