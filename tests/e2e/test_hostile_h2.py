"""A hostile HTTP/2 client against the real server (examples/hello): rapid reset against the stream limit, the
process-wide cap on handlers in flight, responses stalled on a zero flow-control window, WINDOW_UPDATE floods,
and unusual first bytes on a cleartext connection with HTTP/2 on. Each test is bounded by socket timeouts."""

import select
import socket
import struct
import subprocess
import time

import h2.settings
import pytest

from tests.e2e.helpers import (
    ACK,
    CANCEL,
    DATA,
    END_HEADERS,
    END_STREAM,
    ENHANCE_YOUR_CALM,
    GOAWAY,
    HEADERS,
    PREFACE,
    REFUSED_STREAM,
    SETTINGS,
    WINDOW_UPDATE,
    H2Client,
    frame,
    get_block,
    goaway_code,
    metric,
    open_socket,
    parse_frames,
    raw_exchange,
    read_frames_until,
    send_and_read_rest,
)

STREAM_1000_BYTES = sum(len(f"line {i}\n") for i in range(1000))  # the body of GET /stream/1000


def window_update(stream: int, increment: int) -> bytes:
    return frame(WINDOW_UPDATE, 0, stream, struct.pack(">I", increment))


# ---- rapid reset: a reset stream counts until its handler finished (CVE-2023-44487) ----


def test_reset_streams_count_toward_the_limit_until_their_handlers_finish(start_server):
    server = start_server("--threads", "1", "--h2-max-concurrent-streams", "10")
    c = H2Client(open_socket(server, False, None), scheme="http")
    c.pump(lambda: c.conn.remote_settings.max_concurrent_streams == 10)
    # Ten slow requests, each reset at once by the client: their handlers run on for 5 s.
    for _ in range(10):
        sid = c.start("GET", "/delay/5000")
        c.conn.reset_stream(sid, CANCEL)
    c.flush()
    # The limit is still taken: the next stream is refused (the client may retry it), not run as an 11th handler.
    first = c.start("GET", "/hello")
    c.pump(lambda: c.responses[first]["reset"] is not None or c.responses[first]["ended"], timeout=5)
    assert c.responses[first]["reset"] == REFUSED_STREAM
    more = [c.start("GET", "/hello") for _ in range(9)]
    c.pump(lambda: all(c.responses[s]["reset"] is not None for s in more), timeout=5)
    assert {c.responses[s]["reset"] for s in more} == {REFUSED_STREAM}
    # More refusals than the limit while those handlers run: the connection is cut.
    c.start("GET", "/hello")
    c.pump(lambda: c.goaway is not None, timeout=5)
    assert c.goaway.error_code == ENHANCE_YOUR_CALM
    assert metric(server, "slipstream_http2_flood_defenses_total", {"kind": "rapid_reset"}) == 1
    # Other connections are served meanwhile.
    fresh = H2Client(open_socket(server, False, None), scheme="http")
    assert fresh.request("GET", "/hello")[0] == 200


def test_handlers_in_flight_are_capped_on_http1(start_server):
    server = start_server("--threads", "1", "--max-handlers-in-flight", "2")
    with server.connect() as s:
        s.settimeout(5)
        # Pipelined on one connection, so the order of dispatch is the order sent.
        s.sendall(b"GET /delay/500 HTTP/1.1\r\nHost: x\r\n\r\n" * 3)
        got = b""
        while got.count(b"HTTP/1.1 ") < 3 or not got.endswith(b"}"):
            chunk = s.recv(65536)
            assert chunk, got
            got += chunk
    answers = [a for a in got.split(b"HTTP/1.1 ")[1:]]
    assert [a[:3] for a in answers] == [b"200", b"200", b"503"]
    assert b"\r\nRetry-After: 1\r\n" in answers[2]
    assert metric(server, "slipstream_handlers_refused_total") == 1


def test_handlers_in_flight_are_capped_on_http2(start_server):
    server = start_server("--threads", "1", "--max-handlers-in-flight", "2")
    c = H2Client(open_socket(server, False, None), scheme="http")
    sids = [c.start("GET", "/delay/500") for _ in range(3)]
    c.pump(lambda: all(c.responses[s]["ended"] or c.responses[s]["reset"] is not None for s in sids), timeout=5)
    assert [c.responses[s]["reset"] for s in sids] == [None, None, REFUSED_STREAM]
    assert [c.responses[s]["body"] for s in sids[:2]] == [b'{"delayed_ms":500}'] * 2
    assert metric(server, "slipstream_handlers_refused_total") == 1


