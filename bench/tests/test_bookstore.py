"""The Bookstore workloads and contenders: the signed review cursor, the five GETs, which app serves what, how the
C++ app and the FastAPI + asyncpg peer are launched, and the pre-flight's bytes learned from the first answer."""
import asyncio
import contextlib
import hashlib
import hmac
import importlib.util
import json
import os
import sys
import types

import pytest
from harness import bookstore, contenders, preflight, workloads
from harness.contenders import LaunchContext

BK = ["bk-stats", "bk-list", "bk-search", "bk-book", "bk-reviews"]
URL = "postgresql://slipstream@/postgres?host=/tmp/ss-pg-x&port=5432"


def test_the_review_cursor_is_the_apps_own_signature_of_id_90():
    secret = (os.environ.get("BOOKSTORE_CURSOR_SECRET") or "bookstore-demo").encode()
    mac = hmac.new(secret, b"90", hashlib.sha256).hexdigest()[:16]
    assert bookstore.review_cursor(90) == f"90.{mac}"
    assert bookstore.shared_module().open_cursor(bookstore.review_cursor(90)) == 90
    assert bookstore.PATHS["bk-reviews"] == f"/api/v1/reviews/?cursor=90.{mac}"


def test_the_five_gets_against_fastapi_asyncpg():
    assert workloads.BOOKSTORE_WORKLOADS == BK
    assert workloads.DEFAULT_ORDER[-5:] == BK
    paths = {name: workloads.WORKLOADS[name].path for name in BK}
    assert paths == {"bk-stats": "/api/v1/books/stats", "bk-list": "/api/v1/books/?page=2",
                     "bk-search": "/api/v1/books/?search=python", "bk-book": "/api/v1/books/17",
                     "bk-reviews": "/api/v1/reviews/?cursor=" + bookstore.review_cursor(90)}
    for name in BK:
        w = workloads.WORKLOADS[name]
        assert (w.load, w.reference, w.app, w.database, w.tls) == ("wrk", "fastapi-asyncpg", "bookstore", True, False)
        (probe,) = w.probes
        assert (probe.method, probe.path, probe.status, probe.expected_body, probe.expected_from_run) == \
            ("GET", w.path, 200, None, True)
        assert probe.content_type == "application/json"
    assert workloads.WORKLOADS["bk-reviews"].probes[0].body_prefix == b'{"items":[{"id":91,'
    assert not any(w.database for name, w in workloads.WORKLOADS.items() if name not in BK)


def _serves(c):
    return {w for w in workloads.WORKLOADS if c.na_reason(w, 65536, 10000, 64) is None}


def test_bookstore_contenders_serve_the_bookstore_only_and_the_rest_never_do():
    for name in ("slipstream-cpp-bookstore", "slipstream-py-bookstore", "fastapi-asyncpg"):
        c = contenders.BY_NAME[name]
        assert (_serves(c), c.app, c.ready_path, c.workers) == (set(BK), "bookstore", "/health", 1)
        assert c.na_reason("hello", 65536, 10000, 64) == (
            "serves the Bookstore (examples/bookstore, on PostgreSQL); hello needs the bench app (bench/apps, "
            "examples/bench_app.cpp)")
    for c in contenders.CONTENDERS:
        if c.app == "bench":
            assert not _serves(c) & set(BK), c.name
    assert contenders.BY_NAME["nginx"].na_reason("bk-stats", 65536, 10000, 64) == (
        "serves the bench app (bench/apps, examples/bench_app.cpp); bk-stats needs the Bookstore "
        "(examples/bookstore, on PostgreSQL)")


def _ctx(tmp_path, url=URL):
    return LaunchContext(port=1234, h2_port=1235, workdir=str(tmp_path), fd_limit=20000, database_url=url)


def test_the_cpp_bookstore_runs_one_thread_on_the_suites_database(tmp_path):
    c = contenders.BY_NAME["slipstream-cpp-bookstore"]
    launch = c.build(c, _ctx(tmp_path))
    assert launch.argv == [contenders.BOOKSTORE_CPP, "--host", "127.0.0.1", "--port", "1234", "--threads", "1",
                           "--max-connections", "20000", "--no-access-log", "--database-url", URL]
    assert launch.env["BOOKSTORE_DATABASE_URL"] == URL
    assert f"file:{contenders.BOOKSTORE_CPP}" in c.requires and "postgres:server" in c.requires


def test_fastapi_asyncpg_runs_like_the_fastapi_contender_on_the_wrapped_peer(tmp_path):
    c = contenders.BY_NAME["fastapi-asyncpg"]
    launch = c.build(c, _ctx(tmp_path))
    plain = contenders.BY_NAME["fastapi"]
    expected = plain.build(plain, _ctx(tmp_path)).argv
    expected[expected.index("fastapi_app:app")] = "bookstore_fastapi:app"
    assert launch.argv == expected
    assert launch.argv[launch.argv.index("--workers") + 1] == "1"
    assert launch.env["BOOKSTORE_DATABASE_URL"] == URL
    assert launch.env["PYTHONPATH"].split(os.pathsep)[0] == contenders.REPO_DIR
    assert c.expects == {"loop": "uvloop.", "http": "httptools", "native": "uvloop,httptools,pydantic_core,asyncpg"}
    assert c.app_path == "examples/bookstore/fastapi_app.py"


