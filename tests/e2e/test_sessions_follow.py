"""GET /sessions/{id}/events?follow=1 as Server-Sent Events, on real sockets: the backlog then live events in
order, Last-Event-ID resumption after a dropped connection, the stream ending when the session is deleted, 403 for
another principal, and two server processes on one throwaway PostgreSQL: an append on one reaches a follower on
the other (LISTEN/NOTIFY)."""
import json
import socket
import threading
import time

import pytest

from tests.e2e.test_sessions import ALICE_KEY, BOB_KEY, PROBLEM, call, create, sessions_server
from tests.pg_cluster import PgCluster, find_bindir


class Follow:
    """A raw HTTP/1.1 GET of an event stream; events() parses what arrived (chunked encoding undone)."""

    def __init__(self, server, path, headers=None, key=None):
        self.sock = socket.create_connection((server.host, server.port), timeout=10)
        fields = {"Host": "localhost", "Accept": "text/event-stream", **(headers or {})}
        if key is not None:
            fields["X-API-Key"] = key
        head = f"GET {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in fields.items()) + "\r\n"
        self.sock.sendall(head.encode())
        self.buf = b""
        while b"\r\n\r\n" not in self.buf:
            self._recv()
        head, self.raw = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode().split("\r\n")
        self.status = int(lines[0].split()[1])
        self.fields = {k.lower(): v.strip() for k, v in (line.split(":", 1) for line in lines[1:])}
        self.chunked = self.fields.get("transfer-encoding") == "chunked"
        self.body = b""
        self.ended = False
        self.pending = []
        self.comments = 0

    def _recv(self):
        data = self.sock.recv(65536)
        if not data:
            raise EOFError
        self.buf += data

    def _dechunk(self):
        while True:
            if not self.chunked:
                self.body += self.raw
                self.raw = b""
                return
            if b"\r\n" not in self.raw:
                return
            size_line, rest = self.raw.split(b"\r\n", 1)
            size = int(size_line.split(b";")[0], 16)
            if len(rest) < size + 2:
                return
            if size == 0:
                self.ended = True
            self.body += rest[:size]
            self.raw = rest[size + 2:]

    def _parse(self):
        while b"\n\n" in self.body:
            block, self.body = self.body.split(b"\n\n", 1)
            event = {}
            for line in block.decode().split("\n"):
                if line.startswith(":"):
                    self.comments += 1
                    continue
                name, _, value = line.partition(":")
                event[name] = value.removeprefix(" ")
            if "data" in event:
                self.pending.append((int(event["id"]), json.loads(event["data"])))

    def next_events(self, n, timeout=10):
        deadline = time.monotonic() + timeout
        self._dechunk()
        self._parse()
        while len(self.pending) < n:
            assert time.monotonic() < deadline, f"only {len(self.pending)} of {n} events came"
            if self.ended:
                break
            self.sock.settimeout(max(0.05, deadline - time.monotonic()))
            try:
                data = self.sock.recv(65536)
            except TimeoutError:
                raise AssertionError(f"only {len(self.pending)} of {n} events came") from None
            if not data:
                self.ended = True
                break
            self.raw += data
            self._dechunk()
            self._parse()
        got, self.pending = self.pending[:n], self.pending[n:]
        return got

    def wait_end(self, timeout=10):
        deadline = time.monotonic() + timeout
        self._dechunk()
        while not self.ended:
            assert time.monotonic() < deadline, "the stream did not end"
            self.sock.settimeout(max(0.05, deadline - time.monotonic()))
            data = self.sock.recv(65536)
            if not data:
                self.ended = True
                break
            self.raw += data
            self._dechunk()
            self._parse()

    def close(self):
        self.sock.close()


def append(server, sid, content, key=None):
    a = call(server, "POST", f"/sessions/{sid}/events", {"role": "user", "content": content}, key=key)
    assert a.status == 201, a.raw
    return a.json["last_seq"]


def seqs_and_contents(events):
    return [(seq, e["seq"], e["content"]) for seq, e in events]


@pytest.fixture
def server(start_server, tmp_path):
    return sessions_server(start_server, tmp_path / "data")