# ---- a response stalled on a zero flow-control window ----


def test_streams_stalled_on_a_zero_window_are_reset_after_the_write_timeout(start_server):
    server = start_server("--threads", "1", "--write-timeout", "1s")
    # The client never gives the server any stream window: the bodies can never be sent.
    c = H2Client(open_socket(server, False, None), {h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: 0}, scheme="http")
    sids = [c.start("GET", "/hello"), c.start("GET", "/stream/1000")]
    c.pump(lambda: all(c.responses[s]["reset"] is not None for s in sids), timeout=5)
    assert [c.responses[s]["reset"] for s in sids] == [CANCEL, CANCEL]
    assert [c.responses[s]["headers"][":status"] for s in sids] == ["200", "200"]
    assert metric(server, "slipstream_timeouts_total", {"kind": "write"}) == 2
    status, _, body = c.request("HEAD", "/hello")  # no body, so no window needed: the connection goes on
    assert (status, body) == (200, b"")


# ---- slow request bodies: the minimum rate applies on HTTP/2 too ----


def _trickle(server, interval_s: float, limit_s: float) -> tuple[float, int, bool]:
    """POST /echo over h2c whose body comes one byte per `interval_s`: (seconds until the server closed the
    connection or answered, bytes sent, whether it closed)."""
    c = H2Client(open_socket(server, False, None), scheme="http")
    c.pump(lambda: c.conn.remote_settings.max_concurrent_streams is not None)
    start = time.monotonic()
    sid = c.start("POST", "/echo", headers=[("content-type", "application/json"), ("content-length", "100")],
                  end=False)
    sent = 0
    while time.monotonic() - start < limit_s:
        if select.select([c.sock], [], [], interval_s)[0]:
            data = c.sock.recv(65536)
            if not data:
                return time.monotonic() - start, sent, True
            c.feed(data)
            if c.responses[sid]["ended"] or c.responses[sid]["reset"] is not None:
                return time.monotonic() - start, sent, False
            continue
        try:
            c.conn.send_data(sid, b" ")
            c.flush()
        except OSError:
            return time.monotonic() - start, sent, True
        sent += 1
    return time.monotonic() - start, sent, False


def test_a_body_trickled_over_http2_is_cut_at_the_minimum_rate(start_server):
    # One byte every 300 ms never trips the 600 ms inactivity timeout; at 1 KiB/s the connection is closed soon
    # after the 600 ms grace instead of being held for as long as the client likes.
    server = start_server("--threads", "1", "--body-timeout", "600ms", "--body-min-rate", "1k")
    elapsed, sent, closed = _trickle(server, 0.3, 4.0)
    assert closed
    assert 0.5 < elapsed < 2.0, elapsed
    assert 1 <= sent <= 6
    assert metric(server, "slipstream_timeouts_total", {"kind": "body_rate"}) == 1


def test_without_a_minimum_rate_an_http2_trickle_is_held(start_server):
    # The same trickle with the rate off stays inside the inactivity timeout: what the minimum rate prevents.
    server = start_server("--threads", "1", "--body-timeout", "600ms", "--body-min-rate", "0")
    _elapsed, sent, closed = _trickle(server, 0.3, 2.0)
    assert not closed
    assert sent >= 5


# ---- WINDOW_UPDATE floods ----


def test_a_window_update_flood_on_the_connection_ends_it(start_server):
    server = start_server("--threads", "1", "--h2-control-burst", "100")
    with socket.create_connection((server.host, server.port), timeout=5) as s:
        frames = raw_exchange(s, b"".join(window_update(0, 1) for _ in range(5000)))  # increments of 1
    assert goaway_code(frames) == ENHANCE_YOUR_CALM
    assert metric(server, "slipstream_http2_flood_defenses_total", {"kind": "control_frames"}) == 1


