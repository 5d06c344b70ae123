"""The workloads of BENCHMARKING.md: request, expected bytes, load generator and reference contender."""
from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass, field

from . import bookstore

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
APPS_DIR = os.path.join(BENCH_DIR, "apps")
LUA_DIR = os.path.join(BENCH_DIR, "lua")


def _load_payloads():
    spec = importlib.util.spec_from_file_location("bench_payloads", os.path.join(APPS_DIR, "payloads.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


payloads = _load_payloads()


@dataclass(frozen=True)
class Probe:
    """One pre-flight request and what must come back (expected_body None: body not compared)."""
    method: str
    path: str
    body: bytes | None
    status: int
    expected_body: bytes | None
    content_type: str | None = payloads.CONTENT_TYPE
    # The bytes are not known in advance (they come from the database): the first contender to answer in the run
    # sets them for every later start (harness/preflight.py); the body must start with body_prefix.
    expected_from_run: bool = False
    body_prefix: bytes | None = None


@dataclass(frozen=True)
class Workload:
    name: str
    description: str
    path: str                       # the URL path wrk/h2load drives
    load: str                       # "wrk", "wrk-pipeline", "h2load", "ws" (ws_load) or "paced" (http_paced)
    reference: str                  # contender whose same-round throughput is the ratio's denominator
    probes: tuple[Probe, ...]
    script: str | None = None       # wrk Lua script in bench/lua/
    script_args: tuple[str, ...] = ()  # names of body files (written to the run's work dir) or literals
    body_files: dict[str, bytes] = field(default_factory=dict)
    idle_connections: bool = False  # hold the idle connections while the load runs
    latency_meaningful: bool = True
    tls: bool = False               # served by a TLS start of the contender (harness certificate, ALPN h2/http/1.1)
    cleartext: str | None = None    # the same load without TLS: the report's "TLS cost" compares the two
    unit: str = "req"               # what the throughput counts: "req" (responses) or "msg" (WebSocket echoes)
    app: str = "bench"              # which app serves it: "bench" (bench/apps, bench_app) or "bookstore"
    database: bool = False          # needs the suite's PostgreSQL (harness/database.py)


HELLO_PROBE = Probe("GET", "/hello", None, 200, payloads.HELLO)


def _bookstore(name: str, description: str, body_prefix: bytes) -> Workload:
    """A GET of examples/bookstore against the suite's PostgreSQL, compared with FastAPI + asyncpg."""
    path = bookstore.PATHS[name]
    return Workload(name, description, path, "wrk", bookstore.REFERENCE,
                    (Probe("GET", path, None, 200, None, expected_from_run=True, body_prefix=body_prefix),),
                    app="bookstore", database=True)

WORKLOADS: dict[str, Workload] = {w.name: w for w in [
    Workload("hello", "GET /hello -> {\"message\":\"hello\"}", "/hello", "wrk", "nginx", (HELLO_PROBE,)),
    Workload("paced", "hello at a fixed rate (20,000 req/s by default) spread over the connections, open loop "
             "(bench/tools/http_paced): latency from each request's scheduled time, below every server's capacity",
             "/hello", "paced", "nginx", (HELLO_PROBE,)),
    Workload("pipelined", "hello with 16 requests pipelined per write (wrk + pipeline.lua)", "/hello",
             "wrk-pipeline", "nginx", (HELLO_PROBE,), script="pipeline.lua", script_args=("16",),
             latency_meaningful=False),
    Workload("h2", "hello over cleartext HTTP/2, 16 streams per connection (h2load)", "/hello", "h2load",
             "nginx", (HELLO_PROBE,)),
    Workload("echo", "POST /echo, JSON parsed and re-serialized", "/echo", "wrk", "fastapi",
             (Probe("POST", "/echo", payloads.ECHO_BODY, 200, payloads.ECHO_BODY),),
             script="post.lua", script_args=("echo.json",), body_files={"echo.json": payloads.ECHO_BODY}),
    Workload("validated", "POST /items validated against a pydantic model, 10% invalid (422)", "/items",
             "wrk", "fastapi",
             (Probe("POST", "/items", payloads.VALID_ITEM, 200, payloads.VALID_ITEM),
              Probe("POST", "/items", payloads.INVALID_ITEM, payloads.INVALID_STATUS, None, None)),
             script="validated.lua", script_args=("valid.json", "invalid.json"),
             body_files={"valid.json": payloads.VALID_ITEM, "invalid.json": payloads.INVALID_ITEM}),
    Workload("params", "GET /users/{id}/items?limit=10&offset=20, typed path and query parameters",
             payloads.PARAMS_PATH, "wrk", "fastapi",
             (Probe("GET", payloads.PARAMS_PATH, None, 200, payloads.PARAMS_RESPONSE),)),
    Workload("large", "GET /large -> a 64 KiB JSON document (pre-encoded: measures the write path)", "/large",
             "wrk", "nginx", (Probe("GET", "/large", None, 200, payloads.LARGE),)),
    Workload("idle", "hello while 10,000 idle keep-alive connections are held", "/hello", "wrk", "nginx",
             (HELLO_PROBE,), idle_connections=True),
    Workload("h2tls", "hello over HTTP/2 with TLS (ALPN h2, P-256 certificate), 16 streams per connection (h2load)",
             "/hello", "h2load", "nginx", (HELLO_PROBE,), tls=True, cleartext="h2"),
    Workload("tls", "hello over HTTP/1.1 with TLS, keep-alive (wrk over https)", "/hello", "wrk", "nginx",
             (HELLO_PROBE,), tls=True, cleartext="hello"),
    Workload("ws", "WebSocket echo: 32-byte masked text messages, closed loop (bench/tools/ws_load)", "/ws", "ws",
             "socketify", (), unit="msg"),
    # The seed's facts (examples/bookstore/README.md): 75 books, 65 published, 5 about Python, 205 reviews.
    _bookstore("bk-stats", "Bookstore GET /api/v1/books/stats: COUNT with FILTER and AVG over books and reviews",
               b'{"total_books":75,"published_books":65,'),
    _bookstore("bk-list", "Bookstore GET /api/v1/books/?page=2: COUNT and a page of 10 books joined with author "
               "and category", b'{"total":65,"page":2,"page_size":10,"items":[{"id":'),
    _bookstore("bk-search", "Bookstore GET /api/v1/books/?search=python: full-text search (GIN), COUNT and a page",
               b'{"total":5,"page":1,"page_size":10,"items":[{"id":'),
    _bookstore("bk-book", "Bookstore GET /api/v1/books/17: one book with author, category, review COUNT and AVG; "
               "ETag", b'{"id":17,'),
    _bookstore("bk-reviews", f"Bookstore GET /api/v1/reviews/?cursor=<signed, after id {bookstore.REVIEWS_AFTER}>: "
               "keyset page 10 of 21 (HMAC-checked cursor)", b'{"items":[{"id":%d,' % (bookstore.REVIEWS_AFTER + 1)),
]}

BOOKSTORE_WORKLOADS = [name for name, w in WORKLOADS.items() if w.app == "bookstore"]
DEFAULT_ORDER = ["hello", "paced", "pipelined", "h2", "echo", "validated", "params", "large", "idle", "h2tls", "tls", "ws",
                 *BOOKSTORE_WORKLOADS]
QUICK_WORKLOADS = ["hello", "echo"]


def select(names: list[str] | None) -> list[Workload]:
    if not names:
        return [WORKLOADS[n] for n in DEFAULT_ORDER]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        raise ValueError(f"unknown workload(s): {', '.join(unknown)}; known: {', '.join(DEFAULT_ORDER)}")
    return [WORKLOADS[n] for n in names]


def write_body_files(workload: Workload, directory: str) -> list[str]:
    """Writes the workload's request bodies and returns the script arguments (body names become paths)."""
    args = []
    for arg in workload.script_args:
        if arg in workload.body_files:
            path = os.path.join(directory, arg)
            with open(path, "wb") as f:
                f.write(workload.body_files[arg])
            args.append(path)
        else:
            args.append(arg)
    return args
