"""Hostile HTTP/1.1 clients against a real server over raw sockets: a trickled body, a slow reader, one address
opening too many connections, a drain under keep-alive load with asynchronous routes, a second server on a port
in use. Small timeouts through flags keep every test within a few seconds."""

import select
import signal
import socket
import subprocess
import time

from tests.conftest import example_binary
from tests.e2e.helpers import metric, wait_for_stderr, wait_until
from tests.e2e.http_client import RawConnection


def readable(sock, timeout):
    return bool(select.select([sock], [], [], timeout)[0])


# ---- slow body: the minimum rate (item 5) ----


def test_trickled_body_inside_the_inactivity_timeout_gets_408_at_the_minimum_rate(start_server):
    # One byte every 300 ms never trips the 600 ms inactivity timeout; at 1 KiB/s minimum the body is 408
    # soon after the 600 ms grace.
    server = start_server("--threads", "1", "--body-timeout", "600ms", "--body-min-rate", "1k")
    c = RawConnection(server.connect())
    start = time.monotonic()
    c.send(b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
    sent = 0
    while not readable(c.sock, 0.3) and time.monotonic() - start < 4.0:
        c.send(b" ")
        sent += 1
    resp = c.read_response()
    elapsed = time.monotonic() - start
    assert resp.status == 408
    assert resp.header("connection") == "close"
    assert c.closed_by_peer()
    assert 0.5 < elapsed < 2.0, elapsed  # the grace, not the 30 s a full trickle would take
    assert 1 <= sent <= 6
    probe = RawConnection(server.connect())
    assert metric(probe, "slipstream_timeouts_total", {"kind": "body_rate"}) == 1
    assert metric(probe, "slipstream_timeouts_total", {"kind": "body"}) == 0


def test_a_body_at_a_normal_pace_is_not_cut(start_server):
    # 20 bytes per 100 ms (200 B/s) against a 100 B/s minimum: served, though it takes longer than the timeout.
    server = start_server("--threads", "1", "--body-timeout", "400ms", "--body-min-rate", "100")
    c = RawConnection(server.connect())
    body = b"[" + b",".join(b"1" * 9 for _ in range(15)) + b"]"
    c.send(
        b"POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
    )
    start = time.monotonic()
    for i in range(0, len(body), 20):
        assert not readable(c.sock, 0.1)
        c.send(body[i : i + 20])
    resp = c.read_response()
    assert resp.status == 200
    assert resp.body == b"[" + b",".join(b"111111111" for _ in range(15)) + b"]"
    assert time.monotonic() - start > 0.4


# ---- slow reader: the minimum write rate (item 5) ----


def test_a_reader_below_the_minimum_rate_is_closed(start_server):
    # The reader takes about 4 MB/s of a 64 MiB stream: often enough that the 1 s inactivity timeout never
    # fires (its socket becomes writable again well within it), but below the 64 MiB/s minimum given here.
    server = start_server("--threads", "1", "--write-timeout", "1s", "--write-min-rate", "64m", binary="stream_lab")
    probe = RawConnection(server.connect())
    s = server.connect()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 256 * 1024)
    s.sendall(b"GET /lab/bulk?mib=64 HTTP/1.1\r\nHost: x\r\n\r\n")
    start = time.monotonic()
    got = 0
    cut = None
    while cut is None and time.monotonic() - start < 6.0:
        if readable(s, 0.05):
            got += len(s.recv(200_000))
        time.sleep(0.05)  # pacing the reader, not synchronisation
        if metric(probe, "slipstream_timeouts_total", {"kind": "write_rate"}) == 1:
            cut = time.monotonic() - start
    s.close()
    assert cut is not None, f"a reader at ~4 MB/s held the connection for 6 s ({got} bytes)"
    assert 0.9 < cut < 3.0, cut
    assert got < 64 << 20
    assert metric(probe, "slipstream_timeouts_total", {"kind": "write"}) == 0


def test_a_reader_at_a_normal_pace_is_not_cut(start_server):
    # The same reader against the default minimum (1 KiB/s) takes its whole 4 MiB answer.
    server = start_server("--threads", "1", "--write-timeout", "1s", binary="stream_lab")
    s = server.connect()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 256 * 1024)
    s.sendall(b"GET /lab/bulk?mib=4 HTTP/1.1\r\nHost: x\r\n\r\n")
    c = RawConnection(s)
    head = c._read_until(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 ")
    body = c.buf  # what came with the head
    while not body.endswith(b"\r\n0\r\n\r\n"):
        assert readable(s, 5.0)
        chunk = s.recv(200_000)
        assert chunk, "the server cut a reader that kept pace"
        body += chunk
        time.sleep(0.05)  # pacing the reader, not synchronisation
    assert len(body) > 4 << 20  # 4 MiB of records plus the chunk framing
    assert body.endswith(b"000000000262143\n\r\n0\r\n\r\n")  # the last of 262,144 records


# ---- per-address connection cap (item 5) ----


def test_connections_past_the_per_address_cap_get_429(start_server):
    server = start_server("--threads", "1", "--max-connections-per-ip", "2")
    first, second = RawConnection(server.connect()), RawConnection(server.connect())
    for c in (first, second):
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 200
    third = RawConnection(server.connect())
    resp = third.read_response()
    assert resp.status == 429
    assert resp.header("connection") == "close"
    assert b"too many connections from this address" in resp.body
    assert third.closed_by_peer()
    assert metric(second, "slipstream_connections_refused_per_ip_total") == 1

    # A closed connection gives its place back.
    closed_before = metric(second, "slipstream_connections_closed_total")
    first.sock.close()
    wait_until(lambda: metric(second, "slipstream_connections_closed_total") == closed_before + 1, "the close")
    again = RawConnection(server.connect())
    again.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
    assert again.read_response().status == 200
    assert metric(second, "slipstream_connections_refused_per_ip_total") == 1


def test_no_per_address_cap_by_default(start_server):
    server = start_server("--threads", "1")
    conns = [RawConnection(server.connect()) for _ in range(20)]
    for c in conns:
        c.send(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        assert c.read_response().status == 200


# ---- drain with asynchronous routes under keep-alive (item 3) ----


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
    assert wait_for_stderr(server, "draining", timeout=5.0) is not None
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
