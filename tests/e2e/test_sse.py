"""Server-Sent Events from the C++ example app (/sse/ticks): format, heartbeats, disconnects, compression."""

import re
import subprocess
import time
import zlib

import pytest

from tests.e2e.http_client import RawConnection
from tests.e2e.streams import open_stream, sse_events


def metric(server, name):
    with server.connect() as sock:
        conn = RawConnection(sock)
        conn.send(b"GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
        body = conn.read_response().body.decode()
    m = re.search(rf"^{re.escape(name)} (\d+)$", body, re.MULTILINE)
    return int(m.group(1)) if m else None


def wait_for_metric(server, name, value, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if metric(server, name) == value:
            return True
        time.sleep(0.05)
    return False


def test_event_stream_head_and_events(hello_server):
    s = open_stream(hello_server, "/sse/ticks?n=3&interval_ms=10")
    assert s.status == 200
    assert s.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert s.headers["cache-control"] == "no-cache"
    assert s.headers["x-accel-buffering"] == "no"
    assert s.headers["transfer-encoding"] == "chunked"
    assert "content-encoding" not in s.headers
    text = s.rest().decode()
    s.close()
    assert sse_events(text) == [("tick", str(i), f'{{"tick":{i}}}') for i in (1, 2, 3)]
    assert text.startswith('event: tick\nid: 1\ndata: {"tick":1}\n\n')


def test_curl_reads_the_whole_stream(hello_server):
    out = subprocess.run(
        ["curl", "--noproxy", "*", "-sN", f"{hello_server.url}/sse/ticks?n=2&interval_ms=5"],
        capture_output=True,
        check=True,
        timeout=10,
    ).stdout.decode()
    assert sse_events(out) == [("tick", "1", '{"tick":1}'), ("tick", "2", '{"tick":2}')]


def test_heartbeats_fill_idle_time(hello_server):
    s = open_stream(hello_server, "/sse/ticks?n=2&interval_ms=400&heartbeat_ms=50")
    text = s.rest().decode()
    s.close()
    assert sse_events(text) == [("tick", "1", '{"tick":1}'), ("tick", "2", '{"tick":2}')]
    first, second = text.index("id: 1"), text.index("id: 2")
    assert ": heartbeat\n\n" in text[first:second]
    assert metric(hello_server, "slipstream_sse_heartbeats_total") >= 1


def test_server_default_heartbeat_is_a_flag(start_server):
    server = start_server("--threads", "1", "--sse-heartbeat", "30ms")
    s = open_stream(server, "/sse/ticks?n=2&interval_ms=300")
    text = s.rest().decode()
    s.close()
    assert ": heartbeat\n\n" in text
    off = start_server("--threads", "1", "--sse-heartbeat", "0s")
    s = open_stream(off, "/sse/ticks?n=2&interval_ms=200")
    assert ": heartbeat" not in s.rest().decode()
    s.close()


def test_client_disconnect_is_noticed_at_once(hello_server):
    # The producer waits a minute between events and the heartbeat is 15 s: only the read side can
    # tell the server that the client left.
    s = open_stream(hello_server, "/sse/ticks?n=1000&interval_ms=60000")
    assert sse_events(s.chunk().decode()) == [("tick", "1", '{"tick":1}')]
    assert metric(hello_server, "slipstream_http_streams_open") == 1
    s.close()
    assert wait_for_metric(hello_server, "slipstream_http_streams_cancelled_total", 1)
    assert metric(hello_server, "slipstream_http_streams_open") == 0


def test_disconnect_mid_stream_stops_the_producer(hello_server):
    s = open_stream(hello_server, "/sse/ticks?n=100000&interval_ms=1")
    got = b""
    while got.count(b"\n\n") < 5:
        got += s.chunk()
    s.close()
    assert wait_for_metric(hello_server, "slipstream_http_streams_cancelled_total", 1)
    assert wait_for_metric(hello_server, "slipstream_http_streams_open", 0)
    # The connection that carried the stream is closed, and the server still serves others.
    t = open_stream(hello_server, "/sse/ticks?n=1&interval_ms=1")
    assert sse_events(t.rest().decode()) == [("tick", "1", '{"tick":1}')]
    t.close()


def test_event_streams_are_not_compressed_unless_asked(hello_server):
    s = open_stream(hello_server, "/sse/ticks?n=1&interval_ms=1", [("Accept-Encoding", "gzip, br, zstd")])
    assert "content-encoding" not in s.headers
    assert "vary" not in s.headers
    s.rest()
    s.close()


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_compressed_event_stream_decodes_event_by_event(start_server, coding):
    server = start_server("--threads", "1", "--compress-sse", "--compression-encodings", f"{coding},zstd")
    s = open_stream(server, "/sse/ticks?n=3&interval_ms=100", [("Accept-Encoding", coding)])
    assert s.headers["content-encoding"] == coding
    assert s.headers["vary"] == "Accept-Encoding"
    inflate = zlib.decompressobj(wbits=31 if coding == "gzip" else 15)
    # Each event arrives flushed: it decodes before the next one is produced.
    first = inflate.decompress(s.chunk()).decode()
    assert sse_events(first) == [("tick", "1", '{"tick":1}')]
    rest = b""
    while True:
        c = s.chunk()
        if not c:
            break
        rest += inflate.decompress(c)
    s.close()
    assert sse_events(first + rest.decode())[1:] == [("tick", "2", '{"tick":2}'), ("tick", "3", '{"tick":3}')]
    assert inflate.eof