def test_follow_sends_the_backlog_then_live_events_in_order(server):
    sid = create(server)["id"]
    for n in range(1, 4):
        append(server, sid, n)
    f = Follow(server, f"/sessions/{sid}/events?follow=1&after=1")
    assert (f.status, f.fields["content-type"].split(";")[0]) == (200, "text/event-stream")
    assert seqs_and_contents(f.next_events(2)) == [(2, 2, 2), (3, 3, 3)]
    for n in range(4, 54):
        append(server, sid, n)
    live = f.next_events(50)
    assert seqs_and_contents(live) == [(n, n, n) for n in range(4, 54)]
    assert set(live[0][1]) == {"seq", "role", "content", "created_at"}
    # The same JSON as the page the non-follow GET answers.
    page = call(server, "GET", f"/sessions/{sid}/events?after=3&limit=1").json
    assert page["events"][0] == live[0][1]
    # A delete ends the stream.
    assert call(server, "DELETE", f"/sessions/{sid}").status == 204
    f.wait_end()
    f.close()


def test_concurrent_appends_reach_every_follower_once_in_seq_order(server):
    sid = create(server)["id"]
    followers = [Follow(server, f"/sessions/{sid}/events?follow=1") for _ in range(3)]
    writers = [threading.Thread(target=lambda w=w: [append(server, sid, [w, i]) for i in range(25)]) for w in range(4)]
    for t in writers:
        t.start()
    late = None
    for t in writers:
        t.join()
        late = late or Follow(server, f"/sessions/{sid}/events?follow=1&after=10")
    contents = sorted(e["content"] for e in call(server, "GET", f"/sessions/{sid}/events?limit=1000").json["events"])
    assert contents == sorted([w, i] for w in range(4) for i in range(25))
    for f in followers:
        assert [seq for seq, _ in f.next_events(100)] == list(range(1, 101))
        f.close()
    assert [seq for seq, _ in late.next_events(90)] == list(range(11, 101))
    late.close()


def test_a_slow_follower_gets_a_large_backlog_whole_and_in_order(start_server, tmp_path):
    server = sessions_server(start_server, tmp_path / "data", "--stream-high-water", "64k")
    sid = create(server)["id"]
    text = "x" * 1000
    for batch in range(3):  # about 3 MB: far past the stream's high-water mark
        events = [{"role": "user", "content": [batch * 1000 + i, text]} for i in range(1000)]
        assert call(server, "POST", f"/sessions/{sid}/events", {"events": events}).status == 201
    f = Follow(server, f"/sessions/{sid}/events?follow=1")
    time.sleep(0.5)  # not reading: the server waits for the queue to drain
    append(server, sid, "live")
    got = f.next_events(3001, timeout=20)
    assert [seq for seq, _ in got] == list(range(1, 3002))
    assert [e["content"][0] for _, e in got[:3000]] == list(range(3000))
    assert got[-1][1]["content"] == "live"
    f.close()


def test_last_event_id_resumes_with_exactly_the_missed_events(server):
    sid = create(server)["id"]
    append(server, sid, "a")
    f = Follow(server, f"/sessions/{sid}/events?follow=1")
    assert seqs_and_contents(f.next_events(1)) == [(1, 1, "a")]
    f.close()  # dropped
    for c in "bcd":
        append(server, sid, c)
    # Last-Event-ID wins over ?after=.
    again = Follow(server, f"/sessions/{sid}/events?follow=1&after=3", {"Last-Event-ID": "1"})
    assert seqs_and_contents(again.next_events(3)) == [(2, 2, "b"), (3, 3, "c"), (4, 4, "d")]
    append(server, sid, "e")
    assert seqs_and_contents(again.next_events(1)) == [(5, 5, "e")]
    again.close()
    bad = call(server, "GET", f"/sessions/{sid}/events?follow=1", headers={"Last-Event-ID": "x"})
    assert (bad.status, bad.fields["content-type"]) == (400, PROBLEM)
    unknown = call(server, "GET", "/sessions/AAAAAAAAAAAAAAAAAAAAAA/events?follow=1")
    assert (unknown.status, unknown.fields["content-type"]) == (404, PROBLEM)


def test_another_principals_follow_is_403_before_any_stream(start_server, tmp_path):
    keys = tmp_path / "keys.txt"
    keys.write_text(f"alice {ALICE_KEY}\nbob {BOB_KEY}\n")
    server = sessions_server(start_server, tmp_path / "data", "--auth", "required", "--api-keys-file", str(keys))
    sid = create(server, key=ALICE_KEY)["id"]
    a = call(server, "GET", f"/sessions/{sid}/events?follow=1", key=BOB_KEY)
    assert (a.status, a.fields["content-type"], a.json["detail"]) == (403, PROBLEM,
                                                                      "the session belongs to another principal")
    assert call(server, "GET", f"/sessions/{sid}/events?follow=1").status == 401
    f = Follow(server, f"/sessions/{sid}/events?follow=1", key=ALICE_KEY)
    assert f.status == 200
    append(server, sid, 1, key=ALICE_KEY)
    assert seqs_and_contents(f.next_events(1)) == [(1, 1, 1)]
    f.close()


