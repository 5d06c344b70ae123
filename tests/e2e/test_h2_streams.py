"""Streamed responses over HTTP/2 (h2c, examples/stream_lab.cpp) at the edges of their life: graceful drain
(event streams end, others run to the deadline, GOAWAY), a stream reset by the client (access log, metrics,
on_cancel) and back-pressure from the peer's flow-control window. The HTTP/1.1 twins, and the tests that run
over every protocol (a client that leaves mid-stream, the handler timeout), are in test_stream_lifecycle.py."""

import random
import signal
import struct
import time

import h2.config
import h2.connection
import h2.errors
import pytest

from tests.e2e.helpers import H2Client, assert_records, get_json, log_line, open_socket, poll


class BufferedH2Client(H2Client):
    """H2Client with bodies collected in bytearrays (appending to bytes is quadratic on tens of MiB)."""

    def start(self, *args, **kwargs):
        sid = super().start(*args, **kwargs)
        self.responses[sid]["body"] = bytearray()  # nothing was read for it yet
        return sid


def h2c(server):
    return BufferedH2Client(open_socket(server, False, None))


class FrameReader:
    """Requests sent with the h2 state machine, answers read frame by frame. The h2 package refuses DATA after
    GOAWAY, which a draining server still sends for streams in progress; so frames are parsed here."""

    def __init__(self, server):
        self.sock = open_socket(server, False, None)
        self.c = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        self.c.initiate_connection()
        self.sock.sendall(self.c.data_to_send())
        self.buf = b""
        self.streams: dict[int, dict] = {}
        self.goaway = None

    def start(self, path):
        sid = self.c.get_next_available_stream_id()
        self.streams[sid] = {"head": False, "body": b"", "ended": False, "reset": None}
        self.c.send_headers(sid, [(":method", "GET"), (":scheme", "http"), (":authority", "t"), (":path", path)],
                            end_stream=True)
        self.sock.sendall(self.c.data_to_send())
        return sid

    def pump(self, until, timeout=10.0):
        """Reads frames until until() holds; ConnectionError when the server closes first."""
        deadline = time.monotonic() + timeout
        while not until():
            if time.monotonic() > deadline:
                raise TimeoutError("no answer in time")
            while len(self.buf) >= 9 and len(self.buf) >= 9 + int.from_bytes(self.buf[:3], "big"):
                self.frame()
                if until():
                    return
            data = self.sock.recv(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            self.buf += data

    def frame(self):
        length = int.from_bytes(self.buf[:3], "big")
        kind, flags, sid = self.buf[3], self.buf[4], struct.unpack(">I", self.buf[5:9])[0] & 0x7FFFFFFF
        payload, self.buf = self.buf[9 : 9 + length], self.buf[9 + length :]
        st = self.streams.get(sid)
        if kind == 0 and st is not None:  # DATA (nghttp2 does not pad)
            st["body"] += payload
        elif kind == 1 and st is not None:  # HEADERS
            st["head"] = True
        elif kind == 3 and st is not None:  # RST_STREAM
            st["reset"] = int.from_bytes(payload[:4], "big")
        elif kind == 4 and not flags & 1:  # SETTINGS: acknowledged
            self.sock.sendall(b"\x00\x00\x00\x04\x01\x00\x00\x00\x00")
        elif kind == 7:  # GOAWAY: last stream id, error code
            self.goaway = (int.from_bytes(payload[:4], "big") & 0x7FFFFFFF, int.from_bytes(payload[4:8], "big"))
        if kind in (0, 1) and flags & 1 and st is not None:
            st["ended"] = True


def body_of(c, sid):
    return c.responses[sid]["body"]


def test_drain_ends_event_streams_cleanly_and_cuts_other_streams_at_the_deadline(start_server):
    server = start_server("--threads", "1", "--drain-timeout", "1500ms", binary="stream_lab")
    c = FrameReader(server)
    events = c.start("/lab/events?interval_ms=20")
    plain = c.start("/lab/plain?interval_ms=20")
    ev, pl = c.streams[events], c.streams[plain]
    c.pump(lambda: ev["body"].startswith(b"event: tick\n") and pl["body"].startswith(b"chunk 0\n"))

    server.proc.send_signal(signal.SIGTERM)
    # The event stream ends cleanly (END_STREAM, no reset) and GOAWAY(NO_ERROR) announces the drain.
    c.pump(lambda: ev["ended"] and c.goaway is not None)
    assert ev["reset"] is None and ev["body"].endswith(b"\n\n")  # whole events only
    assert c.goaway == (plain, 0)
    # The plain stream still runs after that ...
    seen = len(pl["body"])
    c.pump(lambda: len(pl["body"]) > seen)
    # ... until the drain deadline cuts it: the connection closes without END_STREAM.
    with pytest.raises(ConnectionError):
        c.pump(lambda: False, timeout=15)
    assert not pl["ended"]
    received = len(pl["body"])
    assert server.proc.wait(timeout=15) == 1  # the deadline had to cut a stream

    stderr = server.proc.stderr.read()
    assert "events producer: on_cancel" in stderr and "plain producer: on_cancel" in stderr
    assert "aborted" not in log_line(server, "/lab/events")  # logged first, when it ended
    line = log_line(server, "/lab/plain")
    assert (line["status"], line.get("aborted")) == (200, True)
    assert line["bytes"] >= received  # the head and every body byte framed (some may not have arrived)


def test_drain_lets_a_plain_stream_finish_by_itself(start_server):
    server = start_server("--threads", "1", "--drain-timeout", "20s", binary="stream_lab")
    c = FrameReader(server)
    plain = c.start("/lab/plain?chunks=20&interval_ms=20")
    pl = c.streams[plain]
    c.pump(lambda: pl["body"].startswith(b"chunk 0\n"))
    server.proc.send_signal(signal.SIGTERM)
    c.pump(lambda: pl["ended"])
    assert pl["reset"] is None and c.goaway == (plain, 0)
    assert pl["body"] == b"".join(b"chunk %d\n" % i for i in range(20))
    assert server.proc.wait(timeout=15) == 0
    assert "aborted" not in log_line(server, "/lab/plain")


def test_a_stream_reset_by_the_client_is_logged_counted_and_cancelled_once(start_server):
    server = start_server("--threads", "1", binary="stream_lab")
    c = h2c(server)
    plain = c.start("GET", "/lab/plain?interval_ms=10")
    c.pump(lambda: body_of(c, plain).count(b"\n") >= 3)
    c.conn.reset_stream(plain, h2.errors.ErrorCodes.CANCEL)
    c.flush()
    received = len(body_of(c, plain))

    line = log_line(server, "/lab/plain")
    assert (line["status"], line["aborted"]) == (200, True)
    assert line["bytes"] >= received > 0
    poll(lambda: get_json(server, "/lab/stats")["cancels"], lambda n: n == 1, "the cancel callback")
    # The connection goes on: the metrics come over it, with the cut request counted once.
    status, _, metrics = c.request("GET", "/metrics")
    assert status == 200
    counted = [ln for ln in metrics.decode().splitlines()
               if ln.startswith("slipstream_http_requests_total{") and 'route="/lab/plain"' in ln]
    assert len(counted) == 1 and 'status="200"' in counted[0] and counted[0].endswith(" 1")
    assert server.proc.poll() is None
    server.stop()
    assert server.proc.stderr.read().count("plain producer: on_cancel") == 1


def test_the_peer_window_pauses_the_producer_and_then_every_byte_arrives(start_server):
    mib = 16
    server = start_server("--threads", "1", binary="stream_lab")
    c = h2c(server)
    bulk = c.start("GET", f"/lab/bulk?mib={mib}")
    # The client reads nothing yet: the stream's window (64 KiB) fills, the rest waits in the session until the
    # stream is not writable and the producer parks.
    paused = poll(lambda: get_json(server, "/lab/stats"), lambda st: st["bulk_paused"] == 1, "the producer to pause",
                  timeout=20)
    # Queued on the server: the high-water mark (1 MiB), one chunk, and the window's worth framed.
    assert 0 < paused["bulk_bytes"] < 3 * 1024 * 1024

    c.pump(lambda: c.responses[bulk]["ended"] or c.responses[bulk]["reset"] is not None, timeout=60)
    assert c.responses[bulk]["headers"][":status"] == "200"
    body = body_of(c, bulk)
    assert len(body) == mib * 1024 * 1024
    assert_records(body)
    # The producer woke each time the queue drained and left the loop before the last chunk went out.
    assert get_json(server, "/lab/stats") == {"bulk_bytes": mib * 1024 * 1024, "bulk_paused": 0, "cancels": 0}


# ---- file bodies: read from the file as the peer's window allows, never whole into memory ----


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    root = tmp_path_factory.mktemp("h2files")
    (root / "big.bin").write_bytes(random.Random(11).randbytes(24 * 1024 * 1024))
    (root / "small.txt").write_bytes(b"0123456789abcdefghij")
    (root / "empty.txt").write_bytes(b"")
    return root


@pytest.mark.parametrize(
    ("name", "query", "start", "end"),
    [
        ("small.txt", "", 0, 20),
        ("small.txt", "&offset=5&length=10", 5, 15),
        ("empty.txt", "", 0, 0),
        ("big.bin", "&offset=1000&length=70000", 1000, 71000),  # over the initial window and one frame
    ],
)
def test_file_regions(start_server, files, name, query, start, end):
    server = start_server("--threads", "1", binary="stream_lab")
    c = h2c(server)
    status, headers, body = c.request("GET", f"/lab/file?path={files / name}{query}")
    assert (status, headers["content-length"]) == (200, str(end - start))
    assert body == (files / name).read_bytes()[start:end]
    status, headers, body = c.request("HEAD", f"/lab/file?path={files / name}{query}")
    assert (status, headers["content-length"], body) == (200, str(end - start), b"")
    status, _, _ = c.request("GET", f"/lab/file?path={files / 'missing.bin'}")
    assert status == 500


def test_a_large_file_is_read_as_the_window_allows(start_server, files):
    server = start_server("--threads", "1", binary="stream_lab")
    c = h2c(server)
    c.request("GET", f"/lab/file?path={files / 'small.txt'}")  # the server has warmed up
    before = rss_bytes(server.proc.pid)
    sid = c.start("GET", f"/lab/file?path={files / 'big.bin'}")
    c.pump(lambda: len(c.responses[sid]["body"]) > 0)  # answered; the client now reads nothing for a while
    grown = rss_bytes(server.proc.pid) - before
    assert grown < 8 * 1024 * 1024  # not the 24 MiB file in memory
    c.pump(lambda: c.responses[sid]["ended"] or c.responses[sid]["reset"] is not None, timeout=60)
    assert c.responses[sid]["headers"]["content-length"] == str(24 * 1024 * 1024)
    assert c.responses[sid]["body"] == (files / "big.bin").read_bytes()


def test_a_file_that_shrinks_while_sent_resets_its_stream_only(start_server, tmp_path):
    path = tmp_path / "shrink.bin"
    path.write_bytes(b"x" * (4 * 1024 * 1024))
    server = start_server("--threads", "1", binary="stream_lab")
    c = h2c(server)
    sid = c.start("GET", f"/lab/file?path={path}")
    c.pump(lambda: len(c.responses[sid]["body"]) > 0)
    with open(path, "r+b") as f:
        f.truncate(100 * 1024)
    c.pump(lambda: c.responses[sid]["ended"] or c.responses[sid]["reset"] is not None, timeout=30)
    assert c.responses[sid]["reset"] == h2.errors.ErrorCodes.INTERNAL_ERROR
    assert not c.responses[sid]["ended"]
    status, _, body = c.request("GET", f"/lab/file?path={path}")  # the connection goes on
    assert (status, len(body)) == (200, 100 * 1024)
