"""`slipstream run`: flags and SLIPSTREAM_* variables, worker processes (restart), reload, root path and proxy
headers; real processes on real sockets."""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from slipstream import App, Request, TestClient
from slipstream.cli import FLAGS, build_parser

APP = '''
import os
from slipstream import App, Request

app = App(title="cli")

@app.get("/pid")
def pid():
    return {"pid": os.getpid(), "version": VERSION}

@app.get("/where")
def where(request: Request):
    return {"url": str(request.url), "client": request.client}

VERSION = 1
'''
DEADLINE_S = 30.0


def get(port: int, path: str, headers: dict[str, str] | None = None) -> Any:
    """One request on a new connection (so that SO_REUSEPORT may pick another worker)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path, headers=headers or {})
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def wait_for(check: Callable[[], Any], what: str) -> Any:
    """Polls `check` (an external process must catch up) until it returns a truthy value; fails at the deadline."""
    end = time.monotonic() + DEADLINE_S
    while True:
        try:
            value = check()
        except OSError:
            value = None
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


class Server:
    """`python -m slipstream run app:app ...` in `folder`; the port is read from its first log line, the rest
    of its log is collected by a thread."""

    def __init__(self, folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "slipstream", "run", "app:app", "--port", "0",
                                      "--threads", "1", *args], cwd=folder, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **(env or {})})
        assert self.proc.stderr is not None
        line = self.proc.stderr.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)", line)
        assert match, line
        self.port = int(match.group(1))
        self.log: list[str] = [line]
        self._reader = threading.Thread(target=lambda: self.log.extend(self.proc.stderr or ()), daemon=True)
        self._reader.start()

    def logged(self, text: str) -> bool:
        return any(text in line for line in list(self.log))

    def pids(self) -> set[int]:
        return {get(self.port, "/pid")["pid"] for _ in range(8)}

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=DEADLINE_S)
        return "".join(self.log)


def workers(s: Server, count: int) -> set[int] | None:
    """The pids that answered 80 new connections, when there are `count` of them."""
    seen = set().union(*(s.pids() for _ in range(10)))
    return seen if len(seen) == count else None


@pytest.fixture()
def app_dir(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


@pytest.fixture()
def server(app_dir: Path) -> Iterator[Callable[..., Server]]:
    started: list[Server] = []

    def start(*args: str, env: dict[str, str] | None = None) -> Server:
        started.append(Server(app_dir, *args, env=env))
        return started[-1]

    yield start
    for s in started:
        s.stop()


def test_help_lists_every_variable() -> None:
    out = subprocess.run([sys.executable, "-m", "slipstream", "run", "--help"], capture_output=True, text=True,
                         check=True).stdout
    flat = " ".join(out.split())
    for flag in FLAGS:
        assert f"env {flag.env}" in flat, flag.env
        if flag.name != "app":
            assert f"--{flag.name.removesuffix('s') if flag.kind == 'list' else flag.name}" in flat
    assert "then WEB_CONCURRENCY" in flat and "then FORWARDED_ALLOW_IPS" in flat


@pytest.mark.parametrize(("env", "argv", "expected"), [
    ({}, [], {"host": "127.0.0.1", "port": 8000, "workers": 1, "reload": False, "root_path": ""}),
    ({"SLIPSTREAM_PORT": "9001", "SLIPSTREAM_WORKERS": "3", "SLIPSTREAM_RELOAD": "yes",
      "SLIPSTREAM_ROOT_PATH": "/api", "SLIPSTREAM_PROXY_HEADERS": "1"}, [],
     {"port": 9001, "workers": 3, "reload": True, "root_path": "/api", "proxy_headers": True}),
    ({"WEB_CONCURRENCY": "4", "FORWARDED_ALLOW_IPS": "*"}, [], {"workers": 4, "forwarded_allow_ips": "*"}),
    ({"WEB_CONCURRENCY": "4", "SLIPSTREAM_WORKERS": "2"}, [], {"workers": 2}),
    ({"SLIPSTREAM_WORKERS": "2", "SLIPSTREAM_RELOAD": "on"}, ["--workers", "5", "--no-reload"],
     {"workers": 5, "reload": False}),
    ({"SLIPSTREAM_APP": "pkg:app", "SLIPSTREAM_TLS_CERT": "c.pem", "SLIPSTREAM_TLS_KEY": "k.pem"}, [],
     {"app": "pkg:app", "tls_cert": "c.pem", "tls_key": "k.pem"}),
    ({"SLIPSTREAM_IO_URING": "true"}, [], {"io_uring": True}),
    ({"SLIPSTREAM_IO_URING": "true"}, ["--no-io-uring"], {"io_uring": False}),
    ({}, [], {"drain_timeout": None}),
    ({"SLIPSTREAM_DRAIN_TIMEOUT": "45s"}, [], {"drain_timeout": 45_000}),
    ({"SLIPSTREAM_DRAIN_TIMEOUT": "45s"}, ["--drain-timeout", "500ms"], {"drain_timeout": 500}),
    ({}, ["--drain-timeout", "2m"], {"drain_timeout": 120_000}),
    ({}, ["--drain-timeout", "1.5"], {"drain_timeout": 1_500}),
])
def test_flags_and_variables(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], argv: list[str],
                             expected: dict[str, Any]) -> None:
    for flag in FLAGS:
        monkeypatch.delenv(flag.env, raising=False)
    monkeypatch.delenv("WEB_CONCURRENCY", raising=False)
    monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    app = [] if "SLIPSTREAM_APP" in env else ["main:app"]
    args = vars(build_parser().parse_args(["run", *argv, *app]))
    assert {key: args[key] for key in expected} == expected


@pytest.mark.parametrize(("env", "message"), [
    ({"SLIPSTREAM_PORT": "x"}, "SLIPSTREAM_PORT='x'"),
    ({"WEB_CONCURRENCY": "0"}, "WEB_CONCURRENCY='0': must be at least 1"),
    ({"SLIPSTREAM_RELOAD": "maybe"}, "SLIPSTREAM_RELOAD='maybe': expected one of"),
    ({"SLIPSTREAM_DRAIN_TIMEOUT": "forever"}, "SLIPSTREAM_DRAIN_TIMEOUT='forever'"),
    ({"SLIPSTREAM_DRAIN_TIMEOUT": "25h"}, "must be between 0 and 24h"),
])
def test_bad_variables_are_refused(monkeypatch: pytest.MonkeyPatch, env: dict[str, str], message: str) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    with pytest.raises(SystemExit) as exc:
        build_parser()
    assert message in str(exc.value)


def test_workers_share_the_port_and_a_dead_one_is_restarted(server: Callable[..., Server]) -> None:
    s = server("--workers", "2")
    first = wait_for(lambda: workers(s, 2), "two workers answering")
    victim = min(first)
    os.kill(victim, signal.SIGKILL)
    # The restarted worker is a new process; the survivor keeps serving meanwhile.
    replacement = wait_for(lambda: s.pids() - first, "a restarted worker")
    assert victim not in replacement and s.proc.poll() is None
    err = s.stop()
    assert s.proc.returncode == 0
    assert f"(pid {victim}) exited with signal 9; restarting" in err
    for pid in first | replacement:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_web_concurrency_sets_the_workers(server: Callable[..., Server]) -> None:
    s = server(env={"WEB_CONCURRENCY": "2"})
    wait_for(lambda: workers(s, 2), "two workers answering")


def test_reload_serves_the_new_code(server: Callable[..., Server], app_dir: Path) -> None:
    s = server("--reload")
    assert wait_for(lambda: get(s.port, "/pid"), "the server")["version"] == 1
    (app_dir / "app.py").write_text(APP.replace("VERSION = 1", "VERSION = 2"))
    wait_for(lambda: get(s.port, "/pid")["version"] == 2, "the reloaded code")
    # A broken edit leaves the server waiting for the next change, which is served again.
    (app_dir / "app.py").write_text(APP + "\nthis is not python\n")
    wait_for(lambda: s.logged("could not start (status 3); waiting for a file change"), "the failed start")
    (app_dir / "app.py").write_text(APP.replace("VERSION = 1", "VERSION = 3"))
    wait_for(lambda: get(s.port, "/pid")["version"] == 3, "the fixed code")
    s.stop()
    assert s.proc.returncode == 0


def test_a_worker_that_cannot_start_stops_the_supervisor(app_dir: Path) -> None:
    (app_dir / "app.py").write_text("raise RuntimeError('broken app')\n")
    proc = subprocess.run([sys.executable, "-m", "slipstream", "run", "app:app", "--port", "0", "--workers", "2"],
                          cwd=app_dir, capture_output=True, text=True, timeout=DEADLINE_S, check=False)
    assert proc.returncode == 1
    assert "RuntimeError: broken app" in proc.stderr and "could not start (status 3); stopping" in proc.stderr


def test_a_port_another_process_listens_on_fails_the_start(app_dir: Path) -> None:
    # Another server's listener (SO_REUSEPORT, as every Slipstream listener): joining it would split the traffic.
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other.bind(("127.0.0.1", 0))
        other.listen()
        port = other.getsockname()[1]
        for workers in ("1", "2"):  # App.run() in this process; the supervisor's check before its workers
            proc = subprocess.run([sys.executable, "-m", "slipstream", "run", "app:app", "--port", str(port),
                                   "--workers", workers], cwd=app_dir, capture_output=True, text=True,
                                  timeout=DEADLINE_S, check=False)
            assert proc.returncode == 1, proc.stderr
            assert proc.stderr == (f"error: listen on 127.0.0.1:{port}: address already in use (another process "
                                   "listens there; --reuse-port / reuse_port=True shares the port on purpose)\n")


@pytest.mark.parametrize("workers", ["1", "2"])
def test_reuse_port_shares_a_port_on_purpose(app_dir: Path, workers: str) -> None:
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        other.bind(("127.0.0.1", 0))  # bound, not listening: every connection reaches the server
        port = other.getsockname()[1]
        s = Server(app_dir, "--port", str(port), "--workers", workers, "--reuse-port")
        try:
            assert s.port == port
            assert wait_for(lambda: get(port, "/pid"), "the server")["version"] == 1
        finally:
            s.stop()
    assert s.proc.returncode == 0


def test_root_path_and_proxy_headers_from_the_command_line(server: Callable[..., Server]) -> None:
    s = server("--root-path", "/api", "--proxy-headers", "--workers", "1")
    where = wait_for(lambda: get(s.port, "/where", {"host": "example.com", "x-forwarded-proto": "https",
                                                     "x-forwarded-for": "203.0.113.7, 127.0.0.1"}), "the server")
    assert where == {"url": "https://example.com/api/where", "client": ["203.0.113.7", 0]}
    assert get(s.port, "/openapi.json")["servers"] == [{"url": "/api"}]


def _io_uring_allowed() -> bool:
    probe = Path(__file__).resolve().parents[2] / "scripts" / "io_uring_probe.py"
    return subprocess.run([sys.executable, str(probe)], capture_output=True, check=False).returncode == 0


def _ring_fds(pid: int) -> int:
    """The process's io_uring fds; an fd closed while the folder is read (a finished connection) is skipped."""
    count = 0
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            count += "io_uring" in os.readlink(fd)
        except FileNotFoundError:
            continue
    return count