@pytest.fixture(scope="module")
def cluster():
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL's server is not installed (scripts/setup.sh installs it)")
    c = PgCluster(bindir).start()
    yield c
    c.close()


def test_two_processes_on_one_postgresql_share_sessions_and_live_events(start_server, cluster):
    a = start_server("--threads", "1", "--no-access-log", "--sessions", "--store", cluster.url)
    b = start_server("--threads", "1", "--no-access-log", "--sessions", "--store", cluster.url)
    sid = create(a)["id"]
    assert call(b, "GET", f"/sessions/{sid}").json["id"] == sid
    append(b, sid, "first")
    f = Follow(b, f"/sessions/{sid}/events?follow=1")
    assert seqs_and_contents(f.next_events(1)) == [(1, 1, "first")]
    start = time.monotonic()
    for n in range(2, 12):
        append(a, sid, n)  # on the other process: reaches B's follower through NOTIFY
    assert seqs_and_contents(f.next_events(10)) == [(n, n, n) for n in range(2, 12)]
    assert time.monotonic() - start < 4, "woken by the periodic re-check, not by NOTIFY"
    g = Follow(a, f"/sessions/{sid}/events?follow=1&after=11")
    append(b, sid, "last")
    assert seqs_and_contents(g.next_events(1)) == [(12, 12, "last")]
    assert seqs_and_contents(f.next_events(1)) == [(12, 12, "last")]
    assert sorted(s["id"] for s in call(b, "GET", "/sessions").json["sessions"]) == \
        sorted(s["id"] for s in call(a, "GET", "/sessions").json["sessions"])
    assert call(a, "DELETE", f"/sessions/{sid}").status == 204
    f.wait_end()  # B's follower ends on A's delete
    g.wait_end()
    f.close()
    g.close()


def test_an_idle_stream_gets_keep_alive_comments(start_server, tmp_path):
    server = sessions_server(start_server, tmp_path / "data", "--sse-heartbeat", "100ms")
    sid = create(server)["id"]
    f = Follow(server, f"/sessions/{sid}/events?follow=1")
    deadline = time.monotonic() + 5
    while f.comments < 2:
        assert time.monotonic() < deadline, "no keep-alive comment"
        f.sock.settimeout(1)
        f.raw += f.sock.recv(65536)
        f._dechunk()
        f._parse()
    append(server, sid, "after")
    assert seqs_and_contents(f.next_events(1)) == [(1, 1, "after")]
    f.close()


def test_the_stream_ends_when_the_session_expires(start_server, tmp_path):
    server = sessions_server(start_server, tmp_path / "data", "--session-sweep-interval", "100ms")
    sid = create(server, {"ttl_ms": 800})["id"]
    append(server, sid, 1)
    f = Follow(server, f"/sessions/{sid}/events?follow=1")
    assert seqs_and_contents(f.next_events(1)) == [(1, 1, 1)]
    f.wait_end(timeout=5)  # seen at the periodic re-check after the TTL
    f.close()


def test_a_follower_rereads_after_its_listener_reconnects(start_server, cluster):
    a = start_server("--threads", "1", "--no-access-log", "--sessions", "--store", cluster.url)
    b = start_server("--threads", "1", "--no-access-log", "--sessions", "--store", cluster.url)
    sid = create(a)["id"]
    f = Follow(b, f"/sessions/{sid}/events?follow=1")
    # Every LISTEN connection is cut (both processes'); the appends' NOTIFYs may go while they are away.
    cut = cluster.psql("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")
    assert int(cut) >= 2  # both processes' (a backend of an earlier test may still be exiting)
    start = time.monotonic()
    for n in range(1, 4):
        append(a, sid, n)
    assert seqs_and_contents(f.next_events(3)) == [(n, n, n) for n in range(1, 4)]
    assert time.monotonic() - start < 4, "not woken by the reconnect"
    append(a, sid, 4)  # and the listener works again
    assert seqs_and_contents(f.next_events(1)) == [(4, 4, 4)]
    f.close()
