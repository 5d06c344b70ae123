"""A client that disconnects mid-query cancels its query on a real PostgreSQL: the C++ path (the Bookstore app's
route, Responder::on_cancel -> QueryCancel) and the Python async path (App(cancel_on_disconnect=True): the task is
cancelled, so is its statement). The test closes its socket while the query runs, then asserts that the server's
backend no longer runs it (pg_stat_activity) within a few seconds, and that the next request is answered."""
import os
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from tests.conftest import ROOT, Server, example_binary
from tests.e2e.helpers import bookstore_cluster


@pytest.fixture(scope="module")
def cluster():
    with bookstore_cluster("CREATE TABLE disconnect_log (what text)") as c:
        yield c


def _count(cluster, where):
    return int(cluster.psql(f"SELECT count(*) FROM pg_stat_activity WHERE {where}").strip())


def _until(predicate, seconds, what):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def _start_request(port, path):
    sock = socket.create_connection(("127.0.0.1", port), timeout=10)
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\n\r\n".encode())
    return sock


def _get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read()


def test_cpp_route_cancels_its_query_when_the_client_goes(cluster):
    # One connection in the pool: the next request needs the one the cancelled query held.
    server = Server([example_binary("bookstore"), "--host", "127.0.0.1", "--port", "0", "--threads", "1",
                     "--database-url", cluster.url, "--database-pool-max", "1"])
    # The route's query waits on a lock another session holds (as pg_sleep would keep it running).
    locker = subprocess.Popen(
        [os.path.join(cluster.bindir, "psql"), "-X", "-q", "-h", cluster.dir, "-p", "5432", "-U", "slipstream",
         "-d", "postgres", "-c", "BEGIN; LOCK TABLE books IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120)"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    waiting = "state = 'active' AND wait_event_type = 'Lock' AND query LIKE '%FROM books%'"
    try:
        _until(lambda: _count(cluster, "query LIKE 'BEGIN; LOCK TABLE books%' AND state = 'active'") == 1, 20,
               "the lock was never taken")
        sock = _start_request(server.port, "/api/v1/books/stats")
        _until(lambda: _count(cluster, waiting) == 1, 20, "the route's query never started")
        sock.close()
        # Cancelled on the server while the lock is still held: nothing waits on it any more.
        _until(lambda: _count(cluster, waiting) == 0, 5, "the query still runs after the client left")
        cluster.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                     "WHERE query LIKE 'BEGIN; LOCK TABLE books%'")
        locker.wait(timeout=10)
        status, body = _get(f"http://127.0.0.1:{server.port}/api/v1/books/stats")
        assert status == 200 and b'"total_books":75' in body
    finally:
        locker.kill()
        server.stop()


class PythonServer:
    def __init__(self, url):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "slipstream", "run", "tests.e2e.db_disconnect_app:app", "--threads", "1",
             "--host", "127.0.0.1", "--port", str(self.port)],
            cwd=ROOT, env={**os.environ, "DB_DISCONNECT_URL": url}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while True:
            try:
                assert _get(self.url("/health")) == (200, b'"ok"')
                return
            except OSError:
                if self.proc.poll() is not None:
                    pytest.fail(f"the app did not start: {self.proc.stderr.read().decode()}")
                assert time.monotonic() < deadline, "the app did not answer /health in 30 s"
                time.sleep(0.1)

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self):
        self.proc.terminate()
        assert self.proc.wait(timeout=15) == 0


@pytest.fixture(scope="module")
def python_server(cluster):
    server = PythonServer(cluster.url)
    yield server
    server.stop()


@pytest.mark.parametrize("path, sql", [
    ("/sleep", "SELECT pg_sleep(30) /* e2e disconnect */"),
    ("/sleep-in-transaction", "SELECT pg_sleep(30) /* e2e disconnect in transaction */"),
])
def test_python_async_route_cancels_its_query_when_the_client_goes(cluster, python_server, path, sql):
    running = f"state = 'active' AND query = '{sql}'"
    sock = _start_request(python_server.port, path)
    _until(lambda: _count(cluster, running) == 1, 20, "the route's query never started")
    sock.close()
    _until(lambda: _count(cluster, running) == 0, 5, "the query still runs after the client left")
    assert _get(python_server.url("/health")) == (200, b'"ok"')
    # The transaction was rolled back with the cancelled task: its insert is gone.
    assert cluster.psql("SELECT count(*) FROM disconnect_log").strip() == "0"
