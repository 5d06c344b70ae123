"""Issue 20's crash test for the durable agent sessions: writers append under load and record every acknowledgement
while the harness kills the server with SIGKILL and restarts it, again and again. After each restart every
acknowledged append is there, each log is 1..n without holes or duplicates, and SQLite's integrity_check is clean.
The same with PostgreSQL's server killed too (appends grouped into shared statements), and the bound of what `--session-durability buffered` can lose.

Kill counts: SLIPSTREAM_CRASH_KILLS (SQLite, default 50) and SLIPSTREAM_CRASH_KILLS_PG (PostgreSQL, default 10);
`make test-all` runs them with 1,000 and 100."""
import http.client
import json
import os
import random
import signal
import sqlite3
import threading
import time

import pytest

from tests.pg_cluster import PgCluster, find_bindir

KILLS = int(os.environ.get("SLIPSTREAM_CRASH_KILLS", "50"))
KILLS_PG = int(os.environ.get("SLIPSTREAM_CRASH_KILLS_PG", "10"))
WRITERS = 2


class Client:
    """One keep-alive connection; any failure (the server died) is an OSError or http.client's errors."""

    def __init__(self, server):
        self.conn = http.client.HTTPConnection(server.host, server.port, timeout=10)

    def call(self, method, path, body=None, headers=None):
        fields = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            fields["Content-Type"] = "application/json"
        self.conn.request(method, path, body=data, headers=fields)
        resp = self.conn.getresponse()
        raw = resp.read()
        return resp.status, json.loads(raw) if raw else None

    def close(self):
        self.conn.close()


def call(server, method, path, body=None, headers=None):
    c = Client(server)
    try:
        return c.call(method, path, body, headers)
    finally:
        c.close()


class Writer(threading.Thread):
    """Appends event i (content i, Idempotency-Key "k<i>") to its session, one request at a time, until the server
    dies; `acked` maps i -> (seq, monotonic time of the answer); `next` is the first i not acknowledged (the one in
    flight when the server died, which may or may not have been kept)."""

    def __init__(self, server, sid, start, acked):
        super().__init__(daemon=True)
        self.server, self.sid, self.next, self.acked = server, sid, start, acked

    def run(self):
        try:
            client = Client(self.server)
            while True:
                status, body = client.call("POST", f"/sessions/{self.sid}/events",
                                           {"role": "user", "content": self.next},
                                           {"Idempotency-Key": f"k{self.next}"})
                if status == 503:  # buffered queue full: the answer says to come back
                    time.sleep(0.01)
                    continue
                if status not in (200, 201):
                    return
                self.acked[self.next] = (body["first_seq"], time.monotonic())
                self.next += 1
        except (OSError, http.client.HTTPException):
            return


def retry_in_flight(server, sid, i, acked):
    """The append in flight at the kill, sent again with its key: it is added at most once."""
    for _ in range(200):
        status, body = call(server, "POST", f"/sessions/{sid}/events", {"role": "user", "content": i},
                            {"Idempotency-Key": f"k{i}"})
        if status in (200, 201):
            acked[i] = (body["first_seq"], time.monotonic())
            return
        assert status == 503, (status, body)
        time.sleep(0.01)
    raise AssertionError("the retried append kept getting 503")


def read_log(server, sid, after=0):
    events = []
    while True:
        status, page = call(server, "GET", f"/sessions/{sid}/events?after={after}&limit=1000")
        assert status == 200, page
        events += page["events"]
        if not page["events"]:
            return events, page["last_seq"]
        after = page["events"][-1]["seq"]


def check_log(server, sid, acked, verified):
    """The log after seq `verified` (checked before): seq n holds content n - 1 (no hole, no duplicate, in order),
    and every acknowledged append is there. Answers the newest seq."""
    events, last_seq = read_log(server, sid, verified)
    assert [e["seq"] for e in events] == list(range(verified + 1, verified + len(events) + 1)), "a hole"
    assert [e["content"] for e in events] == [e["seq"] - 1 for e in events], "a duplicate or a reordering"
    newest = verified + len(events)
    assert last_seq == newest
    missing = [i for i, (seq, _) in acked.items() if seq > newest]
    assert not missing, f"acknowledged appends lost: {sorted(missing)[:10]}"
    assert all(seq == i + 1 for i, (seq, _) in acked.items())
    return newest


