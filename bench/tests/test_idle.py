"""The idle-connection helper opens keep-alive connections, makes one request each and counts survivors."""
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from harness import idle, runner


class _Server(ThreadingHTTPServer):
    request_queue_size = 128  # the default 5 would drop concurrent SYNs and stall the test
    daemon_threads = True


class _Hello(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


@pytest.fixture
def port():
    httpd = _Server(("127.0.0.1", 0), _Hello)
    threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_open_batch_and_count_alive(port):
    request = f"GET /hello HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
    conns = idle.open_batch("127.0.0.1", port, request, 20, 10.0)
    assert len(conns) == 20
    assert idle.count_alive(conns) == 20
    for s in conns[:5]:
        s.close()
    assert idle.count_alive(conns[5:]) == 15


@pytest.mark.parametrize("data, complete", [
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", True),
    (b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\no", False),
    (b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n", True),
    (b"HTTP/1.1 200 OK\r\n", False),
])
def test_response_complete(data, complete):
    assert idle._response_complete(data) is complete


def test_helper_process_protocol(port):
    proc = subprocess.Popen([sys.executable, runner.IDLE_HELPER, "--port", str(port), "--count", "30"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "READY 30"
        proc.stdin.write("check\n")
        proc.stdin.flush()
        assert proc.stdout.readline().strip() == "KEPT 30"
    finally:
        proc.stdin.close()
        assert proc.wait(timeout=10) == 0
