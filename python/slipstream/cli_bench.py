"""`slipstream bench URL`: a load generator for HTTP/1.1 and HTTP/2, over TCP or TLS, with a text (or JSON)
summary and an optional HTML report. The loops, connections and report are in slipstream._bench."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from typing import Any

from ._bench import http2
from ._bench.loops import PERCENTILES, closed_loop, open_loop
from ._bench.report import render
from ._bench.target import parse_target

MAX_CONNECTIONS = 10_000
MAX_STREAMS = 1_000  # HTTP/2 streams per connection
MAX_DURATION_S = 3_600.0
MAX_REQUESTS = 10_000_000  # open loop: rate x duration
MAX_BODY_BYTES = 16 * 1024 * 1024  # the request body given with --body


def add_command(commands: Any) -> None:
    sub = commands.add_parser(
        "bench",
        help="load an HTTP server: closed loop, or open loop at a constant rate",
        description="Send requests to URL and print throughput, statuses, errors and latency percentiles. "
        "Closed loop by default; --rate R schedules R requests per second (open loop) and measures each "
        "latency from its scheduled time, so stalls are not hidden (coordinated omission corrected). "
        "HTTP/1.1 by default, HTTP/2 with --http2 (ALPN h2 over https://, prior knowledge over http://); "
        "--report FILE writes an HTML page with the latency and throughput charts.",
    )
    sub.add_argument("url", help="http[s]://HOST[:PORT]/PATH[?QUERY]")
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
    sub.add_argument(
        "--http2",
        action="store_true",
        help="HTTP/2: ALPN h2 over https://, prior knowledge (h2c) over http:// (needs the h2 package)",
    )
    sub.add_argument(
        "--streams",
        type=int,
        default=1,
        help=f"HTTP/2: concurrent streams per connection, 1-{MAX_STREAMS} (default 1)",
    )
    sub.add_argument("--insecure", action="store_true", help="https://: do not verify the server's certificate")
    sub.add_argument("--cacert", metavar="FILE", help="https://: verify the server against the CAs in FILE")
    sub.add_argument("--report", metavar="FILE", help="also write an HTML report (summary, latency, throughput)")


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
    if not 1 <= args.streams <= MAX_STREAMS:
        return f"--streams must be 1 to {MAX_STREAMS}"
    if args.streams > 1 and not args.http2:
        return "--streams applies to --http2 only (an HTTP/1.1 connection carries one request at a time)"
    if args.http2 and not http2.available():
        return "--http2 needs the h2 package: pip install 'slipstream[bench]'"
    return None


def _body(value: str) -> bytes:
    if not value.startswith("@"):
        return value.encode()
    with open(value[1:], "rb") as f:
        data = f.read(MAX_BODY_BYTES + 1)
    if len(data) > MAX_BODY_BYTES:
        raise ValueError(f"{value[1:]}: a body is at most {MAX_BODY_BYTES} bytes")
    return data


def _header(args: argparse.Namespace) -> str:
    mode = (
        f"open loop at {args.rate:g} requests/s (latency from each request's scheduled time)"
        if args.rate
        else "closed loop"
    )
    protocol = f"HTTP/2, {args.streams} stream(s) per connection" if args.http2 else "HTTP/1.1"
    return (
        f"{args.method} {args.url}: {mode}, {protocol}, {args.connections} connection(s), {args.duration:g} s "
        f"measured after {args.warmup:g} s of warm-up"
    )


def _text(args: argparse.Namespace, summary: dict[str, Any]) -> str:
    lines = [
        _header(args),
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
        target = (
            None
            if problem
            else parse_target(
                args.url,
                args.method,
                args.header,
                _body(args.body),
                http2=args.http2,
                insecure=args.insecure,
                cafile=args.cacert,
            )
        )
    except (ValueError, OSError) as exc:
        problem = str(exc)
    if problem or target is None:
        sys.stderr.write(f"error: {problem}\n")
        return 2
    began = time.monotonic()
    if args.rate:
        work = open_loop(target, args.connections, args.streams, args.rate, args.warmup, args.duration, args.timeout)
    else:
        work = closed_loop(target, args.connections, args.streams, args.warmup, args.duration, args.timeout)
    results = asyncio.run(work)
    # Open loop: the measured span is the schedule's, plus the time the last answers took.
    elapsed = args.duration if not args.rate else max(args.duration, time.monotonic() - began - args.warmup)
    summary = results.summary(elapsed)
    summary.update(
        mode="open" if args.rate else "closed",
        connections=args.connections,
        protocol="h2" if args.http2 else "http/1.1",
        streams=args.streams,
        url=args.url,
    )
    if args.report:
        try:
            with open(args.report, "w", encoding="utf-8") as f:
                f.write(render(_header(args), summary, results.latencies, results.answered_at))
        except OSError as exc:
            sys.stderr.write(f"error: --report {args.report}: {exc.strerror or exc}\n")
            return 2
    sys.stdout.write(json.dumps(summary) + "\n" if args.json else _text(args, summary))
    return 1 if results.errors or not results.latencies else 0
