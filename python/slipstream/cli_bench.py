"""`slipstream bench URL`: an HTTP/1.1 load generator with a text (or JSON) summary.

Closed loop (default): each of --connections keep-alive connections sends its next request when the previous
answer is read. Open loop (--rate R): requests are scheduled at a constant R per second whatever the server does;
a request waits for a free connection when all are busy, and its latency is measured from the time it was
scheduled, not from the time it was sent, so a server that stalls is charged for every request the stall delays
(coordinated omission corrected). Transport failures (refused, reset, timed out, malformed answers) are errors;
every answer, whatever its status, is a response counted by status.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import math
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

MAX_CONNECTIONS = 10_000
MAX_DURATION_S = 3_600.0
MAX_REQUESTS = 10_000_000  # open loop: rate x duration
MAX_HEAD_BYTES = 64 * 1024  # an answer's status line and headers
MAX_BODY_BYTES = 16 * 1024 * 1024  # the request body given with --body
READ_PIECE = 64 * 1024  # answer bodies are read and dropped in pieces of this size
PERCENTILES = (50.0, 90.0, 99.0, 99.9)


class BadAnswer(Exception):
    """The server's bytes are not an HTTP/1.1 answer this client can read."""


@dataclass(frozen=True)
class Target:
    host: str
    port: int
    request: bytes  # the whole request, sent as is on every try
    head_only: bool  # HEAD: answers carry no body


@dataclass
class Results:
    """What the measured part of a run saw (warm-up requests are not recorded)."""

    latencies: list[float] = field(default_factory=list)  # seconds
    statuses: collections.Counter[int] = field(default_factory=collections.Counter)
    errors: collections.Counter[str] = field(default_factory=collections.Counter)

    def summary(self, elapsed: float) -> dict[str, Any]:
        ordered = sorted(self.latencies)
        ms = {f"p{p:g}": _percentile(ordered, p) * 1e3 for p in PERCENTILES} if ordered else {}
        if ordered:
            ms.update(mean=sum(ordered) / len(ordered) * 1e3, max=ordered[-1] * 1e3)
        return {
            "responses": len(ordered),
            "per_second": len(ordered) / elapsed if elapsed > 0 else 0.0,
            "errors": dict(self.errors),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "latency_ms": ms,
            "seconds": elapsed,
        }


def _percentile(ordered: list[float], p: float) -> float:
    """Nearest-rank percentile of a sorted, non-empty list."""
    rank = max(1, math.ceil(p / 100.0 * len(ordered)))
    return ordered[rank - 1]


