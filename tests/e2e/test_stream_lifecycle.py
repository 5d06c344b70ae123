"""Streamed responses (examples/stream_lab.cpp) at the edges of their life: graceful drain, handler timeout,
client disconnect (access log, metrics) and flow control against a client that reads slowly."""

import signal
import time

import pytest

from tests.e2e.helpers import assert_records, get_json, log_line, poll
from tests.e2e.streams import ChunkedStream


def test_drain_ends_event_streams_cleanly_and_cuts_other_streams_at_the_deadline(start_server):
    server = start_server("--threads", "1", "--drain-timeout", "1500ms", binary="stream_lab")
    events = ChunkedStream(server, "/lab/events?interval_ms=20")
    plain = ChunkedStream(server, "/lab/plain?interval_ms=20")
    assert events.chunk().startswith(b"event: tick\n")
    assert plain.chunk() == b"chunk 0\n"

    server.proc.send_signal(signal.SIGTERM)
    # The event stream ends cleanly (terminating chunk), then the connection closes.
    while events.chunk():
        pass
    assert events.at_eof()
    # The plain stream still runs after that ...
    assert plain.chunk().startswith(b"chunk ")
    # ... until the drain deadline cuts it: no terminating chunk, the connection just closes.
    with pytest.raises(ConnectionError):
        while plain.chunk():
            pass
    received = plain.received
    assert server.proc.wait(timeout=15) == 1  # the deadline had to cut a stream

    stderr = server.proc.stderr.read()
    assert "events producer: on_cancel" in stderr and "plain producer: on_cancel" in stderr
    line = log_line(server, "/lab/plain")
    assert (line["status"], line.get("aborted"), line["bytes"]) == (200, True, received)


def test_drain_lets_a_plain_stream_finish_by_itself(start_server):
    server = start_server("--threads", "1", "--drain-timeout", "20s", binary="stream_lab")
    plain = ChunkedStream(server, "/lab/plain?chunks=20&interval_ms=20")
    assert plain.chunk() == b"chunk 0\n"
    server.proc.send_signal(signal.SIGTERM)
    body = b""
    while chunk := plain.chunk():
        body += chunk
    assert body == b"".join(b"chunk %d\n" % i for i in range(1, 20))
    assert server.proc.wait(timeout=15) == 0
    assert "aborted" not in log_line(server, "/lab/plain")


def test_handler_timeout_before_the_stream_started_runs_on_cancel(start_server):
    server = start_server("--threads", "1", "--handler-timeout", "200ms", binary="stream_lab")
    s = ChunkedStream(server, "/lab/slow-start?delay_ms=20000")
    assert s.read_head() == 504
    poll(lambda: get_json(server, "/lab/stats")["cancels"], lambda n: n == 1, "the cancel callback")
    server.stop()
    assert "slow-start producer: on_cancel" in server.proc.stderr.read()


def test_a_stream_cut_by_the_client_is_logged_and_counted(start_server):
    server = start_server("--threads", "1", binary="stream_lab")
    plain = ChunkedStream(server, "/lab/plain?interval_ms=10")
    for i in range(3):
        assert plain.chunk() == b"chunk %d\n" % i
    plain.close()
    line = log_line(server, "/lab/plain")
    assert (line["status"], line["aborted"]) == (200, True)
    assert line["bytes"] >= plain.received > 0
    poll(lambda: get_json(server, "/lab/stats")["cancels"], lambda n: n == 1, "the cancel callback")
    s = server.connect()
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    metrics = b""
    while chunk := s.recv(65536):
        metrics += chunk
    s.close()
    counted = [ln for ln in metrics.decode().splitlines()
               if ln.startswith("slipstream_http_requests_total{") and 'route="/lab/plain"' in ln]
    assert len(counted) == 1 and 'status="200"' in counted[0] and counted[0].endswith(" 1")


def test_a_slow_reader_pauses_the_producer_and_then_gets_every_byte(start_server):
    mib = 100
    server = start_server("--threads", "1", binary="stream_lab")
    bulk = ChunkedStream(server, f"/lab/bulk?mib={mib}", rcvbuf=64 * 1024)

    def stalled(samples=[]):  # noqa: B006 - the previous sample, kept across calls
        samples.append(get_json(server, "/lab/stats")["bulk_bytes"])
        time.sleep(0.2)
        return samples[-2:] if len(samples) >= 2 else [None, samples[-1]]

    _, after = poll(stalled, lambda pair: pair[0] == pair[1], "the producer to stop", timeout=20)
    # Queued on the server: the high-water mark (1 MiB) plus what the kernel buffers hold.
    assert after < 24 * 1024 * 1024

    assert bulk.read_head() == 200
    body = bytearray()
    while chunk := bulk.chunk():
        body += chunk
    assert len(body) == mib * 1024 * 1024
    assert_records(bytes(body))
    assert get_json(server, "/lab/stats")["bulk_bytes"] == mib * 1024 * 1024
