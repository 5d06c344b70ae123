"""Hostile HTTP/1.1 clients against a real server over raw sockets: a trickled body, a slow reader, one address
opening too many connections, a drain under keep-alive load with asynchronous routes, a second server on a port
in use. Small timeouts through flags keep every test within a few seconds."""

import os
import re
import select
import signal
import subprocess
import time

from tests.conftest import example_binary
from tests.e2e.http_client import RawConnection


def metric(conn, name, labels=None):
    """A metric's value read over an open keep-alive connection (0 when absent)."""
    conn.send(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    text = conn.read_response().body.decode()
    want = ",".join(f'{k}="{v}"' for k, v in (labels or {}).items())
    pattern = r"^" + re.escape(name) + (r"\{" + re.escape(want) + r"\}" if want else "") + r" (\S+)$"
    m = re.search(pattern, text, re.MULTILINE)
    return float(m.group(1)) if m else 0.0


def wait_until(check, what, timeout=5.0):
    """Polls an observable server state (a metric) until `check()` holds; fails after `timeout`."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def readable(sock, timeout):
    return bool(select.select([sock], [], [], timeout)[0])


# ---- drain with asynchronous routes under keep-alive (item 3) ----


def wait_for_stderr(server, needle, timeout=5.0):
    """Reads the server's stderr (raw, unbuffered) until `needle` appears."""
    fd = server.proc.stderr.fileno()
    seen = b""
    deadline = time.monotonic() + timeout
    while needle.encode() not in seen:
        assert time.monotonic() < deadline, f"no {needle!r} on the server's stderr: {seen!r}"
        if select.select([fd], [], [], 0.1)[0]:
            chunk = os.read(fd, 4096)
            assert chunk, f"stderr closed before {needle!r}: {seen!r}"
            seen += chunk


def next_request_outcome(conn, resp):
    """'closed' when `resp` told the client to go (and the server then closed), 'answered' when the next
    request on the connection got an answer, 'lost' otherwise."""
    if resp.header("connection") == "close":
        assert conn.closed_by_peer(timeout=5)
        return "closed"
    try:
        conn.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        return "answered" if conn.read_response().status == 200 else "lost"
    except (ConnectionError, OSError):
        return "lost"


def test_drain_loses_no_request_on_async_and_sync_keepalive_connections(start_server):
    server = start_server("--threads", "1", "--drain-timeout", "10s", "--log-level", "info")
    # Four asynchronous requests in flight on keep-alive connections (each after a first answered request).
    async_conns = []
    for _ in range(4):
        c = RawConnection(server.connect())
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 200
        c.send(b"GET /delay/1500 HTTP/1.1\r\nHost: x\r\n\r\n")
        async_conns.append(c)
    # Two synchronous keep-alive connections with the head of their next request half sent.
    sync_conns = []
    for _ in range(2):
        c = RawConnection(server.connect())
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 200
        c.send(b"GET /hello HTTP/1.1\r\n")
        sync_conns.append(c)
    probe = RawConnection(server.connect())
    wait_until(lambda: metric(probe, "slipstream_http_requests_in_flight") == 4, "four requests in flight")

    server.proc.send_signal(signal.SIGTERM)
    wait_for_stderr(server, "draining")
    for c in sync_conns:
        c.send(b"Host: x\r\n\r\n")

    outcomes = []
    for c in sync_conns + async_conns:
        resp = c.read_response()
        assert resp.status == 200
        outcomes.append(next_request_outcome(c, resp))
    assert outcomes.count("lost") == 0, outcomes
    # The answers written after the drain began say so: the client reconnects instead of losing a request.
    assert outcomes[2:] == ["closed"] * 4
    assert server.proc.wait(timeout=10) == 0


# ---- a second server on a port in use (item 6) ----


def test_a_second_server_on_a_port_in_use_fails_unless_sharing_is_asked(start_server):
    first = start_server("--threads", "2")
    argv = [example_binary("hello"), "--host", "127.0.0.1", "--port", str(first.port), "--threads", "2"]
    refused = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=10)
    assert refused.returncode == 1
    assert refused.stderr == (
        f"hello: listen on 127.0.0.1:{first.port}: address already in use (another process "
        "listens there; --reuse-port / reuse_port=True shares the port on purpose)\n"
    )
    assert "listening on" not in refused.stdout

    # Asked for, the port is shared (SO_REUSEPORT): the second server starts and serves.
    second = start_server("--threads", "1", "--port", str(first.port), "--reuse-port")
    assert second.port == first.port
    assert second.proc.poll() is None

    # The first server still answers on its own (its I/O threads share their listener among themselves).
    c = RawConnection(first.connect())
    c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert c.read_response().status == 200