def parse_target(url: str, method: str, headers: list[str], body: bytes) -> Target:
    """The request to send, from the command line; ValueError says what is wrong."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != "http":
        raise ValueError(f"{url!r}: only http:// URLs are supported (no TLS or HTTP/2 in slipstream bench yet)")
    if not parts.hostname:
        raise ValueError(f"{url!r}: no host")
    port = parts.port or 80
    host_header = parts.hostname if port == 80 else f"{parts.hostname}:{port}"
    if ":" in parts.hostname:
        host_header = f"[{parts.hostname}]" + ("" if port == 80 else f":{port}")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    lines = [f"{method} {target} HTTP/1.1", f"Host: {host_header}"]
    names = set()
    for header in headers:
        name, sep, value = header.partition(":")
        if not sep or not name.strip() or any(c in header for c in "\r\n"):
            raise ValueError(f"{header!r}: a header is NAME:VALUE on one line")
        names.add(name.strip().lower())
        lines.append(f"{name.strip()}: {value.strip()}")
    if body or method in ("POST", "PUT", "PATCH"):
        lines.append(f"Content-Length: {len(body)}")
    if "user-agent" not in names:
        lines.append("User-Agent: slipstream-bench")
    request = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body
    return Target(parts.hostname, port, request, method == "HEAD")


async def read_answer(reader: asyncio.StreamReader, head_only: bool) -> tuple[int, bool]:
    """Reads one answer (its body dropped): (status, whether the connection stays open)."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError as exc:
        raise BadAnswer(f"answer head over {MAX_HEAD_BYTES} bytes") from exc
    lines = head[:-4].decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/1.") or not status_line[1].isdigit():
        raise BadAnswer(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    status = int(status_line[1])
    fields: dict[str, str] = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        fields[name.strip().lower()] = value.strip()
    keep = fields.get("connection", "").lower() != "close" and status_line[0] == "HTTP/1.1"
    if head_only or status in (204, 304) or 100 <= status < 200:
        return status, keep
    if "chunked" in fields.get("transfer-encoding", "").lower():
        while True:
            size_line = await reader.readuntil(b"\r\n")
            size = int(size_line.split(b";", 1)[0].strip() or b"x", 16)
            if size == 0:
                while await reader.readuntil(b"\r\n") != b"\r\n":  # trailers, then the empty line
                    pass
                return status, keep
            await _drop(reader, size + 2)
    if "content-length" in fields:
        if not fields["content-length"].isdigit():
            raise BadAnswer(f"Content-Length {fields['content-length']!r}")
        await _drop(reader, int(fields["content-length"]))
        return status, keep
    while await reader.read(READ_PIECE):  # delimited by the end of the connection
        pass
    return status, False


async def _drop(reader: asyncio.StreamReader, count: int) -> None:
    while count > 0:
        piece = await reader.readexactly(min(count, READ_PIECE))
        count -= len(piece)


class Connection:
    """One keep-alive connection, opened on first use and again after a close or an error."""

    def __init__(self, target: Target, timeout: float) -> None:
        self.target = target
        self.timeout = timeout
        self.streams: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None

    async def exchange(self) -> int:
        """Sends the request and reads its answer; raises on a transport failure (the connection is closed)."""
        try:
            return await asyncio.wait_for(self._exchange(), self.timeout)
        except BaseException:
            self.close()
            raise

    async def _exchange(self) -> int:
        if self.streams is None:
            self.streams = await asyncio.open_connection(self.target.host, self.target.port, limit=MAX_HEAD_BYTES)
        reader, writer = self.streams
        writer.write(self.target.request)
        await writer.drain()
        status, keep = await read_answer(reader, self.target.head_only)
        if not keep:
            self.close()
        return status

    def close(self) -> None:
        if self.streams is not None:
            self.streams[1].close()
            self.streams = None


def _error_name(exc: BaseException) -> str:
    if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
        return "timeout"
    if isinstance(exc, asyncio.IncompleteReadError):
        return "closed mid-answer"
    return type(exc).__name__


async def closed_loop(target: Target, connections: int, warmup: float, duration: float, timeout: float) -> Results:
    results = Results()
    loop = asyncio.get_running_loop()
    measure_from = loop.time() + warmup
    deadline = measure_from + duration

    async def worker() -> None:
        connection = Connection(target, timeout)
        while (start := loop.time()) < deadline:
            try:
                status = await connection.exchange()
            except (OSError, asyncio.TimeoutError, BadAnswer, asyncio.IncompleteReadError, ValueError) as exc:
                if start >= measure_from:
                    results.errors[_error_name(exc)] += 1
                await asyncio.sleep(0.01)  # a refused or failing server is not hammered in a tight loop
                continue
            if start >= measure_from:
                results.latencies.append(loop.time() - start)
                results.statuses[status] += 1
        connection.close()

    await asyncio.gather(*(worker() for _ in range(connections)))
    return results


async def open_loop(
    target: Target, connections: int, rate: float, warmup: float, duration: float, timeout: float
) -> Results:
    """Requests scheduled at `rate` per second; latency from each one's scheduled time."""
    results = Results()
    loop = asyncio.get_running_loop()
    start = loop.time()
    total = int(rate * (warmup + duration))
    measured_from = int(rate * warmup)  # the requests scheduled in the warm-up are not recorded
    queue: asyncio.Queue[tuple[int, float] | None] = asyncio.Queue()

    async def schedule() -> None:
        for i in range(total):
            due = start + i / rate
            if due > loop.time():
                await asyncio.sleep(due - loop.time())
            queue.put_nowait((i, due))
        for _ in range(connections):
            queue.put_nowait(None)

    async def worker() -> None:
        connection = Connection(target, timeout)
        while (item := await queue.get()) is not None:
            index, due = item
            try:
                status = await connection.exchange()
            except (OSError, asyncio.TimeoutError, BadAnswer, asyncio.IncompleteReadError, ValueError) as exc:
                if index >= measured_from:
                    results.errors[_error_name(exc)] += 1
                continue
            if index >= measured_from:
                results.latencies.append(loop.time() - due)
                results.statuses[status] += 1
        connection.close()

    await asyncio.gather(schedule(), *(worker() for _ in range(connections)))
    return results


def add_command(commands: Any) -> None:
    sub = commands.add_parser(
        "bench",
        help="load an HTTP/1.1 server: closed loop, or open loop at a constant rate",
        description="Send requests to URL and print throughput, statuses, errors and latency percentiles. "
        "Closed loop by default; --rate R schedules R requests per second (open loop) and measures each "
        "latency from its scheduled time, so stalls are not hidden (coordinated omission corrected). "
        "HTTP/1.1 over TCP only (no TLS, no HTTP/2 yet).",
    )
    sub.add_argument("url", help="http://HOST[:PORT]/PATH[?QUERY]")
    sub.add_argument(
        "-c", "--connections", type=int, default=16, help=f"keep-alive connections, 1-{MAX_CONNECTIONS} (default 16)"
    )
    sub.add_argument("-d", "--duration", type=float, default=10.0, help="seconds measured (default 10)")
    sub.add_argument("--warmup", type=float, default=1.0, help="seconds run first and not measured (default 1)")
    sub.add_argument(
        "-r", "--rate", type=float, default=0.0, help="open loop: requests scheduled per second (default: closed loop)"
    )
    sub.add_argument("-m", "--method", default="GET", help="request method (default GET)")
    sub.add_argument("-H", "--header", action="append", default=[], help="NAME:VALUE, repeatable")
    sub.add_argument("--body", default="", help="request body; @FILE reads it from a file")
    sub.add_argument(
        "--timeout", type=float, default=10.0, help="seconds per request before it counts as an error (default 10)"
    )
    sub.add_argument("--json", action="store_true", help="print the summary as one JSON object")


def _check(args: argparse.Namespace) -> str | None:
    if not 1 <= args.connections <= MAX_CONNECTIONS:
        return f"--connections must be 1 to {MAX_CONNECTIONS}"
    if not 0 < args.duration <= MAX_DURATION_S or not 0 <= args.warmup <= MAX_DURATION_S:
        return f"--duration must be over 0 and --warmup at least 0, both at most {MAX_DURATION_S:g} s"
    if args.rate < 0 or args.rate * (args.duration + args.warmup) > MAX_REQUESTS:
        return f"--rate must be at least 0, with rate x (duration + warm-up) at most {MAX_REQUESTS}"
    if not 0 < args.timeout <= MAX_DURATION_S:
        return "--timeout must be over 0"
    if not args.method.isalpha() or not args.method.isupper():
        return f"--method {args.method!r}: an upper-case token such as GET or POST"
    return None


def _body(value: str) -> bytes:
    if not value.startswith("@"):
        return value.encode()
    with open(value[1:], "rb") as f:
        data = f.read(MAX_BODY_BYTES + 1)
    if len(data) > MAX_BODY_BYTES:
        raise ValueError(f"{value[1:]}: a body is at most {MAX_BODY_BYTES} bytes")
    return data


def _text(args: argparse.Namespace, summary: dict[str, Any]) -> str:
    mode = (
        f"open loop at {args.rate:g} requests/s (latency from each request's scheduled time)"
        if args.rate
        else "closed loop"
    )
    header = (
        f"{args.method} {args.url}: {mode}, {args.connections} connection(s), {args.duration:g} s measured "
        f"after {args.warmup:g} s of warm-up"
    )
    lines = [
        header,
        f"responses: {summary['responses']} ({summary['per_second']:.1f}/s)",
        "statuses: " + (", ".join(f"{k} x {v}" for k, v in summary["statuses"].items()) or "none"),
        "errors: " + (", ".join(f"{k} x {v}" for k, v in summary["errors"].items()) or "none"),
    ]
    ms = summary["latency_ms"]
    if ms:
        order = ["mean", *(f"p{p:g}" for p in PERCENTILES), "max"]
        lines.append("latency (ms): " + ", ".join(f"{k} {ms[k]:.3f}" for k in order))
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Exit 0 when every request was answered, 1 when some failed, 2 on bad arguments."""
    problem = _check(args)
    try:
        target = None if problem else parse_target(args.url, args.method, args.header, _body(args.body))
    except (ValueError, OSError) as exc:
        problem = str(exc)
    if problem or target is None:
        sys.stderr.write(f"error: {problem}\n")
        return 2
    began = time.monotonic()
    if args.rate:
        work = open_loop(target, args.connections, args.rate, args.warmup, args.duration, args.timeout)
    else:
        work = closed_loop(target, args.connections, args.warmup, args.duration, args.timeout)
    results = asyncio.run(work)
    # Open loop: the measured span is the schedule's, plus the time the last answers took.
    elapsed = args.duration if not args.rate else max(args.duration, time.monotonic() - began - args.warmup)
    summary = results.summary(elapsed)
    summary.update(mode="open" if args.rate else "closed", connections=args.connections, url=args.url)
    sys.stdout.write(json.dumps(summary) + "\n" if args.json else _text(args, summary))
    return 1 if results.errors or not results.latencies else 0
