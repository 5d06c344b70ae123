"""ws_load: its JSON report as a result, its command line, and its framing against a real WebSocket server."""
import asyncio
import os
import shutil
import subprocess
import threading

import pytest
from harness import wrk, wsload


def test_parses_a_report(fixture_text):
    result = wsload.parse("noise before\n" + fixture_text("ws_load_ok.json"))
    assert (result.connections, result.requests, result.non_2xx, result.socket_error_total) == (8, 12397, 0, 0)
    assert result.duration_s == pytest.approx(1.000023)
    assert result.requests_per_s == pytest.approx(12396.7)
    assert result.ok_per_s == pytest.approx(12397 / 1.000023)
    assert result.percentiles_us == {50.0: 618.1, 75.0: 668.6, 90.0: 732.6, 99.0: 974.7, 99.9: 9499.0}
    assert (result.latency_avg_us, result.latency_max_us) == (643.5, 18009.0)


def test_errors_and_bad_echoes_are_counted(fixture_text):
    result = wsload.parse(fixture_text("ws_load_errors.json"))
    assert result.socket_errors == {"connect": 2, "read": 4, "write": 1, "timeout": 1}
    assert (result.non_2xx, result.ok_requests) == (3, 97)


@pytest.mark.parametrize("text", ["", "Segmentation fault", '{"tool":"other"}', "{not json"])
def test_refuses_anything_else(text):
    with pytest.raises(wrk.WrkParseError):
        wsload.parse(text)


def test_command_lines():
    assert wsload.command(8080, host="127.0.0.1", path="/ws", connections=64, depth=1, duration_s=5,
                          exe="ws_load") == ["ws_load", "--host", "127.0.0.1", "--port", "8080", "--path", "/ws",
                                             "--connections", "64", "--depth", "1", "--size", "32",
                                             "--duration", "5"]
    assert wsload.command(1, host="h", path="/p", connections=1, depth=2, messages=20, exe="x")[-4:] == \
        ["--messages", "20", "--timeout", "30"]


# ---- against a real server: the `websockets` library's asyncio server ----

@pytest.fixture(scope="module")
def ws_load_exe(tmp_path_factory):
    """ws_load compiled from bench/tools/ws_load.cpp into a temporary folder (needs g++)."""
    if shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("no C++ compiler to build bench/tools/ws_load.cpp")
    return wsload.build(str(tmp_path_factory.mktemp("ws_load") / "ws_load"))


class _Server:
    """A websockets server on port 0 in a thread; `transform` makes each echo (identity: a correct server)."""

    def __init__(self, transform):
        websockets = pytest.importorskip("websockets.asyncio.server")
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()

        async def handler(ws):
            async for message in ws:
                await ws.send(transform(message))

        async def main():
            self.server = await websockets.serve(handler, "127.0.0.1", 0, compression=None, ping_interval=None)
            self.port = self.server.sockets[0].getsockname()[1]
            self.ready.set()
            await self.server.serve_forever()

        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(main()), daemon=True)
        self.thread.start()
        assert self.ready.wait(10)

    def close(self):
        self.loop.call_soon_threadsafe(self.server.close)
        self.thread.join(10)


@pytest.fixture
def echo_server():
    server = _Server(lambda m: m)
    yield server
    server.close()


@pytest.mark.parametrize("size", [32, 125, 126, 300, 65535, 70000])  # 7-bit, 16-bit and 64-bit lengths
def test_echoes_of_every_length_come_back_intact(ws_load_exe, echo_server, size):
    argv = wsload.command(echo_server.port, host="127.0.0.1", path="/ws", connections=3, depth=4, messages=120,
                          size=size, exe=ws_load_exe)
    out = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60)
    result = wsload.parse(out.stdout)
    assert out.returncode == 0
    assert (result.requests, result.non_2xx, result.socket_error_total) == (120, 0, 0)
    assert len(result.percentiles_us) == 5


def test_probe_passes_a_correct_echo_server(ws_load_exe, echo_server):
    assert wsload.probe("127.0.0.1", echo_server.port, "/ws", exe=ws_load_exe) is None


def test_a_wrong_echo_is_caught(ws_load_exe):
    server = _Server(lambda m: m[::-1])
    try:
        argv = wsload.command(server.port, host="127.0.0.1", path="/ws", connections=2, depth=1, messages=10,
                              exe=ws_load_exe)
        result = wsload.parse(subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60).stdout)
        assert (result.requests, result.non_2xx) == (10, 10)
        assert "20 of 20 echoes, 20 differed" in wsload.probe("127.0.0.1", server.port, "/ws", exe=ws_load_exe)
    finally:
        server.close()


def test_a_server_that_refuses_the_upgrade_is_a_handshake_error(ws_load_exe):
    import http.server

    class _NotWs(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _NotWs)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        argv = wsload.command(httpd.server_address[1], host="127.0.0.1", path="/ws", connections=2, depth=1,
                              messages=5, exe=ws_load_exe)
        out = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=60)
        result = wsload.parse(out.stdout)
        assert (out.returncode, result.socket_errors["connect"], result.requests) == (1, 2, 0)
    finally:
        httpd.shutdown()
        thread.join(10)


def test_probe_reports_a_missing_binary(tmp_path):
    assert wsload.probe("127.0.0.1", 1, "/ws", exe=str(tmp_path / "nope")).endswith("not built (run bench/setup.sh)")
