"""Streamed responses (examples/stream_lab.cpp) at the edges of their life: graceful drain, handler timeout,
client disconnect (access log, metrics) and flow control against a client that reads slowly. The handler timeout
and the disconnect run over every protocol (the `serve` fixture); drain and flow control here are HTTP/1.1's, and
HTTP/2's (GOAWAY, the peer's window, a stream reset by the client) are in test_h2_streams.py."""

import json
import signal

import pytest

from tests.e2e.helpers import assert_records, get_json, log_line, poll
from tests.e2e.streams import ChunkedStream


def stats(client):
    """/lab/stats, asked over the client's own protocol and connection."""
    answer = client.request("GET", "/lab/stats")
    assert answer.status == 200
    return json.loads(answer.body)


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


def test_handler_timeout_before_the_stream_started_runs_on_cancel(serve):
    client = serve("--handler-timeout", "200ms", fresh=True, binary="stream_lab")
    assert client.request("GET", "/lab/slow-start?delay_ms=20000").status == 504
    poll(lambda: stats(client)["cancels"], lambda n: n == 1, "the cancel callback")
    client.server.stop()
    assert "slow-start producer: on_cancel" in client.server.proc.stderr.read()


def test_a_stream_whose_client_left_is_logged_counted_and_cancelled(serve):
    client = serve(fresh=True, binary="stream_lab")
    plain = client.stream("/lab/plain?interval_ms=10")
    assert plain.answer.status == 200
    body = b""
    while body.count(b"\n") < 3:
        body += plain.read()
    assert body == b"".join(b"chunk %d\n" % i for i in range(body.count(b"\n")))
    client.close()  # HTTP/1.1: the stream's connection; HTTP/2: the connection it is a stream of

    line = log_line(client.server, "/lab/plain")
    assert (line["status"], line["aborted"]) == (200, True)
    assert line["bytes"] >= len(body)  # the head and every body byte sent (some may not have been read)
    poll(lambda: stats(client)["cancels"], lambda n: n == 1, "the cancel callback")
    metrics = client.request("GET", "/metrics")  # over a new connection
    assert metrics.status == 200
    counted = [ln for ln in metrics.body.decode().splitlines()
               if ln.startswith("slipstream_http_requests_total{") and 'route="/lab/plain"' in ln]
    assert len(counted) == 1 and 'status="200"' in counted[0] and counted[0].endswith(" 1")
    assert client.server.proc.poll() is None
    client.server.stop()
    assert client.server.proc.stderr.read().count("plain producer: on_cancel") == 1


def test_a_slow_reader_pauses_the_producer_and_then_gets_every_byte(start_server):
    mib = 100
    server = start_server("--threads", "1", binary="stream_lab")
    bulk = ChunkedStream(server, f"/lab/bulk?mib={mib}", rcvbuf=64 * 1024)
    # The client reads nothing yet: the producer writes until its stream is not writable, then parks. It may wake
    # again while the kernel buffers still take bytes; the bound below holds at every moment the client reads nothing.
    paused = poll(lambda: get_json(server, "/lab/stats"), lambda st: st["bulk_paused"] == 1, "the producer to pause",
                  timeout=20)
    # Queued on the server: the high-water mark (1 MiB) plus what the kernel buffers hold.
    assert paused["bulk_bytes"] < 24 * 1024 * 1024

    assert bulk.read_head() == 200
    body = bytearray()
    while chunk := bulk.chunk():
        body += chunk
    assert len(body) == mib * 1024 * 1024
    assert_records(bytes(body))
    # The producer woke each time the queue drained and left the loop before the last chunk went out.
    assert get_json(server, "/lab/stats") == {"bulk_bytes": mib * 1024 * 1024, "bulk_paused": 0, "cancels": 0}
