"""The Bookstore workload end to end on a real PostgreSQL: the C++ app (examples/bookstore/bookstore.cpp) and the
Slipstream Python app (examples/bookstore/app.py) answer every endpoint with the same status, bytes, ETag and
Cache-Control as the FastAPI + asyncpg peer (examples/bookstore/fastapi_app.py), and /readyz follows the database."""
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from tests.conftest import ROOT, Server, example_binary
from tests.e2e.helpers import bookstore_cluster


@pytest.fixture(scope="module")
def cluster():
    with bookstore_cluster() as c:
        yield c


@pytest.fixture(scope="module")
def ours(cluster):
    server = Server([example_binary("bookstore"), "--host", "127.0.0.1", "--port", "0", "--threads", "1",
                     "--database-url", cluster.url, "--database-acquire-timeout", "1s",
                     "--database-connect-timeout", "1s"])
    yield server
    server.stop()


class Process:
    """A server started on a free port, ready once its /health answers."""

    def __init__(self, argv, env):
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.proc = subprocess.Popen([*argv, "--host", "127.0.0.1", "--port", str(port)], cwd=ROOT,
                                     env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(self.url + "/health", timeout=1):
                    return
            except OSError:
                if self.proc.poll() is not None:
                    pytest.fail(f"{argv} did not start: {self.proc.stderr.read().decode()}")
                time.sleep(0.1)
        pytest.fail(f"{argv} did not answer /health in 30 s")

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=15)


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ours_python(cluster):
    server = Process([sys.executable, "-m", "slipstream", "run", "examples.bookstore.app:app", "--threads", "1"],
                     {"BOOKSTORE_DATABASE_URL": cluster.url})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def peer(cluster):
    server = Process([sys.executable, "-m", "uvicorn", "examples.bookstore.fastapi_app:app", "--log-level", "warning"],
                     {"BOOKSTORE_DATABASE_URL": cluster.url})
    yield server.url
    server.stop()


def get(base, path, headers=None):
    request = urllib.request.Request(base + path, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


PATHS = [
    "/api/v1/books/stats",
    "/api/v1/books/",
    "/api/v1/books/?page=2",
    "/api/v1/books/?page=7",
    "/api/v1/books/?page=8",
    "/api/v1/books/?search=python",
    "/api/v1/books/?search=python%20-practice",
    "/api/v1/books/?search=nothing-matches-this",
    "/api/v1/books/1",
    "/api/v1/books/17",
    "/api/v1/books/65",
    "/api/v1/books/66",
    "/api/v1/books/9999",
    "/api/v1/reviews/",
]


@pytest.mark.parametrize("path", PATHS)
def test_every_endpoint_answers_as_fastapi_with_asyncpg(ours, ours_python, peer, path):
    peer_status, peer_headers, peer_body = get(peer, path)
    assert peer_status in (200, 404)
    for server in (ours, ours_python):
        status, headers, body = get(server.url, path)
        assert (status, body) == (peer_status, peer_body)
        for field in ("ETag", "Cache-Control"):
            assert headers.get(field) == peer_headers.get(field)


def test_the_seed_is_the_workload_described(ours):
    _, _, body = get(ours.url, "/api/v1/books/stats")
    assert body.startswith(b'{"total_books":75,"published_books":65,"featured_books":10,')
    assert b'"total_reviews":205' in body
    _, _, found = get(ours.url, "/api/v1/books/?search=python")
    assert found.startswith(b'{"total":5,')


def test_a_matching_etag_is_answered_304(ours, ours_python, peer):
    _, headers, _ = get(ours.url, "/api/v1/books/17")
    etag = headers["ETag"]
    for base in (ours.url, ours_python.url, peer):
        status, again, body = get(base, "/api/v1/books/17", {"If-None-Match": f'W/"other", {etag}'})
        assert (status, body, again["ETag"]) == (304, b"", etag)
    assert get(ours.url, "/api/v1/books/17", {"If-None-Match": '"stale"'})[0] == 200


def test_review_pages_follow_signed_cursors_and_refuse_forged_ones(ours, ours_python, peer):
    import json

    cursor, seen, pages = None, [], 0
    while True:
        path = "/api/v1/reviews/" + (f"?cursor={cursor}" if cursor else "")
        status, _, body = get(ours.url, path)
        assert (status, body) == get(peer, path)[::2] == get(ours_python.url, path)[::2]
        page = json.loads(body)
        seen += [item["id"] for item in page["items"]]
        pages += 1
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert seen == list(range(1, 206)) and pages == 21
    for forged in ("90.0000000000000000", "abc", "-1.x", "91" + cursor_of(ours)[2:]):
        status, _, body = get(ours.url, f"/api/v1/reviews/?cursor={forged}")
        assert (status, body) == (400, b'{"detail":"invalid cursor"}')


def cursor_of(server):
    import json

    return json.loads(get(server.url, "/api/v1/reviews/")[2])["next_cursor"]


def test_parameters_are_validated_before_the_database(ours):
    for path in ("/api/v1/books/?page=0", "/api/v1/books/?page=x", "/api/v1/books/abc",
                 "/api/v1/books/?search=" + "a" * 101):
        assert get(ours.url, path)[0] == 422


def test_readyz_follows_the_database_and_no_request_hangs_while_it_is_down(cluster, ours):
    assert get(ours.url, "/readyz")[0] == 200
    cluster.stop()
    try:
        start = time.monotonic()
        status, _, body = get(ours.url, "/api/v1/books/17")
        assert (status, body) == (503, b'{"detail":"database unavailable"}')
        assert time.monotonic() - start < 5
        deadline = time.monotonic() + 10
        while get(ours.url, "/readyz")[0] != 503 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert get(ours.url, "/readyz")[0] == 503
    finally:
        cluster.start()
    deadline = time.monotonic() + 15
    while get(ours.url, "/readyz")[0] != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert get(ours.url, "/readyz")[0] == 200
    assert get(ours.url, "/api/v1/books/17")[0] == 200
