"""Server-Sent Events from the C++ example app (/sse/ticks): format, heartbeats, disconnects, compression; the
stream's behaviour over every protocol (h1, h1 over TLS, h2c, h2)."""

import shutil
import zlib

import pytest

from tests.e2e.helpers import curl, metric, metric_value, poll
from tests.e2e.streams import open_stream, sse_events

TICKS = [("tick", str(i), f'{{"tick":{i}}}') for i in (1, 2, 3)]


def test_event_stream_head_and_events(serve, protocol):
    # Event streams are not compressed unless asked (--compress-sse), whatever the client accepts.
    s = serve().stream("/sse/ticks?n=3&interval_ms=10", [("Accept-Encoding", "gzip, br, zstd")])
    h = s.answer
    assert h.status == 200
    assert h.header("content-type") == "text/event-stream; charset=utf-8"
    assert h.header("cache-control") == "no-cache"
    assert h.header("x-accel-buffering") == "no"
    if not protocol.http2:
        assert h.header("transfer-encoding") == "chunked"
    assert h.header("content-encoding") is None
    assert h.header("vary") is None
    text = s.rest().decode()
    assert sse_events(text) == TICKS
    assert text.startswith('event: tick\nid: 1\ndata: {"tick":1}\n\n')


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_reads_the_whole_stream(serve, protocol):
    c = serve()
    out = curl(*protocol.curl_flags(), "-N", f"{protocol.url(c.server)}/sse/ticks?n=2&interval_ms=5")
    assert sse_events(out) == TICKS[:2]


def test_heartbeats_fill_idle_time(serve):
    c = serve()
    text = c.stream("/sse/ticks?n=2&interval_ms=400&heartbeat_ms=50").rest().decode()
    assert sse_events(text) == TICKS[:2]
    first, second = text.index("id: 1"), text.index("id: 2")
    assert ": heartbeat\n\n" in text[first:second]
    assert metric_value(c.request("GET", "/metrics").body.decode(), "slipstream_sse_heartbeats_total") >= 1


def test_server_default_heartbeat_is_a_flag(serve):
    text = serve("--sse-heartbeat", "30ms").stream("/sse/ticks?n=2&interval_ms=300").rest().decode()
    assert ": heartbeat\n\n" in text
    off = serve("--sse-heartbeat", "0s").stream("/sse/ticks?n=2&interval_ms=200").rest().decode()
    assert ": heartbeat" not in off


def test_client_disconnect_is_noticed_at_once(hello_server):
    # The producer waits a minute between events and the heartbeat is 15 s: only the read side can
    # tell the server that the client left.
    s = open_stream(hello_server, "/sse/ticks?n=1000&interval_ms=60000")
    assert sse_events(s.chunk().decode()) == [("tick", "1", '{"tick":1}')]
    assert metric(hello_server, "slipstream_http_streams_open", default=None) == 1
    s.close()
    poll(lambda: metric(hello_server, "slipstream_http_streams_cancelled_total", default=None), lambda v: v == 1,
         "the cancel to be counted", timeout=5.0)
    assert metric(hello_server, "slipstream_http_streams_open", default=None) == 0


def test_disconnect_mid_stream_stops_the_producer(hello_server):
    s = open_stream(hello_server, "/sse/ticks?n=100000&interval_ms=1")
    got = b""
    while got.count(b"\n\n") < 5:
        got += s.chunk()
    s.close()
    for name, value in (("slipstream_http_streams_cancelled_total", 1), ("slipstream_http_streams_open", 0)):
        poll(lambda n=name: metric(hello_server, n, default=None), lambda v, x=value: v == x, name, timeout=5.0)
    # The connection that carried the stream is closed, and the server still serves others.
    t = open_stream(hello_server, "/sse/ticks?n=1&interval_ms=1")
    assert sse_events(t.rest().decode()) == [("tick", "1", '{"tick":1}')]
    t.close()


@pytest.mark.parametrize("coding", ["gzip", "deflate"])
def test_compressed_event_stream_decodes_event_by_event(serve, coding):
    c = serve("--compress-sse", "--compression-encodings", f"{coding},zstd")
    s = c.stream("/sse/ticks?n=3&interval_ms=100", [("Accept-Encoding", coding)])
    assert s.answer.header("content-encoding") == coding
    assert s.answer.header("vary") == "Accept-Encoding"
    inflate = zlib.decompressobj(wbits=31 if coding == "gzip" else 15)
    # Each event arrives flushed: it decodes before the next one is produced.
    first = inflate.decompress(s.read()).decode()
    assert sse_events(first) == TICKS[:1]
    rest = b""
    while piece := s.read():
        rest += inflate.decompress(piece)
    assert sse_events(first + rest.decode()) == TICKS
    assert inflate.eof