def test_the_slipstream_python_builder_is_ready_for_examples_bookstore_app(tmp_path):
    launch = contenders._bookstore_slipstream_py(None, _ctx(tmp_path))
    assert launch.argv[1:] == ["-m", "slipstream", "run", "bookstore_slipstream:app", "--app-dir",
                               workloads.APPS_DIR, "--host", "127.0.0.1", "--port", "1234", "--workers", "1",
                               "--threads", "1"]
    assert launch.env["BOOKSTORE_DATABASE_URL"] == URL


def test_a_bookstore_start_without_a_database_is_refused(tmp_path):
    c = contenders.BY_NAME["slipstream-cpp-bookstore"]
    with pytest.raises(ValueError, match="needs the suite's database"):
        c.build(c, _ctx(tmp_path, url=None))


def test_missing_postgres_and_missing_paths_skip_with_a_reason(monkeypatch):
    c = contenders.Contender("x", "python", "d", "fastapi_app.py", ("postgres:server",), lambda c, ctx: None)
    monkeypatch.setattr(contenders.database, "find_bindir", lambda: None)
    assert c.missing() == "PostgreSQL's server is not installed (scripts/setup.sh installs it)"
    monkeypatch.setattr(contenders.database, "find_bindir", lambda: "/usr/lib/postgresql/15/bin")
    assert c.missing() is None
    app = contenders.Contender("y", "python", "d", "fastapi_app.py", ("path:examples/bookstore/nope.py",),
                               lambda c, ctx: None)
    assert app.missing() == "examples/bookstore/nope.py does not exist"


PROBE = workloads.WORKLOADS["bk-stats"].probes[0]
STATS = b'{"total_books":75,"published_books":65,"featured_books":10}'


def test_the_first_passing_answer_sets_the_bytes_the_others_must_send():
    run_bytes = preflight.RunBytes()
    failure, answer = run_bytes.check(PROBE, "a", 200, "application/json", STATS)
    assert (failure, answer) == (None, preflight.Answer("a", STATS))
    assert run_bytes.check(PROBE, "b", 200, "application/json; charset=utf-8", STATS) == (None, None)
    failure, answer = run_bytes.check(PROBE, "b", 200, "application/json", STATS.replace(b"10", b"11"))
    assert answer is None
    assert failure.startswith("GET /api/v1/books/stats: body differs (")
    assert failure.endswith("(expected: what a answered first in this run)")


def test_an_answer_that_fails_its_own_checks_sets_nothing():
    run_bytes = preflight.RunBytes()
    assert run_bytes.check(PROBE, "a", 503, "application/json", b"{}")[0] == \
        "GET /api/v1/books/stats: status 503, expected 200"
    assert run_bytes.check(PROBE, "a", 200, "application/json", b'{"total_books":0}')[0] == \
        "GET /api/v1/books/stats: body starts b'{\"total_books\":0}', expected " \
        "b'{\"total_books\":75,\"published_books\":65,'"
    assert run_bytes.answers == {}
    assert run_bytes.check(PROBE, "b", 200, "application/json", STATS) == (None, preflight.Answer("b", STATS))


def test_fixed_probes_ignore_the_run_bytes():
    hello = workloads.HELLO_PROBE
    run_bytes = preflight.RunBytes()
    assert run_bytes.check(hello, "a", 200, "application/json", workloads.payloads.HELLO) == (None, None)
    assert run_bytes.check(hello, "a", 200, "application/json", b"{}")[0].startswith("GET /hello: body differs")
    assert run_bytes.answers == {}


def _load_app(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _stub(monkeypatch, module_name, **attrs):
    for parent in ("examples", "examples.bookstore"):
        monkeypatch.setitem(sys.modules, parent, types.ModuleType(parent))
    monkeypatch.setitem(sys.modules, module_name, types.SimpleNamespace(**attrs))
    monkeypatch.syspath_prepend(workloads.APPS_DIR)


def test_the_fastapi_wrapper_reports_once_the_peers_lifespan_has_opened_the_pool(tmp_path, monkeypatch):
    events = []

    @contextlib.asynccontextmanager
    async def lifespan(app):
        events.append("pool opened")
        yield {"pool": 1}
        events.append("pool closed")

    app = types.SimpleNamespace(router=types.SimpleNamespace(lifespan_context=lifespan))
    _stub(monkeypatch, "examples.bookstore.fastapi_app", app=app)
    monkeypatch.setenv("BENCH_RUNTIME_DIR", str(tmp_path))
    wrapper = _load_app(os.path.join(workloads.APPS_DIR, "bookstore_fastapi.py"), "bookstore_fastapi_under_test")
    assert wrapper.app is app

    async def serve():
        async with app.router.lifespan_context(app) as state:
            events.append(sorted(os.listdir(tmp_path)))
            return state

    assert asyncio.run(serve()) == {"pool": 1}
    assert events == ["pool opened", [f"runtime-{os.getpid()}.json"], "pool closed"]
    with open(tmp_path / f"runtime-{os.getpid()}.json") as f:
        assert f.read().startswith("{")


def test_the_slipstream_wrapper_re_exports_the_app_and_reports(tmp_path, monkeypatch):
    app = object()
    _stub(monkeypatch, "examples.bookstore.app", app=app)
    monkeypatch.setenv("BENCH_RUNTIME_DIR", str(tmp_path))
    wrapper = _load_app(os.path.join(workloads.APPS_DIR, "bookstore_slipstream.py"), "bookstore_slipstream_under_test")
    assert wrapper.app is app
    with open(tmp_path / f"runtime-{os.getpid()}.json") as f:
        assert json.load(f)["pid"] == os.getpid()
