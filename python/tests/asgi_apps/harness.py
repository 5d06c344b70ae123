"""Runs an ASGI app under uvicorn and under `slipstream asgi` in subprocesses, sends both the same requests and
compares what comes back (python/tests/test_asgi_differential.py)."""

from __future__ import annotations

import dataclasses
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any

import httpx

APPS = pathlib.Path(__file__).resolve().parent
# Headers each server writes itself, and the body's framing (Content-Length or chunked, see docs/asgi.md).
IGNORED = frozenset({"date", "server", "x-request-id", "content-length", "transfer-encoding", "connection",
                     "keep-alive"})
HOST = "testserver"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Server:
    """One server process; `kind` is "slipstream" or "uvicorn"."""

    def __init__(self, kind: str, target: str, extra: Sequence[str] = ()) -> None:
        self.kind = kind
        self.target = target
        self.extra = list(extra)
        self.port = 0
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - read after the process ended, closed by stop()

    def command(self) -> list[str]:
        common = ["--host", "127.0.0.1", "--port", str(self.port), "--app-dir", str(APPS)]
        if self.kind == "slipstream":
            return [sys.executable, "-m", "slipstream", "asgi", self.target, *common, "--threads", "1",
                    "--log-level", "warning", *self.extra]
        # uvicorn as deployed: httptools (h11 answers some malformed or streamed requests differently), uvloop.
        return [sys.executable, "-m", "uvicorn", self.target, *common, "--http", "httptools", "--loop", "uvloop",
                "--log-level", "warning", *self.extra]

    def start(self, timeout: float = 30.0) -> Server:
        self.port = free_port()
        # One hash seed for both: Starlette builds its Allow header from a set.
        env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONHASHSEED": "0"}
        self.proc = subprocess.Popen(self.command(), stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.kind} exited with {self.proc.returncode}:\n{self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{self.kind} did not listen within {timeout} s:\n{self.output()}")

    def stop(self) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode

    def close(self) -> None:
        self.stop()
        self.log.close()

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_base(self) -> str:
        return f"ws://127.0.0.1:{self.port}"


@dataclasses.dataclass(frozen=True)
class Framed:
    """A Content-Length that counts only when both sides have one (chunked on one side is not a difference)."""

    length: str | None

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Framed):
            return NotImplemented
        return self.length is None or other.length is None or self.length == other.length

    def __hash__(self) -> int:
        return 0


@dataclasses.dataclass(frozen=True)
class Http:
    """One HTTP request of a differential case."""

    name: str
    method: str
    path: str
    options: dict[str, Any] = dataclasses.field(default_factory=dict)

    def run(self, client: httpx.Client, server: Server) -> Any:
        headers = {"host": HOST, **self.options.get("headers", {})}
        # A callable makes the value anew for each server (an iterator body is used up by one request).
        options = {k: v() if callable(v) else v for k, v in self.options.items() if k != "headers"}
        try:
            response = client.request(self.method, server.base + self.path, headers=headers, **options)
        except httpx.HTTPError as exc:
            return ("transport error", type(exc).__name__)
        kept = sorted((k.lower(), v) for k, v in response.headers.multi_items() if k.lower() not in IGNORED)
        # Content-Length where it was sent (always on HEAD and whole bodies): compared when both servers send it.
        return (response.status_code, kept, response.content, Framed(response.headers.get("content-length")))


@dataclasses.dataclass(frozen=True)
class Ws:
    """One WebSocket conversation: `script(url)` returns its transcript."""

    name: str
    path: str
    script: Callable[[str], Any]

    def run(self, client: httpx.Client, server: Server) -> Any:
        return self.script(server.ws_base + self.path)


def ws_transcript(messages: Sequence[str | bytes], subprotocols: Sequence[str] = (), read: int | None = None,
                  headers: Sequence[str] = (), client_closes: bool = False) -> Callable[[str], Any]:
    """A conversation: connect, send each message and read one answer after each (or `read` answers after
    all), then close; the transcript has the handshake outcome, the answers and the close code and reason."""
    from websockets.exceptions import ConnectionClosed, InvalidStatus
    from websockets.sync.client import connect

    def script(url: str) -> Any:
        out: list[Any] = []
        try:
            with connect(url, subprotocols=list(subprotocols) or None, open_timeout=10, close_timeout=5) as ws:
                out.append(("subprotocol", ws.subprotocol))
                out.append(("headers", [(h, ws.response.headers.get(h)) for h in headers]))
                try:
                    for message in messages:
                        ws.send(message)
                        if read is None:
                            out.append(("got", ws.recv(timeout=10)))
                    for _ in range(read or 0):
                        out.append(("got", ws.recv(timeout=10)))
                    if client_closes:
                        ws.close(1000, "client done")
                        out.append(("client closed",))
                    else:
                        out.append(("got", ws.recv(timeout=10)))
                except ConnectionClosed as exc:
                    rcvd = exc.rcvd
                    out.append(("closed", rcvd.code if rcvd else None, rcvd.reason if rcvd else None))
                except TimeoutError:
                    out.append(("still open",))
        except InvalidStatus as exc:
            response = exc.response
            out.append(("rejected", response.status_code, bytes(response.body or b"")))
        return out

    return script


def compare(cases: Sequence[Http | Ws], left: Server, right: Server) -> tuple[list[str], list[str]]:
    """Runs every case on both servers (in order: a case may read what an earlier one did); the names of the
    cases that matched, and a description of each mismatch."""
    matched: list[str] = []
    mismatches: list[str] = []
    with httpx.Client(timeout=15) as a, httpx.Client(timeout=15) as b:
        for case in cases:
            got_left = case.run(a, left)
            got_right = case.run(b, right)
            if got_left == got_right:
                matched.append(case.name)
            else:
                mismatches.append(f"{case.name}:\n  {left.kind}: {_short(got_left)}\n  {right.kind}: {_short(got_right)}")
    return matched, mismatches


def _short(value: Any, limit: int = 600) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"
