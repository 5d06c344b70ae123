"""Builds h2load (HTTP/2) command lines and parses its summary and per-request log into the wrk result shape."""
from __future__ import annotations

import re

from .stats import percentile
from .wrk import WrkParseError, WrkResult, last_line, to_us

_RE_FINISHED = re.compile(r"^finished in ([\d.]+)(us|ms|s|m|h), ([\d.]+) req/s", re.MULTILINE)
_RE_REQUESTS = re.compile(
    r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout",
    re.MULTILINE)
_RE_STATUS = re.compile(r"^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", re.MULTILINE)
_RE_TRAFFIC = re.compile(r"^traffic: .*?\((\d+)\) total", re.MULTILINE)
_RE_TLS_PROTOCOL = re.compile(r"^TLS Protocol: (\S+)", re.MULTILINE)
_RE_CIPHER = re.compile(r"^Cipher: (\S+)", re.MULTILINE)
_RE_TEMP_KEY = re.compile(r"^Server Temp Key: (\S+)", re.MULTILINE)
_RE_ALPN = re.compile(r"^Application protocol: (\S+)", re.MULTILINE)
_RE_REQ_TIME = re.compile(r"^time for request:\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)\s+([\d.]+)(us|ms|s)", re.MULTILINE)


def parse_log(text: str) -> list[float]:
    """h2load --log-file lines: start time (us), status, latency (us). Returns latencies in us."""
    latencies = []
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            latencies.append(float(parts[2]))
    return latencies


def tls_session(text: str) -> str | None:
    """What h2load negotiated over TLS ("TLSv1.3 TLS_AES_256_GCM_SHA384 X25519 h2"), None for cleartext."""
    protocol = _RE_TLS_PROTOCOL.search(text)
    if not protocol:
        return None
    parts = [protocol.group(1)] + [m.group(1) for m in (_RE_CIPHER.search(text), _RE_TEMP_KEY.search(text),
                                                         _RE_ALPN.search(text)) if m]
    return " ".join(parts)


def parse(text: str, log_text: str, connections: int) -> WrkResult:
    """Parses h2load's report; percentiles come from the per-request log."""
    finished = _RE_FINISHED.search(text)
    requests = _RE_REQUESTS.search(text)
    status = _RE_STATUS.search(text)
    req_time = _RE_REQ_TIME.search(text)
    if not (finished and requests and status):
        raise WrkParseError("not a complete h2load report: " + last_line(text))
    done = int(requests.group(3))
    # Counted from the other classes: timed runs (-D) count a status for responses that end after the window
    # closed, so 2xx can exceed "done".
    other = sum(int(status.group(i)) for i in (2, 3, 4))
    latencies = sorted(parse_log(log_text))
    percentiles = {p: percentile(latencies, p) for p in (50.0, 75.0, 90.0, 99.0)} if latencies else {}
    traffic = _RE_TRAFFIC.search(text)
    return WrkResult(
        threads=1,
        connections=connections,
        requests=done,
        duration_s=to_us(finished.group(1), finished.group(2)) / 1e6,
        bytes_read=float(traffic.group(1)) if traffic else 0.0,
        non_2xx=other,
        socket_errors={"connect": 0, "read": int(requests.group(6)), "write": 0,
                       "timeout": int(requests.group(7))},
        requests_per_s=float(finished.group(3)),
        latency_avg_us=to_us(req_time.group(5), req_time.group(6)) if req_time else 0.0,
        latency_max_us=to_us(req_time.group(3), req_time.group(4)) if req_time else 0.0,
        percentiles_us=percentiles,
    )


def command(url: str, *, duration_s: int, connections: int, streams: int, log_file: str) -> list[str]:
    """h2load, one client thread, timing-based: http:// is HTTP/2 with prior knowledge, https:// ALPN h2."""
    return ["h2load", "-t1", f"-c{connections}", f"-m{streams}", "-D", str(duration_s),
            f"--log-file={log_file}", url]
