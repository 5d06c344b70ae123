"""Starting, readiness-polling and stopping a contender's server process group, pinned to a CPU."""
from __future__ import annotations

import http.client
import os
import resource
import signal
import socket
import ssl
import subprocess
import time

SERVER_CPU = 0
CLIENT_CPU = 1


class CpuLayout:
    """Which CPUs the server and the load generator get, for a server of `server_cpus` processes.

    One worker: server on the first CPU, client on the second (BENCHMARKING.md). More: the server on the first
    `server_cpus` CPUs and the client on up to as many of the next ones; `shared` when the machine has fewer
    than twice the server's CPUs, in which case the client runs on the server's CPUs (figures not meaningful).
    The harness itself stays on the last CPU (the client's for one worker, as before)."""

    def __init__(self, available: list[int], server_cpus: int = 1):
        cpus = sorted(available) or [0]
        self.available = cpus
        if server_cpus <= 1:
            self.server = cpus[:1]
            self.client = cpus[1:2] or cpus[:1]
            self.shared = len(cpus) < 2
        else:
            self.server = cpus[:server_cpus]
            self.client = cpus[server_cpus:2 * server_cpus] or cpus[-1:]
            self.shared = len(cpus) < 2 * server_cpus
        self.harness = cpus[-1]

    @property
    def server_spec(self) -> str:
        return cpu_list(self.server)

    @property
    def client_spec(self) -> str:
        return cpu_list(self.client)


def cpu_list(cpus: list[int]) -> str:
    """taskset's list form: 0 / 0,1 / 2-5."""
    cpus = sorted(cpus)
    if len(cpus) > 2 and cpus == list(range(cpus[0], cpus[-1] + 1)):
        return f"{cpus[0]}-{cpus[-1]}"
    return ",".join(str(c) for c in cpus)


def available_cpus() -> list[int]:
    """The CPUs this process may run on (before the harness pins itself)."""
    if hasattr(os, "sched_getaffinity"):
        return sorted(os.sched_getaffinity(0))
    return list(range(os.cpu_count() or 1))


class ServerError(RuntimeError):
    """The server did not start or did not answer."""


def raise_fd_limit(wanted: int = 65536) -> int:
    """Raises RLIMIT_NOFILE of this process (inherited by the servers and clients it starts).

    As root the hard limit itself is raised to `wanted`; otherwise the soft limit goes up to the hard one.
    Returns the soft limit now in force.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return wanted
        except (ValueError, OSError):
            pass
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen, timeout: float = 15) -> None:
    """SIGTERM, then SIGKILL when the process has not exited within `timeout` seconds."""
    proc.terminate()
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def pin_self(cpu: int = CLIENT_CPU) -> None:
    """Keeps the harness itself off the server's CPU."""
    if hasattr(os, "sched_setaffinity") and cpu in os.sched_getaffinity(0):
        os.sched_setaffinity(0, {cpu})


def pinned(argv: list[str], cpu: int | str) -> list[str]:
    """argv under `taskset -c CPUS` (one CPU number or a list such as "0,1")."""
    return ["taskset", "-c", str(cpu), *argv]


def unverified_tls_context() -> ssl.SSLContext:
    """The harness's own TLS client: the bench certificate is self-signed, so nothing is verified."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context


class ServerProcess:
    """One contender's server, started in its own session so the whole tree can be stopped."""

    def __init__(self, argv: list[str], *, cwd: str, env: dict[str, str], log_path: str,
                 stop_signal: int = signal.SIGTERM, cpu: int | str = SERVER_CPU):
        self.argv = pinned(argv, cpu)
        self.cwd, self.env, self.log_path, self.stop_signal = cwd, env, log_path, stop_signal
        self.proc: subprocess.Popen | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def start(self) -> None:
        with open(self.log_path, "ab") as log:
            self.proc = subprocess.Popen(self.argv, cwd=self.cwd, env=self.env, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)

    def wait_ready(self, host: str, port: int, path: str, timeout_s: float = 30.0, tls: bool = False) -> None:
        """Polls until the server answers any HTTP response on path; fails early if it exits."""
        deadline = time.monotonic() + timeout_s
        last_error = "no attempt"
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerError(f"exited with status {self.proc.returncode} before answering: {self.log_tail()}")
            try:
                conn = (http.client.HTTPSConnection(host, port, timeout=2, context=unverified_tls_context()) if tls
                        else http.client.HTTPConnection(host, port, timeout=2))
                conn.request("GET", path)
                conn.getresponse().read()
                conn.close()
                return
            except (OSError, http.client.HTTPException) as error:
                last_error = str(error)
                time.sleep(0.05)
        raise ServerError(f"no answer within {timeout_s:.0f}s ({last_error}): {self.log_tail()}")

    def log_tail(self) -> str:
        """The server log's last non-empty line (why it died, usually)."""
        try:
            with open(self.log_path, "rb") as f:
                f.seek(max(0, os.path.getsize(self.log_path) - 4096))
                lines = [ln.strip() for ln in f.read().decode("utf-8", "replace").splitlines() if ln.strip()]
        except OSError:
            return "no log"
        return lines[-1][:300] if lines else "empty log"

    def stop(self, grace_s: float = 5.0) -> None:
        """Signals the process group we created, then kills what is left of it."""
        if self.proc is None or self.proc.poll() is not None:
            return
        pgid = self.proc.pid  # start_new_session made the server its own group leader
        try:
            os.killpg(pgid, self.stop_signal)
            self.proc.wait(timeout=grace_s)
        except subprocess.TimeoutExpired:
            pass
        except ProcessLookupError:
            return
        try:
            os.killpg(pgid, signal.SIGKILL)  # stragglers of the group, if any
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=grace_s)