def kill(server):
    """SIGKILL, then the pipes closed: a thousand restarts must not run out of file descriptors."""
    server.stop(signal.SIGKILL)
    server._reader.join(5)  # EOF once the process is gone
    server.proc.stdout.close()
    server.proc.stderr.close()


def crash_loop(start, kills, sqlite_file=None, crash_store=None):
    """`start()` starts the server; `crash_store()` (PostgreSQL) kills and restarts the database as well."""
    server = start()
    sids = [call(server, "POST", "/sessions", {})[1]["id"] for _ in range(WRITERS)]
    acked = [{} for _ in sids]
    nexts = [0] * WRITERS
    verified = [0] * WRITERS
    rng = random.Random(20)
    for _ in range(kills):
        writers = [Writer(server, sid, nexts[w], acked[w]) for w, sid in enumerate(sids)]
        for w in writers:
            w.start()
        # Kill at a random moment once each writer got a few answers (under load: both write all the time).
        target = [len(a) + 3 for a in acked]
        deadline = time.monotonic() + 10
        while any(len(a) < t for a, t in zip(acked, target, strict=True)) and time.monotonic() < deadline:
            time.sleep(0.002)
        time.sleep(rng.random() * 0.02)
        kill(server)
        if crash_store is not None:
            crash_store()
        for w in writers:
            w.join(10)
            assert not w.is_alive()
        server = start()
        for w, sid in enumerate(sids):
            retry_in_flight(server, sid, writers[w].next, acked[w])
            nexts[w] = writers[w].next + 1
            verified[w] = check_log(server, sid, acked[w], verified[w])
        if sqlite_file is not None:
            with sqlite3.connect(sqlite_file) as db:
                assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    for w, sid in enumerate(sids):  # the whole log once more, from the start
        assert check_log(server, sid, acked[w], 0) == nexts[w]
    server.stop()
    return sum(nexts)


def test_sqlite_sigkill_loop_loses_no_acknowledged_append(start_server, tmp_path):
    data = tmp_path / "data"

    def start():
        return start_server("--threads", "2", "--no-access-log", "--sessions", "--data-dir", str(data))

    appended = crash_loop(start, KILLS, sqlite_file=data / "sessions.db")
    assert appended >= KILLS * WRITERS * 3


def postgres_processes(cluster):
    """The postmaster's pid and its children's (the backends and helpers)."""
    with open(os.path.join(cluster.dir, "data", "postmaster.pid")) as f:
        postmaster = int(f.readline())
    pids = [postmaster]
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == postmaster:
                pids.append(int(entry))
    return pids


