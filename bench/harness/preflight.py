"""Pre-flight: fetches each workload's probes once and checks status, content type and body bytes."""
from __future__ import annotations

import dataclasses
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
    if probe.body_prefix is not None and not body.startswith(probe.body_prefix):
        return f"{where}: body starts {body[:60]!r}, expected {probe.body_prefix!r}"
    return None


@dataclasses.dataclass(frozen=True)
class Answer:
    """The bytes a probe's first answer in the run carried, and who sent them."""
    contender: str
    body: bytes


class RunBytes:
    """Expected bodies learned during a run, for probes whose bytes come from the database
    (Probe.expected_from_run): the first contender whose answer passes the probe's own checks sets them; every
    later answer, from any contender and start, must be the same bytes."""

    def __init__(self) -> None:
        self.answers: dict[tuple[str, str], Answer] = {}

    def check(self, probe: Probe, contender: str, status: int, content_type: str | None,
              body: bytes) -> tuple[str | None, Answer | None]:
        """(failure or None, the Answer this response set as the run's expected bytes, or None)."""
        if not probe.expected_from_run:
            return check_response(probe, status, content_type, body), None
        key = (probe.method, probe.path)
        known = self.answers.get(key)
        if known is None:
            failure = check_response(probe, status, content_type, body)
            if failure:
                return failure, None
            self.answers[key] = Answer(contender, body)
            return None, self.answers[key]
        failure = check_response(dataclasses.replace(probe, expected_body=known.body), status, content_type, body)
        return (f"{failure} (expected: what {known.contender} answered first in this run)" if failure else None), None


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


def run(host: str, port: int, workload: Workload, run_bytes: RunBytes | None = None, contender: str = "",
        learned: list[Answer] | None = None) -> str | None:
    """None when every probe of the workload passes, else the first failure. Probes whose bytes come from the
    database are compared through run_bytes (the run's first answer); the answers that set them go to learned."""
    fetch = fetch_h2 if workload.load == "h2load" else fetch_h1
    run_bytes = run_bytes if run_bytes is not None else RunBytes()
    for probe in workload.probes:
        try:
            status, content_type, body = fetch(host, port, probe, tls=workload.tls)
        except (OSError, http.client.HTTPException, subprocess.TimeoutExpired) as error:
            return f"{probe.method} {probe.path}: {type(error).__name__}: {error}"
        failure, answer = run_bytes.check(probe, contender, status, content_type, body)
        if failure:
            return failure
        if answer is not None and learned is not None:
            learned.append(answer)
    return None
