"""`slipstream asgi` on a real socket (subprocesses): the ASGI cases a differential run cannot show (a client that
leaves mid-stream, the lifespan failing, root_path, the engine's own probes beside the app, the command line)."""

from __future__ import annotations

import concurrent.futures
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import httpx
import pytest

sys.path.insert(0, __file__.rsplit("/", 1)[0] + "/asgi_apps")
from harness import APPS, Server, free_port

pytest.importorskip("fastapi")


@pytest.fixture(scope="module")
def raw() -> Iterator[Server]:
    server = Server("slipstream", "raw_app:app", ["--root-path", "/api"]).start()
    yield server
    server.close()


def test_a_client_leaving_mid_stream_is_an_http_disconnect(raw: Server) -> None:
    with socket.create_connection(("127.0.0.1", raw.port)) as sock:
        sock.sendall(b"GET /forever?k1 HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    # The app streams until receive() gives http.disconnect; then it records what it saw.
    got = httpx.get(f"{raw.base}/forever-result?k1", timeout=15)
    assert got.json() == ["disconnected"]


def test_a_client_that_does_not_read_pauses_send(raw: Server) -> None:
    with socket.create_connection(("127.0.0.1", raw.port)) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.sendall(b"GET /big HTTP/1.1\r\nHost: x\r\n\r\n")
        assert sock.recv(12) == b"HTTP/1.1 200"
        time.sleep(1)  # not a synchronization: without back-pressure the app would be done long before
        paused_at = httpx.get(f"{raw.base}/big-count").json()
        assert paused_at < 4096
        received, chunk = 0, b""
        while not chunk.endswith(b"0\r\n\r\n"):
            chunk = sock.recv(1 << 20)
            assert chunk, "the connection closed before the end of the body"
            received += len(chunk)
    assert received > 4096 * 65536  # the body, with its chunk framing
    assert httpx.get(f"{raw.base}/big-count").json() == 4096


def test_pathsend_answers_with_the_file(raw: Server) -> None:
    got = httpx.get(f"{raw.base}/pathsend")
    assert (got.status_code, got.headers["content-type"], got.headers["content-length"], got.content) == \
        (200, "text/plain", "18", b"hello from a file\n")


def test_root_path_prefixes_path_and_raw_path(raw: Server) -> None:
    scope = httpx.get(f"{raw.base}/scope/a%20b?x=1", headers={"host": "h"}).json()
    assert (scope["root_path"], scope["path"], scope["raw_path"], scope["query_string"]) == \
        ("/api", "/api/scope/a b", "/api/scope/a%20b", "x=1")
    assert scope["state"] == {"boot": "ok"}  # what the lifespan put in its state


def test_raw_path_is_the_target_as_sent(raw: Server) -> None:
    scope = httpx.get(f"{raw.base}/scope/x%2Fy%41").json()
    assert (scope["path"], scope["raw_path"], scope["http_version"]) == ("/api/scope/x/yA", "/api/scope/x%2Fy%41", "1.1")


def test_http_version_is_2_over_http2(raw: Server) -> None:
    pytest.importorskip("h2")
    with httpx.Client(http1=False, http2=True) as client:  # prior knowledge (h2c)
        got = client.get(f"{raw.base}/scope/z?q=2")
    assert got.http_version == "HTTP/2"
    scope = got.json()
    assert (scope["http_version"], scope["path"], scope["raw_path"], scope["query_string"]) == \
        ("2", "/api/scope/z", "/api/scope/z", "q=2")


def test_proxy_headers_give_the_client_and_scheme() -> None:
    server = Server("slipstream", "raw_app:app", ["--proxy-headers", "--forwarded-allow-ips", "127.0.0.1"]).start()
    try:
        forwarded = {"x-forwarded-for": "203.0.113.7", "x-forwarded-proto": "https"}
        scope = httpx.get(f"{server.base}/scope/p%2Fq", headers=forwarded).json()
        assert (scope["client_host"], scope["scheme"], scope["raw_path"]) == ("203.0.113.7", "https", "/scope/p%2Fq")
        direct = httpx.get(f"{server.base}/scope/p").json()
        assert (direct["client_host"], direct["scheme"]) == ("127.0.0.1", "http")
    finally:
        server.close()


def test_the_loop_is_uvloop_when_installed_unless_asked_otherwise(raw: Server) -> None:
    pytest.importorskip("uvloop")
    assert httpx.get(f"{raw.base}/loop").json() == "uvloop.Loop"
    server = Server("slipstream", "raw_app:app", ["--loop", "asyncio"]).start()
    try:
        assert httpx.get(f"{server.base}/loop").json() == "asyncio.unix_events._UnixSelectorEventLoop"
    finally:
        server.close()


def test_answers_given_after_an_await_all_arrive(raw: Server) -> None:
    # Each answer is given from a loop callback; those of one loop turn go to the engine together.
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        got = list(pool.map(lambda i: httpx.get(f"{raw.base}/later?{i}", timeout=15).json(), range(64)))
    assert got == [str(i) for i in range(64)]


def test_the_engine_answers_its_probes_and_metrics(raw: Server) -> None:
    assert httpx.get(f"{raw.base}/livez").json() == {"status": "ok"}
    assert httpx.get(f"{raw.base}/readyz").status_code == 200
    metrics = httpx.get(f"{raw.base}/metrics").text
    assert 'slipstream_http_requests_total{route="/livez",method="GET",status="200"}' in metrics


def test_the_request_body_limit_is_the_engines(tmp_path: object) -> None:
    server = Server("slipstream", "raw_app:app").start()
    try:
        # Over the engine's default limit: refused before the app runs.
        too_big = httpx.post(f"{server.base}/echo", content=b"a" * (64 * 1024 * 1024 + 1), timeout=30)
        assert too_big.status_code == 413
        assert httpx.post(f"{server.base}/echo", content=b"abc").content == b"abc"
    finally:
        server.close()


def test_lifespan_startup_failed_stops_the_server_with_its_message() -> None:
    port = free_port()
    done = subprocess.run([sys.executable, "-m", "slipstream", "asgi", "failing_lifespan:app", "--port", str(port),
                           "--app-dir", str(APPS)], check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert "the database is unreachable" in done.stderr


def test_an_app_without_lifespan_is_served_unless_lifespan_is_on() -> None:
    server = Server("slipstream", "no_lifespan:app").start()
    try:
        assert httpx.get(f"{server.base}/x").text == "no lifespan here"
    finally:
        server.close()
    done = subprocess.run([sys.executable, "-m", "slipstream", "asgi", "no_lifespan:app", "--lifespan", "on",
                           "--port", str(free_port()), "--app-dir", str(APPS)],
                          check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode == 3
    assert "does not support the ASGI lifespan protocol" in done.stderr


def test_run_with_interface_asgi_and_two_workers() -> None:
    server = Server("slipstream", "fastapi_app:app", ["--workers", "2"])
    server.command = lambda: [sys.executable, "-m", "slipstream", "run", "--interface", "asgi", "fastapi_app:app",
                              "--port", str(server.port), "--app-dir", str(APPS), "--workers", "2",
                              "--log-level", "warning"]  # type: ignore[method-assign]
    server.start()
    try:
        assert httpx.get(f"{server.base}/hello").json() == {"message": "hello"}
    finally:
        assert server.stop() == 0
        server.close()


def test_a_module_attribute_that_is_not_asgi_is_refused() -> None:
    done = subprocess.run([sys.executable, "-m", "slipstream", "asgi", "harness:HOST", "--app-dir", str(APPS)],
                          check=False, capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    assert "is not an ASGI 3 application" in done.stderr
