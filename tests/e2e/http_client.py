"""A raw HTTP/1.1 client over a socket: send exact bytes, read exact responses (for framing tests)."""


class RawResponse:
    def __init__(self, status, reason, headers, body, raw_head):
        self.status = status
        self.reason = reason
        self.headers = headers  # list of (lower-case name, value)
        self.body = body
        self.raw_head = raw_head

    def header(self, name):
        name = name.lower()
        for k, v in self.headers:
            if k == name:
                return v
        return None


class RawConnection:
    """Reads responses one at a time from a socket, handling Content-Length and chunked bodies."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def send(self, data: bytes):
        self.sock.sendall(data)

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("connection closed by server")
        self.buf += chunk

    def _read_until(self, marker: bytes) -> bytes:
        while marker not in self.buf:
            self._fill()
        idx = self.buf.index(marker) + len(marker)
        out, self.buf = self.buf[:idx], self.buf[idx:]
        return out

    def _read_exact(self, n: int) -> bytes:
        while len(self.buf) < n:
            self._fill()
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def read_response(self, head_request=False) -> RawResponse:
        head = self._read_until(b"\r\n\r\n")
        lines = head[:-4].decode("latin-1").split("\r\n")
        version, status, *reason = lines[0].split(" ", 2)
        assert version in ("HTTP/1.1", "HTTP/1.0"), lines[0]
        headers = []
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers.append((name.strip().lower(), value.strip()))
        resp = RawResponse(int(status), reason[0] if reason else "", headers, b"", head)
        if head_request or resp.status in (204, 304) or 100 <= resp.status < 200:
            return resp
        te = resp.header("transfer-encoding")
        cl = resp.header("content-length")
        if te and te.lower() == "chunked":
            body = b""
            while True:
                size_line = self._read_until(b"\r\n")
                size = int(size_line.split(b";")[0].strip(), 16)
                if size == 0:
                    self._read_until(b"\r\n")  # no trailers from our server
                    break
                body += self._read_exact(size)
                self._read_exact(2)
            resp.body = body
        elif cl is not None:
            resp.body = self._read_exact(int(cl))
        else:
            while True:
                try:
                    self._fill()
                except ConnectionError:
                    break
            resp.body, self.buf = self.buf, b""
        return resp

    def closed_by_peer(self, timeout=5.0) -> bool:
        """True when the server closes the connection (EOF or reset) within `timeout`."""
        self.sock.settimeout(timeout)
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return True
                self.buf += chunk
        except ConnectionResetError:
            return True
        except TimeoutError:
            return False
