"""Shared pytest fixtures: locate the build, start real servers on free ports, talk over real sockets."""
import os
import pathlib
import queue
import select
import socket
import subprocess
import threading
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
BUILD = ROOT / os.environ.get("SLIPSTREAM_BUILD_DIR", "build")


def pytest_report_header(config):
    """Names the I/O backend: the servers read SLIPSTREAM_IO_URING (=1 runs the whole suite on io_uring)."""
    on = os.environ.get("SLIPSTREAM_IO_URING", "").lower() in ("1", "true", "yes", "on")
    return f"slipstream I/O backend: {'io_uring' if on else 'epoll'} (SLIPSTREAM_IO_URING)"


class Server:
    """A server process started on port 0; its first stdout line says where it listens."""

    def __init__(self, argv, env=None):
        self.argv = argv
        self.proc = subprocess.Popen(
            argv,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})},
            text=True,
        )
        self.host, self.port = self._read_address()
        # Keep reading stdout (the access log) so the server never blocks on a full pipe.
        self.lines = queue.Queue()
        self._reader = threading.Thread(target=self._pump, daemon=True)
        self._reader.start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.put(line)

    def wait_for_line(self, needle, timeout=5.0):
        """The next stdout line containing `needle`, or None after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            except queue.Empty:
                return None
            if needle in line:
                return line
        return None

    def _read_address(self):
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.5)
            if ready:
                line = self.proc.stdout.readline()
                if not line:
                    break
                # "listening on 127.0.0.1:PORT"
                if line.startswith("listening on unix:"):
                    return line.strip().split("unix:", 1)[1], 0
                if line.startswith("listening on "):
                    addr = line.split()[-1]
                    host, _, port = addr.rpartition(":")
                    return host.strip("[]"), int(port)
            if self.proc.poll() is not None:
                break
        err = self.proc.stderr.read() if self.proc.poll() is not None else ""
        self.stop()
        raise RuntimeError(f"server did not start: {self.argv}: {err}")

    def connect(self, timeout=5.0):
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        s = socket.create_connection((self.host, self.port), timeout=timeout)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        assert s.family == family
        return s

    @property
    def url(self):
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def stop(self, sig=None):
        if self.proc.poll() is None:
            if sig is None:
                self.proc.terminate()
            else:
                self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def example_binary(name):
    path = BUILD / "examples" / name
    if not path.exists():
        pytest.fail(f"{path} is not built; run 'make build' first")
    return str(path)


@pytest.fixture
def hello_server():
    """The C++ example app (examples/hello.cpp) with one I/O thread."""
    server = Server([example_binary("hello"), "--host", "127.0.0.1", "--port", "0", "--threads", "1"])
    yield server
    server.stop()


@pytest.fixture
def start_server():
    """Starts example servers with custom flags; stops them all at the end of the test."""
    started = []

    def start(*flags, binary="hello", env=None):
        server = Server([example_binary(binary), "--host", "127.0.0.1", "--port", "0", *flags], env=env)
        started.append(server)
        return server

    yield start
    for s in started:
        s.stop()
