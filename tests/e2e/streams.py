"""Readers for streamed responses shared by the e2e tests: a chunked HTTP/1.1 body read one chunk at a time
from a raw socket, and Server-Sent Events split as a browser's EventSource would."""

import socket


class ChunkedStream:
    """A streamed response read one chunk at a time from a raw socket; counts every byte received.

    The request is sent at construction; the head is read by read_head() (or by the first chunk())."""

    def __init__(self, server, path, headers=(), rcvbuf=None, timeout=30):
        family = socket.AF_INET6 if ":" in server.host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        if rcvbuf is not None:  # before connect, so the window stays small
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect((server.host, server.port))
        lines = [f"GET {path} HTTP/1.1", "Host: t", *(f"{k}: {v}" for k, v in headers)]
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.buf = b""
        self.received = 0
        self.head = None
        self.status = None
        self.headers = {}

    def read_head(self):
        """Reads the response head; returns the status (also kept with the lower-cased headers)."""
        self.head = self._until(b"\r\n\r\n")
        status_line, *fields = self.head[:-4].decode("latin-1").split("\r\n")
        self.status = int(status_line.split()[1])
        self.headers = {k.strip().lower(): v.strip() for k, _, v in (f.partition(":") for f in fields)}
        return self.status

    def _fill(self):
        data = self.sock.recv(262144)
        if not data:
            raise ConnectionError("closed")
        self.received += len(data)
        self.buf += data

    def _until(self, marker):
        while marker not in self.buf:
            self._fill()
        i = self.buf.index(marker) + len(marker)
        out, self.buf = self.buf[:i], self.buf[i:]
        return out

    def chunk(self):
        """The next chunk's payload; b"" for the terminating chunk; ConnectionError on a cut stream."""
        if self.head is None:
            assert self.read_head() == 200
        size = int(self._until(b"\r\n")[:-2], 16)
        while len(self.buf) < size + 2:
            self._fill()
        data, self.buf = self.buf[:size], self.buf[size + 2 :]
        return data

    def rest(self):
        """Every remaining chunk's payload, up to the terminating chunk."""
        out = b""
        while c := self.chunk():
            out += c
        return out

    def at_eof(self):
        """True when the server closed the connection (nothing more was sent)."""
        if self.buf:
            return False
        data = self.sock.recv(1)
        self.received += len(data)
        self.buf += data
        return not data

    def close(self):
        self.sock.close()


def open_stream(server, path, headers=()):
    """A ChunkedStream whose head has been read (status and headers available)."""
    s = ChunkedStream(server, path, headers, timeout=10)
    s.read_head()
    return s


def sse_events(text):
    """(event, id, data) per dispatched event, as a browser's EventSource would see them."""
    out = []
    for block in text.split("\n\n"):
        fields = [line.split(": ", 1) for line in block.split("\n") if line and not line.startswith(":")]
        if any(f[0] == "data" for f in fields):
            d = dict(f for f in fields if f[0] != "data")
            out.append((d.get("event"), d.get("id"), "\n".join(f[1] for f in fields if f[0] == "data")))
    return out