def gone(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_postgresql_sigkill_loop_loses_no_acknowledged_append(start_server):
    bindir = find_bindir()
    if bindir is None:
        pytest.skip("PostgreSQL's server is not installed (scripts/setup.sh installs it)")
    cluster = PgCluster(bindir).start()
    try:
        def start():
            # One statement out at a time: the writers' appends mostly go out together, in group statements
            # (one commit for several sessions), which must lose nothing either.
            return start_server("--threads", "2", "--no-access-log", "--sessions", "--store", cluster.url,
                                "--session-append-in-flight", "1")

        def crash_postgres():
            pids = postgres_processes(cluster)
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 10
            while not all(gone(p) for p in pids) and time.monotonic() < deadline:
                time.sleep(0.01)
            # A killed postmaster nobody reaps stays a zombie that its lock files would still name.
            for lock in (os.path.join(cluster.dir, "data", "postmaster.pid"), os.path.join(cluster.dir,
                                                                                         ".s.PGSQL.5432.lock")):
                if os.path.exists(lock):
                    os.remove(lock)
            cluster.start()  # crash recovery from the WAL

        appended = crash_loop(start, KILLS_PG, crash_store=crash_postgres)
        assert appended >= KILLS_PG * WRITERS * 3
    finally:
        cluster.close()


FLUSH_MS = 100
# A flush starts at most FLUSH_MS after the previous one ended and takes a moment itself: on a loaded machine an
# acknowledged append is committed within about two intervals.
LOSS_WINDOW_S = 3 * FLUSH_MS / 1000 + 0.2


def buffered_server(start_server, data, *flags):
    return start_server("--threads", "2", "--no-access-log", "--sessions", "--data-dir", str(data),
                        "--session-durability", "buffered", "--session-flush", f"{FLUSH_MS}ms", *flags)


def test_buffered_reads_its_writes_and_flushes_at_graceful_stop(start_server, tmp_path):
    data = tmp_path / "data"
    server = buffered_server(start_server, data, "--session-flush", "60s")  # nothing is written before the stop
    sid = call(server, "POST", "/sessions", {})[1]["id"]
    for i in range(5):
        assert call(server, "POST", f"/sessions/{sid}/events", {"role": "user", "content": i},
                    {"Idempotency-Key": f"k{i}"}) == (201, {"first_seq": i + 1, "last_seq": i + 1, "replayed": False})
    replay = call(server, "POST", f"/sessions/{sid}/events", {"role": "user", "content": 2}, {"Idempotency-Key": "k2"})
    assert replay == (200, {"first_seq": 3, "last_seq": 3, "replayed": True})
    events, last_seq = read_log(server, sid)
    assert ([e["content"] for e in events], last_seq) == (list(range(5)), 5)
    assert call(server, "GET", f"/sessions/{sid}/events?after=3")[1]["events"][0]["seq"] == 4
    assert call(server, "GET", f"/sessions/{sid}")[1]["last_seq"] == 5
    with sqlite3.connect(data / "sessions.db") as db:  # not written yet
        assert db.execute("SELECT COUNT(*) FROM agent_session_events").fetchone() == (0,)
    assert server.stop() == 0  # SIGTERM: the queue is written before the database closes

    again = buffered_server(start_server, data)
    events, last_seq = read_log(again, sid)
    assert ([e["content"] for e in events], last_seq) == (list(range(5)), 5)
    assert call(again, "POST", f"/sessions/{sid}/events", {"role": "user", "content": 4},
                {"Idempotency-Key": "k4"}) == (200, {"first_seq": 5, "last_seq": 5, "replayed": True})


def test_buffered_queue_full_answers_503_with_retry_after(start_server, tmp_path):
    server = buffered_server(start_server, tmp_path / "data", "--session-queue", "4")
    sid = call(server, "POST", "/sessions", {})[1]["id"]
    c = Client(server)
    c.conn.request("POST", f"/sessions/{sid}/events",
                   body=json.dumps({"events": [{"role": "user", "content": i} for i in range(5)]}).encode(),
                   headers={"Content-Type": "application/json"})
    resp = c.conn.getresponse()
    body = json.loads(resp.read())
    assert (resp.status, resp.getheader("Content-Type"), resp.getheader("Retry-After")) == (
        503, "application/problem+json", "1")
    assert "queue is full" in body["detail"]
    c.close()
    assert call(server, "POST", f"/sessions/{sid}/events", {"events": [{"role": "user", "content": 0}] * 4})[0] == 201


def test_buffered_sigkill_loses_only_the_last_flush_interval_as_a_prefix(start_server, tmp_path):
    data = tmp_path / "data"
    server = buffered_server(start_server, data)
    sids = [call(server, "POST", "/sessions", {})[1]["id"] for _ in range(WRITERS)]
    acked = [{} for _ in sids]
    nexts = [0] * WRITERS
    lost_total = 0
    for _ in range(5):
        writers = [Writer(server, sid, nexts[w], acked[w]) for w, sid in enumerate(sids)]
        for w in writers:
            w.start()
        time.sleep(0.3 + random.random() * FLUSH_MS / 1000)
        killed_at = time.monotonic()
        kill(server)
        for w in writers:
            w.join(10)
        server = buffered_server(start_server, data)
        for w, sid in enumerate(sids):
            events, last_seq = read_log(server, sid)
            # A prefix: seq n holds content n - 1, no hole, no duplicate.
            assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
            assert [e["content"] for e in events] == list(range(len(events)))
            assert last_seq == len(events)
            lost = {i: t for i, (_, t) in acked[w].items() if i >= len(events)}
            assert all(t > killed_at - LOSS_WINDOW_S for t in lost.values()), (
                f"lost appends acknowledged {killed_at - min(lost.values()):.3f} s before the kill")
            lost_total += len(lost)
            for i in lost:  # what was lost is forgotten: its key is free again
                del acked[w][i]
            nexts[w] = len(events)
    with sqlite3.connect(data / "sessions.db") as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    server.stop()
