"""Idle-connection helper: opens N keep-alive connections, makes one request on each, then holds them idle.

Run as a separate process (pinned to the client CPU) by the runner:
    python idle.py --host 127.0.0.1 --port 8080 --path /hello --count 10000
It prints `READY <opened>` once every connection has had its response, then on each line read from stdin
prints `KEPT <n>` (connections still open), and exits when stdin closes. It raises its own RLIMIT_NOFILE.
"""
from __future__ import annotations

import argparse
import errno
import resource
import selectors
import socket
import sys
import time

BATCH = 256  # connections in flight at once: keeps the server's accept queue (somaxconn) from overflowing


def _raise_fd_limit(count: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, count + 64) if hard != resource.RLIM_INFINITY else count + 64
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))


def _response_complete(data: bytes) -> bool:
    head_end = data.find(b"\r\n\r\n")
    if head_end < 0:
        return False
    length = 0
    for line in data[:head_end].split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    return len(data) >= head_end + 4 + length


def open_batch(host: str, port: int, request: bytes, n: int, timeout_s: float) -> list[socket.socket]:
    """Opens n connections, sends one request on each, waits for every response. Returns the live ones."""
    sel = selectors.DefaultSelector()
    pending: dict[socket.socket, bytearray] = {}
    for _ in range(n):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        err = s.connect_ex((host, port))
        if err not in (0, errno.EINPROGRESS):
            s.close()
            continue
        sel.register(s, selectors.EVENT_WRITE)
        pending[s] = bytearray()
    done: list[socket.socket] = []
    deadline = time.monotonic() + timeout_s
    while pending and time.monotonic() < deadline:
        for key, events in sel.select(timeout=0.5):
            s = key.fileobj
            try:
                if events & selectors.EVENT_WRITE:
                    s.sendall(request)
                    sel.modify(s, selectors.EVENT_READ)
                    continue
                chunk = s.recv(65536)
            except OSError:
                chunk = b""
            if not chunk:
                sel.unregister(s)
                s.close()
                del pending[s]
                continue
            pending[s] += chunk
            if _response_complete(bytes(pending[s])):
                sel.unregister(s)
                del pending[s]
                done.append(s)
    for s in pending:
        sel.unregister(s)
        s.close()
    sel.close()
    return done


def count_alive(conns: list[socket.socket]) -> int:
    """A connection is alive when a non-blocking peek would block (no EOF, no error, no unexpected data)."""
    alive = 0
    for s in conns:
        try:
            if s.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT) == b"":
                continue
            alive += 1  # unexpected bytes, but the connection is open
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    return alive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", default="/hello")
    parser.add_argument("--count", type=int, default=10000)
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args(argv)
    _raise_fd_limit(args.count)
    request = f"GET {args.path} HTTP/1.1\r\nHost: {args.host}:{args.port}\r\n\r\n".encode()
    conns: list[socket.socket] = []
    deadline = time.monotonic() + args.timeout
    while len(conns) < args.count and time.monotonic() < deadline:
        want = min(BATCH, args.count - len(conns))
        batch = open_batch(args.host, args.port, request, want, deadline - time.monotonic())
        conns += batch
        if not batch:
            break
    print(f"READY {len(conns)}", flush=True)
    for _ in sys.stdin:
        print(f"KEPT {count_alive(conns)}", flush=True)
    for s in conns:
        s.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
