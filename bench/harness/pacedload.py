"""bench/tools/http_paced (our open-loop HTTP/1.1 load generator): where it is, its command line, its JSON report."""
from __future__ import annotations

import json
import os
import subprocess

from .wrk import WrkParseError, WrkResult
from .wsload import BUILD_SCRIPT, build_dir

DEFAULT_RATE = 20000  # requests per second, all connections together: below every contender's capacity here


def binary() -> str:
    return os.path.join(build_dir(), "bench", "http_paced")


def build(dest: str | None = None) -> str:
    """Compiles http_paced (bench/tools/build.sh, g++ -O2; a no-op when up to date). Returns its path."""
    dest = dest or binary()
    subprocess.run(["bash", BUILD_SCRIPT, dest], check=True, capture_output=True, timeout=300)
    return dest


def command(port: int, *, host: str, path: str, connections: int, rate: int, duration_s: float,
            warmup_s: float = 1.0, exe: str | None = None) -> list[str]:
    """A fixed `rate` over `connections` for warmup_s unmeasured, then duration_s measured seconds."""
    return [exe or binary(), "--host", host, "--port", str(port), "--path", path, "--connections", str(connections),
            "--rate", str(rate), "--duration", str(duration_s), "--warmup", str(warmup_s)]


def parse(text: str) -> WrkResult:
    """http_paced's JSON line as the wrk result shape. Requests due in the measured window but never answered
    (the server fell behind by more than the grace period, or dropped the connection) count as timeouts."""
    line = next((ln for ln in reversed(text.splitlines()) if ln.startswith("{")), None)
    try:
        doc = json.loads(line) if line else None
    except json.JSONDecodeError:
        doc = None
    if not isinstance(doc, dict) or doc.get("tool") != "http_paced":
        raise WrkParseError("not an http_paced report: " + (text.strip().splitlines() or ["no output"])[-1][:300])
    errors = doc["errors"]
    answered = int(doc["requests"]) + int(doc["non_2xx"])
    return WrkResult(
        threads=1,
        connections=int(doc["connections"]),
        requests=answered,
        duration_s=float(doc["duration_s"]),
        bytes_read=0.0,
        non_2xx=int(doc["non_2xx"]),
        socket_errors={"connect": int(errors["connect"]),
                       "read": int(errors["read"]) + int(errors["closed"]) + int(errors["protocol"]),
                       "write": int(errors["write"]), "timeout": int(errors["unanswered"])},
        requests_per_s=float(doc["requests_per_s"]),
        latency_avg_us=float(doc["latency_avg_us"]),
        latency_max_us=float(doc["latency_max_us"]),
        percentiles_us={float(k): float(v) for k, v in doc["latency_us"].items()} if doc["requests"] else {},
    )
