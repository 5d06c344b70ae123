"""bench/tools/ws_load (our WebSocket echo load generator): where it is, its command line, its JSON report."""
from __future__ import annotations

import json
import os
import subprocess

from .wrk import WrkParseError, WrkResult

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(BENCH_DIR)
BUILD_SCRIPT = os.path.join(BENCH_DIR, "tools", "build.sh")
MESSAGE_SIZE = 32


def build_dir() -> str:
    """The C++ build folder: SLIPSTREAM_BUILD_DIR (as tests/conftest.py) or build/."""
    return os.path.join(REPO_DIR, os.environ.get("SLIPSTREAM_BUILD_DIR", "build"))


def binary() -> str:
    return os.path.join(build_dir(), "bench", "ws_load")


def build(dest: str | None = None) -> str:
    """Compiles ws_load (bench/tools/build.sh, g++ -O2; a no-op when up to date). Returns its path."""
    dest = dest or binary()
    subprocess.run(["bash", BUILD_SCRIPT, dest], check=True, capture_output=True, timeout=300)
    return dest


def command(port: int, *, host: str, path: str, connections: int, depth: int, duration_s: float | None = None,
            messages: int | None = None, size: int = MESSAGE_SIZE, exe: str | None = None) -> list[str]:
    """Runs for duration_s seconds, or until `messages` echoes came back (then with a 30 s limit)."""
    argv = [exe or binary(), "--host", host, "--port", str(port), "--path", path, "--connections", str(connections),
            "--depth", str(depth), "--size", str(size)]
    if messages is not None:
        return argv + ["--messages", str(messages), "--timeout", "30"]
    return argv + ["--duration", str(duration_s)]


def parse(text: str) -> WrkResult:
    """ws_load's JSON line as the wrk result shape: a message is a request; a wrong echo counts as non-2xx."""
    line = next((ln for ln in reversed(text.splitlines()) if ln.startswith("{")), None)
    try:
        doc = json.loads(line) if line else None
    except json.JSONDecodeError:
        doc = None
    if not isinstance(doc, dict) or doc.get("tool") != "ws_load":
        raise WrkParseError("not a ws_load report: " + (text.strip().splitlines() or ["no output"])[-1][:300])
    errors = doc["errors"]
    return WrkResult(
        threads=1,
        connections=int(doc["connections"]),
        requests=int(doc["messages"]),
        duration_s=float(doc["duration_s"]),
        bytes_read=float(doc["messages"] * doc["size"]),
        non_2xx=int(doc["bad_echoes"]),
        socket_errors={"connect": int(errors["connect"]) + int(errors["handshake"]),
                       "read": int(errors["read"]) + int(errors["closed"]) + int(errors["protocol"]),
                       "write": int(errors["write"]), "timeout": 1 if doc.get("timed_out") else 0},
        requests_per_s=float(doc["msgs_per_s"]),
        latency_avg_us=float(doc["latency_avg_us"]),
        latency_max_us=float(doc["latency_max_us"]),
        percentiles_us={float(k): float(v) for k, v in doc["latency_us"].items()} if doc["messages"] else {},
    )


def probe(host: str, port: int, path: str, messages: int = 20, exe: str | None = None) -> str | None:
    """Pre-flight: one connection, `messages` echoes checked byte for byte. None when all came back intact."""
    exe = exe or binary()
    if not os.access(exe, os.X_OK):
        return f"{os.path.relpath(exe, REPO_DIR)} not built (run bench/setup.sh)"
    argv = command(port, host=host, path=path, connections=1, depth=2, messages=messages, exe=exe)
    try:
        out = subprocess.run(argv, check=False, capture_output=True, text=True, timeout=40)
        result = parse(out.stdout)
    except (OSError, subprocess.TimeoutExpired, WrkParseError) as error:
        return f"WebSocket {path}: {type(error).__name__}: {error}"
    if result.socket_error_total or result.requests != messages or result.non_2xx:
        return (f"WebSocket {path}: {result.requests} of {messages} echoes, {result.non_2xx} differed, "
                f"errors {result.socket_errors}: {out.stdout.strip()[:200]}")
    return None
