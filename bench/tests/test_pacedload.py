"""http_paced: its JSON report as a result, its command line, and its pacing against a real HTTP/1.1 server."""
import http.server
import json
import os
import shutil
import subprocess
import threading

import pytest
from harness import pacedload, wrk


def test_parses_a_report(fixture_text):
    result = pacedload.parse("noise\n" + fixture_text("http_paced_ok.json"))
    assert (result.connections, result.requests, result.non_2xx, result.socket_error_total) == (50, 100000, 0, 0)
    assert result.ok_per_s == pytest.approx(20000.0)
    assert result.percentiles_us == {50.0: 48.2, 75.0: 61.0, 90.0: 80.5, 99.0: 212.9, 99.9: 901.3}
    assert (result.latency_avg_us, result.latency_max_us) == (57.4, 2210.0)


@pytest.mark.parametrize("text", ["", "Segmentation fault", '{"tool":"ws_load"}', "{not json"])
def test_refuses_anything_else(text):
    with pytest.raises(wrk.WrkParseError):
        pacedload.parse(text)


def test_command_line():
    assert pacedload.command(8080, host="127.0.0.1", path="/hello", connections=50, rate=20000, duration_s=5,
                             exe="http_paced") == [
        "http_paced", "--host", "127.0.0.1", "--port", "8080", "--path", "/hello", "--connections", "50",
        "--rate", "20000", "--duration", "5", "--warmup", "1.0"]


# ---- against a real server: http.server with HTTP/1.1 keep-alive ----

@pytest.fixture(scope="module")
def paced_exe(tmp_path_factory):
    """http_paced compiled from bench/tools/http_paced.cpp into a temporary folder (needs g++)."""
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler to build bench/tools/http_paced.cpp")
    return pacedload.build(str(tmp_path_factory.mktemp("http_paced") / "http_paced"))


class _Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # head and body are two sends: without it the client's delayed ACK stalls each
    status = 200

    def do_GET(self):
        body = b'{"message":"hello"}'
        self.send_response(self.status)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def http_server():
    servers = []

    def start(status=200):
        handler = type("Handler", (_Handler,), {"status": status})
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        return server.server_address[1]

    yield start
    for s in servers:
        s.shutdown()
        s.server_close()


def run(exe, port, *, rate, duration=1.0, connections=4, status=0):
    argv = pacedload.command(port, host="127.0.0.1", path="/hello", connections=connections, rate=rate,
                             duration_s=duration, warmup_s=0.2, exe=exe)
    proc = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=30)
    assert proc.returncode == status, proc.stderr
    return json.loads(proc.stdout), pacedload.parse(proc.stdout)


def test_every_due_request_is_sent_and_answered(paced_exe, http_server):
    doc, result = run(paced_exe, http_server(), rate=400)
    # 400/s for 1 s measured: request n is due at n/rate, so the window holds 400 of them (one at each edge).
    assert 399 <= doc["due"] <= 401
    assert result.requests == doc["due"] and result.non_2xx == 0 and result.socket_error_total == 0
    assert doc["sent"] >= doc["due"]  # the warm-up's requests too
    assert 0 < result.percentiles_us[50.0] <= result.percentiles_us[99.0] <= result.latency_max_us


def test_other_statuses_are_counted_apart(paced_exe, http_server):
    doc, result = run(paced_exe, http_server(status=404), rate=200)
    assert result.non_2xx == doc["due"] and doc["requests"] == 0
    assert result.ok_requests == 0


def test_a_refused_connection_is_a_connect_error(paced_exe):
    closed = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    unused = closed.server_address[1]
    closed.server_close()  # nothing listens there now
    _, result = run(paced_exe, unused, rate=100, duration=0.2, connections=2, status=1)
    assert result.socket_errors["connect"] == 2 and result.requests == 0