@pytest.mark.skipif(not _io_uring_allowed(), reason="this kernel does not let the process create an io_uring")
@pytest.mark.parametrize("how", ["flag", "variable"])
def test_io_uring_serves_through_a_ring(server: Callable[..., Server], how: str) -> None:
    s = server("--io-uring") if how == "flag" else server(env={"SLIPSTREAM_IO_URING": "1"})
    pid = wait_for(lambda: get(s.port, "/pid"), "the server")["pid"]
    assert _ring_fds(pid) >= 1  # the I/O thread's ring
    assert get(s.port, "/where")["url"].endswith("/where")


def test_without_io_uring_no_ring_is_made(server: Callable[..., Server]) -> None:
    s = server()
    pid = wait_for(lambda: get(s.port, "/pid"), "the server")["pid"]
    assert _ring_fds(pid) == 0


def _where_app() -> App:
    app = App()

    @app.get("/where")
    def where(request: Request) -> dict[str, Any]:
        return {"url": str(request.url), "client": request.client}

    return app


@pytest.mark.parametrize(("options", "headers", "expected"), [
    ({}, {"x-forwarded-for": "1.2.3.4", "x-forwarded-proto": "https"}, ("http://testserver/where", "127.0.0.1")),
    ({"proxy_headers": True}, {"x-forwarded-for": "1.2.3.4", "x-forwarded-proto": "https"},
     ("https://testserver/where", "1.2.3.4")),
    ({"proxy_headers": True, "forwarded_allow_ips": "10.0.0.0/8"},
     {"x-forwarded-for": "1.2.3.4", "x-forwarded-proto": "https"}, ("http://testserver/where", "127.0.0.1")),
    ({"proxy_headers": True, "forwarded_allow_ips": "127.0.0.0/8, 10.1.1.1"},
     {"x-forwarded-for": "9.9.9.9, 1.2.3.4, 10.1.1.1", "x-forwarded-proto": "gopher"},
     ("http://testserver/where", "1.2.3.4")),
    ({"proxy_headers": True, "forwarded_allow_ips": "*"}, {"x-forwarded-for": "9.9.9.9, 1.2.3.4"},
     ("http://testserver/where", "9.9.9.9")),
    ({"root_path": "/base/"}, {}, ("http://testserver/base/where", "127.0.0.1")),
], ids=["off", "trusted", "untrusted", "rightmost-untrusted", "all-trusted", "root-path"])
def test_request_url_and_client(options: dict[str, Any], headers: dict[str, str],
                                expected: tuple[str, str]) -> None:
    with TestClient(_where_app(), **options) as client:
        body = client.get("/where", headers=headers).json()
    assert (body["url"], body["client"][0]) == expected
    assert body["client"][1] == 0 if expected[1] != "127.0.0.1" else body["client"][1] > 0


def test_drain_timeout_cuts_a_request_that_never_ends() -> None:
    """With --drain-timeout 300ms a SIGTERM'd server gives up on a hanging request and exits (the default, 30 s,
    would outlast the wait below)."""
    from test_server import TESTS, listening_port

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.Popen([sys.executable, "-m", "slipstream", "run", "apps.slow_app:app", "--port", "0",
                             "--drain-timeout", "300ms"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        port = listening_port(proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/hang")
        threading.Thread(target=lambda: proc.stderr.read(), daemon=True).start()  # keep the pipe drained
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=20) == 1  # exits; 1: the deadline cut a request (a clean drain is 0)
    finally:
        if proc.poll() is None:
            proc.kill()
