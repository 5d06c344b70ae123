"""Pre-flight: fetches each workload's probes once and checks status, content type and body bytes."""
from __future__ import annotations

import http.client
import re
import shutil
import subprocess

from .procs import unverified_tls_context
from .workloads import Probe, Workload


def check_response(probe: Probe, status: int, content_type: str | None, body: bytes) -> str | None:
    """None when the response is what every contender must send, else a one-line reason."""
    where = f"{probe.method} {probe.path}"
    if status != probe.status:
        return f"{where}: status {status}, expected {probe.status}"
    if probe.content_type is not None:
        media_type = (content_type or "").split(";")[0].strip().lower()
        if media_type != probe.content_type:
            return f"{where}: content type {content_type!r}, expected {probe.content_type!r}"
    if probe.expected_body is not None and body != probe.expected_body:
        return f"{where}: body differs ({len(body)} bytes, starts {body[:60]!r}; expected {len(probe.expected_body)} " \
               f"bytes, starts {probe.expected_body[:60]!r})"
    return None


def fetch_h1(host: str, port: int, probe: Probe, timeout_s: float = 10.0,
             tls: bool = False) -> tuple[int, str | None, bytes]:
    conn = http.client.HTTPSConnection(host, port, timeout=timeout_s, context=unverified_tls_context()) if tls \
        else http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        headers = {"Content-Type": "application/json"} if probe.body is not None else {}
        conn.request(probe.method, probe.path, body=probe.body, headers=headers)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type"), response.read()
    finally:
        conn.close()


def fetch_h2(host: str, port: int, probe: Probe, timeout_s: float = 10.0,
             tls: bool = False) -> tuple[int, str | None, bytes]:
    """HTTP/2 through nghttp (nghttp2-client): prior knowledge, or ALPN h2 over TLS (certificate not verified).
    Status and type from -v, body from a plain run."""
    if shutil.which("nghttp") is None:
        raise OSError("nghttp (nghttp2-client) not installed")
    url = f"{'https' if tls else 'http'}://{host}:{port}{probe.path}"
    verbose = subprocess.run(["nghttp", "-v", url], capture_output=True, timeout=timeout_s,
                             check=False).stdout.decode("latin-1")
    status = re.search(r"^\[.*?\] recv \(stream_id=\d+\) :status: (\d+)", verbose, re.MULTILINE)
    ctype = re.search(r"^\[.*?\] recv \(stream_id=\d+\) content-type: (\S+)", verbose, re.MULTILINE)
    body = subprocess.run(["nghttp", url], capture_output=True, timeout=timeout_s, check=False).stdout
    if not status:
        raise OSError("no HTTP/2 response")
    return int(status.group(1)), ctype.group(1) if ctype else None, body


def run(host: str, port: int, workload: Workload) -> str | None:
    """None when every probe of the workload passes, else the first failure."""
    fetch = fetch_h2 if workload.load == "h2load" else fetch_h1
    for probe in workload.probes:
        try:
            status, content_type, body = fetch(host, port, probe, tls=workload.tls)
        except (OSError, http.client.HTTPException, subprocess.TimeoutExpired) as error:
            return f"{probe.method} {probe.path}: {type(error).__name__}: {error}"
        failure = check_response(probe, status, content_type, body)
        if failure:
            return failure
    return None
