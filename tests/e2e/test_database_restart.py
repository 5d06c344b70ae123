"""PostgreSQL restarted under load: every request in flight or arriving while the database is down gets an answer
(200, or 503 with a problem body) within its deadline, never a hang or a dropped connection, and once the database
is back the pool recovers by itself. The C++ Bookstore (examples/bookstore/bookstore.cpp) and the Python one
(examples/bookstore/app.py) through real servers and sockets."""
import os
import pathlib
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import pytest

from tests.conftest import ROOT, example_binary
from tests.e2e.helpers import bookstore_cluster

PATH = "/api/v1/books/17"


@pytest.fixture(scope="module")
def cluster():
    with bookstore_cluster() as c:
        yield c


def _get(url):
    start = time.monotonic()
    try:
        with urllib.request.urlopen(url + PATH, timeout=15) as r:
            return r.status, r.read(), time.monotonic() - start
    except urllib.error.HTTPError as e:
        return e.code, e.read(), time.monotonic() - start


def _hammer(url, stop, answers, errors):
    while not stop.is_set():
        try:
            answers.append(_get(url))
        except OSError as e:  # a refused, reset or timed-out connection: what must not happen
            errors.append(repr(e))


def _restart_under_load(cluster, url):
    assert _get(url)[0] == 200
    stop = threading.Event()
    answers, errors = [], []
    threads = [threading.Thread(target=_hammer, args=(url, stop, answers, errors)) for _ in range(6)]
    for t in threads:
        t.start()
    try:
        time.sleep(0.5)
        cluster.restart()  # pg_ctl restart -m fast: every backend is terminated
        time.sleep(1.0)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert not errors, errors[:3]
    statuses = {status for status, _, _ in answers}
    assert statuses <= {200, 503}, statuses
    assert 200 in statuses
    assert max(seconds for _, _, seconds in answers) < 10  # the acquire/connect deadlines, not a hang
    for status, body, _ in answers:
        if status == 503:
            assert b"database" in body.lower() and b"Traceback" not in body, body
    # Recovered by itself: every request succeeds again.
    deadline = time.monotonic() + 15
    while _get(url)[0] != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [_get(url)[0] for _ in range(20)] == [200] * 20


class _Server:
    """A server on a free port with its log (stderr: a line per failed request while the database is down) in a
    file, so that no pipe fills up; ready once /health answers."""

    def __init__(self, argv, env, log_path):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        with open(log_path, "wb") as log:  # the child keeps its own descriptor
            self.proc = subprocess.Popen([*argv, "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                                         env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=log)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1):
                    return
            except OSError:
                assert self.proc.poll() is None, f"{argv} did not start: {pathlib.Path(log_path).read_text()}"
                time.sleep(0.1)
        pytest.fail(f"{argv} did not answer /health in 30 s")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=15)


def test_cpp_app_survives_a_restart_under_load(cluster, tmp_path):
    server = _Server([example_binary("bookstore"), "--threads", "1", "--no-access-log", "--database-url",
                      cluster.url, "--database-acquire-timeout", "2s", "--database-connect-timeout", "2s"], {},
                     tmp_path / "log")
    try:
        _restart_under_load(cluster, server.url)
    finally:
        server.stop()


def test_python_app_survives_a_restart_under_load(cluster, tmp_path):
    server = _Server([sys.executable, "-m", "slipstream", "run", "examples.bookstore.app:app", "--threads", "1"],
                     {"BOOKSTORE_DATABASE_URL": cluster.url}, tmp_path / "log")
    try:
        _restart_under_load(cluster, server.url)
    finally:
        server.stop()