def test_a_window_update_flood_on_a_closed_stream_ends_the_connection(start_server):
    server = start_server("--threads", "1", "--h2-control-burst", "100")
    with socket.create_connection((server.host, server.port), timeout=5) as s:
        s.sendall(PREFACE + frame(SETTINGS, 0, 0) + frame(HEADERS, END_HEADERS | END_STREAM, 1, get_block()))
        read_frames_until(s, lambda fs: any(f[0] == DATA and f[1] & END_STREAM for f in fs), closed_ok=False)
        frames = send_and_read_rest(s, b"".join(window_update(1, 1) for _ in range(5000)))
    assert goaway_code(frames) == ENHANCE_YOUR_CALM
    assert metric(server, "slipstream_http2_flood_defenses_total", {"kind": "control_frames"}) == 1


def test_a_client_that_acknowledges_every_data_frame_is_not_cut_off(start_server):
    # A tiny control budget: only WINDOW_UPDATEs that answer DATA (free) can get the download through.
    server = start_server("--threads", "1", "--h2-control-burst", "2")
    with socket.create_connection((server.host, server.port), timeout=5) as s:
        s.sendall(
            PREFACE
            + frame(SETTINGS, 0, 0, struct.pack(">HI", 4, 1000))
            + frame(HEADERS, END_HEADERS | END_STREAM, 1, get_block(b"/stream/1000"))
        )
        body, received, ended, acked = b"", b"", False, 0
        while not ended:
            chunk = s.recv(65536)
            assert chunk, "the server closed the connection"
            received += chunk
            frames = parse_frames(received)
            for ftype, flags, stream, payload in frames[acked:]:
                if ftype == SETTINGS and not flags & ACK:
                    s.sendall(frame(SETTINGS, ACK, 0))
                assert ftype != GOAWAY, payload
                if ftype != DATA or stream != 1:
                    continue
                body += payload
                ended = bool(flags & END_STREAM)
                if payload:  # every frame acknowledged on its stream (while it is open) and on the connection
                    s.sendall((b"" if ended else window_update(1, len(payload))) + window_update(0, len(payload)))
            acked = len(frames)
    assert len(body) == STREAM_1000_BYTES
    assert body.startswith(b"line 0\nline 1\n")


def test_curl_downloads_with_a_tiny_control_budget(start_server):
    server = start_server("--threads", "1", "--h2-control-burst", "2")
    out = subprocess.run(
        ["curl", "-s", "--noproxy", "*", "--http2-prior-knowledge", f"{server.url}/stream/1000"],
        capture_output=True,
        timeout=10,
        check=True,
    ).stdout
    assert len(out) == STREAM_1000_BYTES


# ---- unusual first bytes on a cleartext connection (HTTP/2 on by default) ----


def test_a_first_line_without_any_http_version_is_closed_without_an_answer(start_server):
    # No request line of any HTTP/1.x version: with HTTP/2 on, a broken HTTP/2 preface (RFC 9113 §3.4, h2spec 3.5/2).
    server = start_server("--threads", "1")
    with server.connect() as s:
        s.settimeout(5)
        s.sendall(b"INVALID CONNECTION PREFACE\r\n\r\n")
        assert s.recv(65536) == b""


@pytest.mark.parametrize("http2", [True, False])
@pytest.mark.parametrize(
    "request_bytes, status_line",
    [
        (b"\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n", b"HTTP/1.1 200 OK\r\n"),  # RFC 9112 §2.2: skipped
        (b"\r\n\r\nGET /hello HTTP/1.1\r\nHost: x\r\n\r\n", b"HTTP/1.1 200 OK\r\n"),
        (b"GET / http/1.1\r\nHost: x\r\n\r\n", b"HTTP/1.1 400 Bad Request\r\n"),
        (b"GET / HTTP/2.0\r\nHost: x\r\n\r\n", b"HTTP/1.1 505 HTTP Version Not Supported\r\n"),
        (b"PRI * HTTP/1.1\r\nHost: x\r\n\r\n", b"HTTP/1.1 400 Bad Request\r\n"),
    ],
)
def test_unusual_first_lines_are_answered_as_without_http2(start_server, http2, request_bytes, status_line):
    server = start_server("--threads", "1", *([] if http2 else ["--no-http2"]))
    with server.connect() as s:
        s.settimeout(5)
        s.sendall(request_bytes)
        answer = s.recv(65536)
    assert answer.startswith(status_line), answer
