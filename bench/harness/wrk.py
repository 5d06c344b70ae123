"""Builds wrk command lines and parses wrk's text report (throughput, latency distribution, errors)."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

_TIME_UNITS_US = {"us": 1.0, "ms": 1_000.0, "s": 1_000_000.0, "m": 60_000_000.0, "h": 3_600_000_000.0}
_SIZE_UNITS = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}

_RE_HEADER = re.compile(r"^\s*(\d+) threads and (\d+) connections", re.MULTILINE)
_RE_PERCENTILE = re.compile(r"^\s*(\d+(?:\.\d+)?)%\s+([\d.]+)(us|ms|s|m|h)\s*$", re.MULTILINE)
_RE_TOTAL = re.compile(r"^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h), ([\d.]+)(B|KB|MB|GB|TB) read", re.MULTILINE)
_RE_SOCKET = re.compile(
    r"^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", re.MULTILINE)
_RE_NON2XX = re.compile(r"^\s*Non-2xx or 3xx responses: (\d+)", re.MULTILINE)
_RE_RPS = re.compile(r"^Requests/sec:\s+([\d.]+)", re.MULTILINE)
_RE_LATENCY = re.compile(r"^\s*Latency\s+([\d.]+)(us|ms|s|m|h)\s+([\d.]+)(us|ms|s|m|h)\s+([\d.]+)(us|ms|s|m|h)", re.MULTILINE)


class WrkParseError(ValueError):
    """wrk's output did not have the shape we rely on; no number may be reported from it."""


@dataclass
class WrkResult:
    threads: int
    connections: int
    requests: int              # every response wrk completed, whatever its status
    duration_s: float
    bytes_read: float
    non_2xx: int               # wrk's "Non-2xx or 3xx responses"
    socket_errors: dict[str, int]
    requests_per_s: float      # wrk's own figure (all statuses)
    latency_avg_us: float
    latency_max_us: float
    percentiles_us: dict[float, float] = field(default_factory=dict)

    @property
    def ok_requests(self) -> int:
        return self.requests - self.non_2xx

    @property
    def ok_per_s(self) -> float:
        """Throughput counting only 2xx responses (wrk counts 3xx with 2xx; no contender here sends 3xx)."""
        return self.ok_requests / self.duration_s if self.duration_s > 0 else 0.0

    @property
    def socket_error_total(self) -> int:
        return sum(self.socket_errors.values())


def last_line(text: str) -> str:
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    return lines[-1][:300] if lines else "no output"


def to_us(value: str, unit: str) -> float:
    return float(value) * _TIME_UNITS_US[unit]


def parse(text: str) -> WrkResult:
    """Parses `wrk --latency` output. Raises WrkParseError when a required line is missing."""
    header = _RE_HEADER.search(text)
    total = _RE_TOTAL.search(text)
    rps = _RE_RPS.search(text)
    latency = _RE_LATENCY.search(text)
    if not (header and total and rps and latency):
        raise WrkParseError("not a complete wrk report: " + last_line(text))
    percentiles = {float(m.group(1)): to_us(m.group(2), m.group(3)) for m in _RE_PERCENTILE.finditer(text)}
    if "Latency Distribution" in text and not percentiles:
        raise WrkParseError("latency distribution present but unparsable")
    socket = _RE_SOCKET.search(text)
    errors = dict(zip(("connect", "read", "write", "timeout"),
                      (int(g) for g in socket.groups()) if socket else (0, 0, 0, 0)))
    non2xx = _RE_NON2XX.search(text)
    return WrkResult(
        threads=int(header.group(1)),
        connections=int(header.group(2)),
        requests=int(total.group(1)),
        duration_s=to_us(total.group(2), total.group(3)) / 1e6,
        bytes_read=float(total.group(4)) * _SIZE_UNITS[total.group(5)],
        non_2xx=int(non2xx.group(1)) if non2xx else 0,
        socket_errors=errors,
        requests_per_s=float(rps.group(1)),
        latency_avg_us=to_us(latency.group(1), latency.group(2)),
        latency_max_us=to_us(latency.group(5), latency.group(6)),
        percentiles_us=percentiles,
    )


def command(url: str, *, duration_s: int, connections: int, threads: int = 1, script: str | None = None,
            script_args: list[str] | None = None, timeout_s: int = 5) -> list[str]:
    """The wrk command line (closed loop, --latency); pinning is added by the caller."""
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{duration_s}s", f"--timeout={timeout_s}s", "--latency"]
    if script:
        cmd += ["-s", script]
    cmd.append(url)
    if script_args:
        cmd += ["--", *script_args]
    return cmd
