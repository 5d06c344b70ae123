"""The contenders: how each is found, launched and versioned, and which workloads it can serve."""
from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from string import Template

from . import database
from .workloads import APPS_DIR, BENCH_DIR, WORKLOADS, payloads

REPO_DIR = os.path.dirname(BENCH_DIR)
# The C++ build folder: SLIPSTREAM_BUILD_DIR (as tests/conftest.py honours it) or build/.
_BUILD_EXAMPLES = os.path.join(REPO_DIR, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"), "examples")
SLIPSTREAM_CPP = os.path.join(_BUILD_EXAMPLES, "bench_app")
BOOKSTORE_CPP = os.path.join(_BUILD_EXAMPLES, "bookstore")
HOST = "127.0.0.1"
# What each app serves, for the n/a reason of a workload served by another app (Workload.app).
APPS = {"bench": "the bench app (bench/apps, examples/bench_app.cpp)",
        "bookstore": "the Bookstore (examples/bookstore, on PostgreSQL)"}


@dataclass
class LaunchContext:
    port: int
    h2_port: int
    workdir: str    # per-start scratch directory (rendered configs, static files, logs)
    fd_limit: int
    tls_cert: str | None = None  # set: start the contender with TLS on `port` (ALPN h2 and http/1.1)
    tls_key: str | None = None
    database_url: str | None = None  # the suite's PostgreSQL, for the database workloads' contenders

    @property
    def tls(self) -> bool:
        return self.tls_cert is not None


@dataclass
class Launch:
    argv: list[str]
    cwd: str
    env: dict[str, str]
    h2_port: int | None = None  # where h2load connects; None: same port as HTTP/1.1


@dataclass
class Contender:
    name: str
    kind: str                   # "static", "python" or "slipstream"
    description: str            # server, interface, handler style
    app_file: str               # under bench/apps/
    requires: tuple[str, ...]   # "bin:<executable>", "module:<python module>" or "file:<path>"
    build: Callable[[Contender, LaunchContext], Launch]
    versions: tuple[str, ...] = ()   # "dist:<pip distribution>" or a command line
    unsupported: dict[str, str] = field(default_factory=dict)  # workload -> reason ("n/a")
    stop_signal: int = signal.SIGTERM
    workers: int = 1                 # server processes; more than 1 gets as many CPUs (procs.CpuLayout)
    baseline: str | None = None      # the 1-worker contender a multi-worker one is compared with
    # Python contenders: what their runtime report (apps/runtime_report.py) must say, fact -> required prefix
    # ("native": packages whose shared objects must be mapped); None: no report (static and C++ servers).
    expects: dict[str, str] | None = None
    app: str = "bench"               # the app it serves (APPS); other apps' workloads are n/a
    ready_path: str = "/hello"       # polled until the server answers after its start

    @property
    def app_path(self) -> str:
        """The contender's file, relative to the repository root."""
        return self.app_file if "/" in self.app_file else f"bench/apps/{self.app_file}"

    def missing(self) -> str | None:
        """Why this contender cannot run here, or None when it can."""
        for need in self.requires:
            kind, _, what = need.partition(":")
            if kind == "bin" and shutil.which(what) is None:
                return f"`{what}` not installed (run bench/setup.sh)"
            if kind == "module" and importlib.util.find_spec(what) is None:
                return f"Python module `{what}` not importable"
            if kind == "file" and not os.access(what, os.X_OK):
                return f"{os.path.relpath(what, REPO_DIR)} not built"
            if kind == "path" and not os.path.exists(os.path.join(REPO_DIR, what)):
                return f"{what} does not exist"
            if kind == "postgres" and database.find_bindir() is None:
                return "PostgreSQL's server is not installed (scripts/setup.sh installs it)"
        return None

    def na_reason(self, workload: str, ctx_fd_limit: int, idle_connections: int, connections: int) -> str | None:
        if workload in self.unsupported:
            return self.unsupported[workload]
        served_by = WORKLOADS[workload].app if workload in WORKLOADS else "bench"
        if served_by != self.app:
            return f"serves {APPS[self.app]}; {workload} needs {APPS[served_by]}"
        if workload == "idle" and self.name == "lighttpd" and ctx_fd_limit // 2 < idle_connections + connections:
            return (f"lighttpd allows at most RLIMIT_NOFILE/2 = {ctx_fd_limit // 2} connections, "
                    f"fewer than {idle_connections}+{connections}")
        return None

    def cores_reason(self, available_cpus: int) -> str | None:
        """Why a multi-worker contender cannot be measured on this many CPUs, or None."""
        needed = 2 * self.workers
        if self.workers <= 1 or available_cpus >= needed:
            return None
        return (f"not measurable here: {self.workers} workers need {self.workers} CPUs for the server and "
                f"{self.workers} for the load generator ({needed}), this machine has {available_cpus}")

    def version(self) -> str:
        parts = []
        for item in self.versions:
            if item.startswith("dist:"):
                try:
                    parts.append(f"{item[5:]} {importlib.metadata.version(item[5:])}")
                except importlib.metadata.PackageNotFoundError:
                    parts.append(f"{item[5:]} (not installed)")
            else:
                try:
                    out = subprocess.run(item.split(), check=False, capture_output=True, text=True, timeout=10)
                    parts.append((out.stdout + out.stderr).strip().splitlines()[0])
                except (OSError, IndexError, subprocess.TimeoutExpired):
                    parts.append(f"{item.split()[0]} (unknown version)")
        return ", ".join(parts)


def _render(template_name: str, ctx: LaunchContext, **extra) -> str:
    """Renders bench/apps/<template> into the work dir with the fixed bytes it serves."""
    www = os.path.join(ctx.workdir, "www")
    os.makedirs(www, exist_ok=True)
    for name, body in (("hello.json", payloads.HELLO), ("large.json", payloads.LARGE)):
        with open(os.path.join(www, name), "wb") as f:
            f.write(body)
    with open(os.path.join(APPS_DIR, template_name)) as f:
        text = Template(f.read()).substitute(workdir=ctx.workdir, port=ctx.port, h2_port=ctx.h2_port,
                                             max_fds=ctx.fd_limit, max_conns=ctx.fd_limit // 2, **extra)
    path = os.path.join(ctx.workdir, template_name)
    with open(path, "w") as f:
        f.write(text)
    return path


def runtime_dir(ctx: LaunchContext) -> str:
    """Where a Python contender's processes write their runtime reports (apps/runtime_report.py)."""
    path = os.path.join(ctx.workdir, "runtime")
    os.makedirs(path, exist_ok=True)
    return path


def _env(ctx: LaunchContext) -> dict[str, str]:
    env = dict(os.environ)
    # The connection cap every server gets (nginx: worker_connections): room for the idle workload's connections.
    env.update(BENCH_HOST=HOST, BENCH_PORT=str(ctx.port), BENCH_MAX_CONNECTIONS=str(ctx.fd_limit),
               PYTHONUNBUFFERED="1")
    env["BENCH_RUNTIME_DIR"] = runtime_dir(ctx)
    for name in ("BENCH_TLS_CERT", "BENCH_TLS_KEY"):
        env.pop(name, None)
    if ctx.tls:
        env.update(BENCH_TLS_CERT=ctx.tls_cert, BENCH_TLS_KEY=ctx.tls_key)
    return env


def _nginx(c: Contender, ctx: LaunchContext) -> Launch:
    user_line = "user root;" if os.geteuid() == 0 else ""
    if ctx.tls:  # one TLS port: ALPN picks h2 (h2load) or http/1.1 (wrk)
        conf = _render("nginx_tls.conf", ctx, user_line=user_line, tls_cert=ctx.tls_cert, tls_key=ctx.tls_key)
        return Launch(["nginx", "-p", ctx.workdir, "-c", conf, "-e", "stderr"], ctx.workdir, _env(ctx))
    conf = _render("nginx.conf", ctx, user_line=user_line)
    return Launch(["nginx", "-p", ctx.workdir, "-c", conf, "-e", "stderr"], ctx.workdir, _env(ctx), ctx.h2_port)


def _h2o(c: Contender, ctx: LaunchContext) -> Launch:
    user_line = "user: root" if os.geteuid() == 0 else ""
    conf = _render("h2o_tls.conf", ctx, user_line=user_line, tls_cert=ctx.tls_cert, tls_key=ctx.tls_key) \
        if ctx.tls else _render("h2o.conf", ctx, user_line=user_line)
    return Launch(["h2o", "-c", conf], ctx.workdir, _env(ctx))


def _lighttpd(c: Contender, ctx: LaunchContext) -> Launch:
    return Launch(["lighttpd", "-D", "-f", _render("lighttpd.conf", ctx)], ctx.workdir, _env(ctx))


def _uvicorn(module: str) -> Callable[[Contender, LaunchContext], Launch]:
    def build(c: Contender, ctx: LaunchContext) -> Launch:
        argv = [sys.executable, "-m", "uvicorn", f"{module}:app", "--app-dir", APPS_DIR, "--host", HOST,
                "--port", str(ctx.port), "--workers", str(c.workers), "--loop", "uvloop", "--http", "httptools",
                "--no-access-log", "--log-level", "warning", "--timeout-keep-alive", "300", "--backlog", "16384"]
        if ctx.tls:
            argv += ["--ssl-certfile", ctx.tls_cert, "--ssl-keyfile", ctx.tls_key]
        return Launch(argv, APPS_DIR, _env(ctx))
    return build


def _granian(c: Contender, ctx: LaunchContext) -> Launch:
    argv = [sys.executable, "-m", "granian", "--interface", "rsgi", "--host", HOST, "--port", str(ctx.port),
            "--workers", str(c.workers), "--runtime-mode", "st", "--runtime-threads", "1", "--loop", "uvloop",
            "--no-access-log", "--log-level", "warning", "--backlog", "16384", "--working-dir", APPS_DIR]
    if ctx.tls:
        argv += ["--ssl-certificate", ctx.tls_cert, "--ssl-keyfile", ctx.tls_key]
    return Launch(argv + ["granian_app:app"], APPS_DIR, _env(ctx))


def _slipstream_py_workers(style: str) -> Callable[[Contender, LaunchContext], Launch]:
    """`slipstream run` with c.workers processes (SO_REUSEPORT), one I/O thread each; the app module's `app`."""
    def build(c: Contender, ctx: LaunchContext) -> Launch:
        env = _env(ctx)
        env["BENCH_STYLE"] = style
        argv = [sys.executable, "-m", "slipstream", "run", "slipstream_app:app", "--app-dir", APPS_DIR,
                "--host", HOST, "--port", str(ctx.port), "--workers", str(c.workers), "--threads", "1"]
        if ctx.tls:
            argv += ["--tls-cert", ctx.tls_cert, "--tls-key", ctx.tls_key]
        return Launch(argv, APPS_DIR, env)
    return build


def _script(*args: str) -> Callable[[Contender, LaunchContext], Launch]:
    def build(c: Contender, ctx: LaunchContext) -> Launch:
        return Launch([sys.executable, os.path.join(APPS_DIR, c.app_file), *args], APPS_DIR, _env(ctx))
    return build


def _otel(build: Callable[[Contender, LaunchContext], Launch]) -> Callable[[Contender, LaunchContext], Launch]:
    """`build` with BENCH_OTEL=1: the app sets OpenTelemetry's global providers first (apps/otel_setup.py)."""
    def with_otel(c: Contender, ctx: LaunchContext) -> Launch:
        launch = build(c, ctx)
        launch.env["BENCH_OTEL"] = "1"
        return launch
    return with_otel


def _write_large(ctx: LaunchContext) -> str:
    path = os.path.join(ctx.workdir, "large.json")
    with open(path, "wb") as f:
        f.write(payloads.LARGE)
    return path


def _slipstream_cpp(access_log: bool, request_metrics: bool = True, io_uring: bool = False,
                    request_id_response: bool = True) -> Callable[[Contender, LaunchContext], Launch]:
    """build/examples/bench_app on one I/O thread; with `access_log` its JSON lines go to a file in the work dir;
    without `request_metrics` no per-route counters or histograms are kept; `io_uring` runs the loop on io_uring;
    without `request_id_response` answers carry no X-Request-ID."""
    def build(c: Contender, ctx: LaunchContext) -> Launch:
        env = _env(ctx)
        env["BENCH_LARGE_FILE"] = _write_large(ctx)
        log = ["--access-log", "--access-log-path", os.path.join(ctx.workdir, "access.log")] if access_log \
            else ["--no-access-log"]
        if not request_metrics:
            log.append("--no-request-metrics")
        if io_uring:
            log.append("--io-uring")
        if not request_id_response:
            log.append("--no-request-id-response")
        tls = ["--tls-cert", ctx.tls_cert, "--tls-key", ctx.tls_key] if ctx.tls else []
        return Launch([SLIPSTREAM_CPP, "--host", HOST, "--port", str(ctx.port), "--threads", "1",
                       "--max-connections", str(ctx.fd_limit), *log, *tls],
                      ctx.workdir, env)
    return build


def _bookstore_env(ctx: LaunchContext) -> dict[str, str]:
    """The bench environment plus the suite's database and the repository on PYTHONPATH (examples.bookstore);
    BOOKSTORE_CURSOR_SECRET is inherited, as harness/bookstore.py signed the review cursor with it."""
    if ctx.database_url is None:
        raise ValueError("a Bookstore contender needs the suite's database (LaunchContext.database_url)")
    env = _env(ctx)
    env["BOOKSTORE_DATABASE_URL"] = ctx.database_url
    env["PYTHONPATH"] = os.pathsep.join(p for p in (REPO_DIR, env.get("PYTHONPATH")) if p)
    return env


def _bookstore_cpp(c: Contender, ctx: LaunchContext) -> Launch:
    """build/examples/bookstore on one I/O thread, no access log, its default pool (10 connections, as asyncpg's
    max_size in fastapi_app.py)."""
    env = _bookstore_env(ctx)
    return Launch([BOOKSTORE_CPP, "--host", HOST, "--port", str(ctx.port), "--threads", "1", "--max-connections",
                   str(ctx.fd_limit), "--no-access-log", "--database-url", ctx.database_url], ctx.workdir, env)


def _bookstore_uvicorn(module: str) -> Callable[[Contender, LaunchContext], Launch]:
    """uvicorn as for `fastapi`, on a bench/apps wrapper of an examples/bookstore app (its runtime report)."""
    plain = _uvicorn(module)

    def build(c: Contender, ctx: LaunchContext) -> Launch:
        launch = plain(c, ctx)
        launch.env = _bookstore_env(ctx)
        return launch
    return build


def _bookstore_slipstream_py(c: Contender, ctx: LaunchContext) -> Launch:
    """`slipstream run` of bench/apps/bookstore_slipstream.py (examples/bookstore/app.py's `app` with the runtime
    report), one process, one I/O thread."""
    argv = [sys.executable, "-m", "slipstream", "run", "bookstore_slipstream:app", "--app-dir", APPS_DIR,
            "--host", HOST, "--port", str(ctx.port), "--workers", "1", "--threads", "1"]
    return Launch(argv, APPS_DIR, _bookstore_env(ctx))


_STATIC_NA = "static reference: serves fixed bytes only, cannot parse or validate a request body or parameters"
_NO_WS = "not in the WebSocket comparison (socketify, websockets, Slipstream C++ and Python async)"
_NO_TLS = "TLS is not set up for this contender in the harness"
STATIC_UNSUPPORTED = {**{w: _STATIC_NA for w in ("echo", "validated", "params")},
                      "ws": "static reference: no WebSocket echo"}
_TWO_WORKER_WORKLOADS = ("hello", "validated")


def _no_h2(reason: str, tls: bool = False, ws: bool = False) -> dict[str, str]:
    """No HTTP/2 (cleartext or TLS); no TLS unless tls, no WebSocket row unless ws."""
    out = {"h2": reason, "h2tls": reason}
    if not tls:
        out["tls"] = _NO_TLS
    if not ws:
        out["ws"] = _NO_WS
    return out


def _only(workloads: tuple[str, ...], reason: str) -> dict[str, str]:
    """n/a for every workload but these."""
    return {w: reason for w in WORKLOADS if w not in workloads}


# uvicorn started with --loop uvloop --http httptools must run exactly those (and pydantic's compiled core).
UVICORN_EXPECTS = {"loop": "uvloop.", "http": "httptools", "native": "uvloop,httptools,pydantic_core"}
ASYNCPG_EXPECTS = {**UVICORN_EXPECTS, "native": UVICORN_EXPECTS["native"] + ",asyncpg"}
GRANIAN_EXPECTS = {"loop": "uvloop.", "native": "granian,uvloop"}

CONTENDERS: list[Contender] = [
    Contender("nginx", "static", "nginx, 1 worker, `return 200` for hello, static file for large", "nginx.conf",
              ("bin:nginx",), _nginx, ("nginx -v",), STATIC_UNSUPPORTED),
    Contender("h2o", "static", "h2o, 1 thread, static files", "h2o.conf", ("bin:h2o",), _h2o,
              ("h2o --version",), STATIC_UNSUPPORTED),
    Contender("lighttpd", "static", "lighttpd, 1 process, static files", "lighttpd.conf", ("bin:lighttpd",),
              _lighttpd, ("lighttpd -v",), {**STATIC_UNSUPPORTED, "tls": _NO_TLS, "h2tls": _NO_TLS}),
    Contender("fastapi", "python", "FastAPI on uvicorn (uvloop, httptools), 1 worker, async def handlers",
              "fastapi_app.py", ("module:fastapi", "module:uvicorn", "module:uvloop", "module:httptools"),
              _uvicorn("fastapi_app"), ("dist:fastapi", "dist:uvicorn", "dist:uvloop", "dist:httptools"),
              _no_h2("uvicorn has no HTTP/2", tls=True), expects=UVICORN_EXPECTS),
    Contender("granian", "python", "Granian, RSGI interface (its fastest), 1 worker, single-threaded runtime",
              "granian_app.py", ("module:granian", "module:uvloop"), _granian, ("dist:granian",),
              _no_h2("Granian serves cleartext HTTP/2 only with --http 2, not beside HTTP/1.1 on one port", tls=True),
              expects=GRANIAN_EXPECTS),
    Contender("robyn", "python", "Robyn, 1 process, 1 worker, def handlers", "robyn_app.py", ("module:robyn",),
              _script("--processes", "1", "--workers", "1", "--log-level", "WARN", "--disable-openapi"),
              ("dist:robyn",), _no_h2("no cleartext HTTP/2 in Robyn"), signal.SIGKILL, expects={"native": "robyn"}),
    Contender("socketify", "python", "socketify (uWebSockets), 1 process", "socketify_app.py",
              ("module:socketify",), _script(), ("dist:socketify",),
              _no_h2("no cleartext HTTP/2 in socketify", ws=True), signal.SIGKILL, expects={}),
    Contender("blacksheep", "python", "BlackSheep on uvicorn (uvloop, httptools), 1 worker, async def handlers",
              "blacksheep_app.py", ("module:blacksheep", "module:uvicorn", "module:uvloop", "module:httptools"),
              _uvicorn("blacksheep_app"), ("dist:blacksheep", "dist:uvicorn"),
              _no_h2("uvicorn has no HTTP/2"), expects=UVICORN_EXPECTS),
    Contender("websockets", "python", "websockets (asyncio server, pure Python event loop), 1 process, echo only",
              "websockets_app.py", ("module:websockets",), _script(), ("dist:websockets",),
              _only(("ws",), "a WebSocket library: no HTTP routes"), expects={"loop": "asyncio."}),
    Contender("slipstream-cpp", "slipstream",
              "Slipstream, C++ handlers (build/examples/bench_app --threads 1 --no-access-log)",
              "examples/bench_app.cpp", (f"file:{SLIPSTREAM_CPP}",), _slipstream_cpp(False), ()),
    Contender("slipstream-cpp-log", "slipstream",
              "Slipstream, C++ handlers with the JSON access log on (to a file): the cost of logging",
              "examples/bench_app.cpp", (f"file:{SLIPSTREAM_CPP}",), _slipstream_cpp(True), (),
              _only(("hello",), "the logging cost is measured on hello only")),
    Contender("slipstream-cpp-bare", "slipstream",
              "Slipstream, C++ handlers with neither access log nor per-route request metrics: their joint cost",
              "examples/bench_app.cpp", (f"file:{SLIPSTREAM_CPP}",), _slipstream_cpp(False, request_metrics=False), (),
              _only(("hello",), "the observability cost is measured on hello only")),
    Contender("slipstream-cpp-uring", "slipstream",
              "Slipstream, C++ handlers, I/O loop on io_uring (--io-uring) instead of epoll: its cost against epoll",
              "examples/bench_app.cpp", (f"file:{SLIPSTREAM_CPP}",), _slipstream_cpp(False, io_uring=True), (),
              _only(("hello", "pipelined", "h2"),
                    "the io_uring loop is compared with epoll on hello, pipelined and h2 (cleartext: TLS connections "
                    "stay readiness-driven on it)")),
    Contender("slipstream-cpp-noid", "slipstream",
              "Slipstream, C++ handlers without X-Request-ID on responses (--no-request-id-response), as the "
              "static servers answer: what the header costs the server and, on HTTP/2, the client's HPACK decoder",
              "examples/bench_app.cpp", (f"file:{SLIPSTREAM_CPP}",), _slipstream_cpp(False, request_id_response=False),
              (), _only(("hello", "h2", "h2tls"), "the request-id header's cost is measured on hello, h2 and h2tls")),
    Contender("slipstream-py-def", "slipstream", "Slipstream, Python `def` handlers, 1 thread", "slipstream_app.py",
              ("module:slipstream",), _script("--style", "def"), ("dist:slipstream",),
              {"ws": "WebSocket handlers are async def: measured in slipstream-py-async"}, expects={}),
    # Telemetry on (FastAPI's native OpenTelemetry and App(telemetry=...)'s default once a provider is set): the
    # SDK's tracer provider with a batch processor and a dropping exporter, and a meter provider (apps/otel_setup.py).
    Contender("slipstream-py-def-otel", "slipstream",
              "Slipstream, Python `def` handlers, 1 thread, OpenTelemetry on (SDK providers, spans dropped)",
              "slipstream_app.py", ("module:slipstream", "module:opentelemetry.sdk"),
              _otel(_script("--style", "def")), ("dist:slipstream", "dist:opentelemetry-sdk"),
              _only(("hello", "validated"), "telemetry's cost is measured on hello and validated"), expects={}),
    Contender("fastapi-otel", "python",
              "FastAPI on uvicorn (uvloop, httptools), 1 worker, async def handlers, OpenTelemetry on (SDK providers, "
              "spans dropped)", "fastapi_app.py",
              ("module:fastapi", "module:uvicorn", "module:uvloop", "module:httptools", "module:opentelemetry.sdk"),
              _otel(_uvicorn("fastapi_app")), ("dist:fastapi", "dist:opentelemetry-sdk"),
              _only(("hello", "validated"), "telemetry's cost is measured on hello and validated"),
              expects=UVICORN_EXPECTS),
    Contender("slipstream-py-async", "slipstream", "Slipstream, Python `async def` handlers, 1 thread",
              "slipstream_app.py", ("module:slipstream",), _script("--style", "async"), ("dist:slipstream",),
              expects={}),
    Contender("slipstream-py-native", "slipstream",
              "Slipstream, Python app with native routes (static, validate-and-echo): no GIL per request",
              "slipstream_app.py", ("module:slipstream",), _script("--style", "native"), ("dist:slipstream",),
              {"params": "a native route has no handler to build a response from parameters",
               "ws": "WebSocket handlers are async def: measured in slipstream-py-async"}, expects={}),
    # 2 worker processes: measured only where the server and the load generator get 2 CPUs each (CpuLayout).
    Contender("slipstream-py-w2", "slipstream",
              "Slipstream, Python `def` handlers, `slipstream run --workers 2 --threads 1` (SO_REUSEPORT)",
              "slipstream_app.py", ("module:slipstream",), _slipstream_py_workers("def"), ("dist:slipstream",),
              _only(_TWO_WORKER_WORKLOADS, "the 2-worker rows measure hello and validated only"),
              workers=2, baseline="slipstream-py-def", expects={}),
    Contender("fastapi-w2", "python", "FastAPI on uvicorn --workers 2 (uvloop, httptools), async def handlers",
              "fastapi_app.py", ("module:fastapi", "module:uvicorn", "module:uvloop", "module:httptools"),
              _uvicorn("fastapi_app"), ("dist:fastapi", "dist:uvicorn"),
              _only(_TWO_WORKER_WORKLOADS, "the 2-worker rows measure hello and validated only"),
              workers=2, baseline="fastapi", expects=UVICORN_EXPECTS),
    Contender("granian-w2", "python", "Granian --workers 2, RSGI, single-threaded runtime per worker",
              "granian_app.py", ("module:granian", "module:uvloop"), _granian, ("dist:granian",),
              _only(_TWO_WORKER_WORKLOADS, "the 2-worker rows measure hello and validated only"),
              workers=2, baseline="granian", expects=GRANIAN_EXPECTS),
    # The Bookstore (examples/bookstore) on the suite's PostgreSQL: its workloads only (Contender.app).
    Contender("slipstream-cpp-bookstore", "slipstream",
              "Slipstream, C++ handlers on store::Database, rows to JSON in the driver (build/examples/bookstore "
              "--threads 1 --no-access-log, pool of 10)", "examples/bookstore/bookstore.cpp",
              (f"file:{BOOKSTORE_CPP}", "postgres:server"), _bookstore_cpp, (), app="bookstore",
              ready_path="/health"),
    Contender("slipstream-py-bookstore", "slipstream",
              "Slipstream, Python async def handlers on slipstream.Database (pool of 10), pydantic response models, "
              "1 I/O thread", "examples/bookstore/app.py",
              ("module:slipstream", "path:examples/bookstore/app.py", "postgres:server"), _bookstore_slipstream_py,
              ("dist:slipstream",), expects={}, app="bookstore", ready_path="/health"),
    Contender("fastapi-asyncpg", "python",
              "FastAPI + asyncpg (pool of 10), pydantic response models, on uvicorn (uvloop, httptools), 1 worker",
              "examples/bookstore/fastapi_app.py",
              ("module:fastapi", "module:asyncpg", "module:uvicorn", "module:uvloop", "module:httptools",
               "postgres:server"),
              _bookstore_uvicorn("bookstore_fastapi"), ("dist:fastapi", "dist:asyncpg", "dist:uvicorn", "dist:uvloop",
                                                        "dist:httptools"),
              expects=ASYNCPG_EXPECTS, app="bookstore", ready_path="/health"),
]

BY_NAME = {c.name: c for c in CONTENDERS}
QUICK_CONTENDERS = [c.name for c in CONTENDERS]


def select(names: list[str] | None) -> list[Contender]:
    if not names:
        return list(CONTENDERS)
    unknown = [n for n in names if n not in BY_NAME]
    if unknown:
        raise ValueError(f"unknown contender(s): {', '.join(unknown)}; known: {', '.join(BY_NAME)}")
    return [BY_NAME[n] for n in names]
