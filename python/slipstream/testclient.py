"""TestClient: a requests-like client that drives the real engine in-process (127.0.0.1, a free port)."""

from __future__ import annotations

import atexit
import base64
import http.client
import json as _json
import mimetypes
import secrets
import weakref
import zlib
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from ._ws_session import WebSocketTestSession
from .datastructures import Headers

# Clients still open at exit are closed first: the server's threads must stop before the interpreter does.
_open_clients: weakref.WeakSet[TestClient] = weakref.WeakSet()


@atexit.register
def _close_open_clients() -> None:
    for client in list(_open_clients):
        client.close()


def _decode_body(content: bytes, coding: str | None) -> bytes:
    """Undoes the content codings the client advertises (gzip, deflate), as requests and httpx do."""
    for name in reversed([c.strip().lower() for c in (coding or "").split(",") if c.strip()]):
        if name in ("gzip", "x-gzip"):
            content = zlib.decompress(content, 16 + zlib.MAX_WBITS)
        elif name == "deflate":
            try:
                content = zlib.decompress(content)
            except zlib.error:  # raw deflate without the zlib wrapper
                content = zlib.decompress(content, -zlib.MAX_WBITS)
    return content


class TestResponse:
    """status_code, headers (case-insensitive), content, text, json()."""

    __test__ = False

    def __init__(self, status_code: int, reason: str, headers: list[tuple[str, str]], content: bytes,
                 url: str) -> None:
        self.status_code = status_code
        self.reason_phrase = reason
        self.headers = Headers(headers)
        self.content = content
        self.url = url

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return _json.loads(self.content)

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    def __repr__(self) -> str:
        return f"<TestResponse [{self.status_code}]>"


class TestClient:
    """Starts `app` on 127.0.0.1 (port 0) in background threads of this process and talks HTTP/1.1 to it.

    Use as a context manager, or call close(). Every request goes through sockets, parsing, routing, C++
    validation and the Python executor, exactly as in production. As Starlette's TestClient: the app's lifespan
    (startup/shutdown) runs only when the client is used as a context manager, and a request returns once the
    work after its response (background tasks, dependency exit code) is done.
    """

    __test__ = False

    def __init__(self, app: Any, base_url: str = "http://testserver", *, raise_server_exceptions: bool = False,
                 headers: Mapping[str, str] | None = None, cookies: Mapping[str, str] | None = None,
                 **server_options: Any) -> None:
        options = {"access_log": False, "threads": 1, **server_options}
        self.app = app
        self.raise_server_exceptions = raise_server_exceptions
        self.base_url = base_url.rstrip("/")
        self._host_header = urlsplit(base_url).netloc or "testserver"
        # As Starlette's client: routes added and dependency_overrides changed after it started are served.
        self._native, self._runtime = app.build_native(late_changes=True, **options)
        self._native.listen("127.0.0.1", 0)
        self._native.start()
        self.port = self._native.port
        self._conn: http.client.HTTPConnection | None = None
        self.cookies: dict[str, str] = dict(cookies or {})
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}  # sent with every request
        self._lifespan = False
        _open_clients.add(self)

    def __enter__(self) -> TestClient:  # noqa: PYI034
        try:
            self._runtime.call_on_loop(self._runtime.startup)  # raises what the startup raised
        except BaseException:
            self.close()
            raise
        self._lifespan = True
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._lifespan and self._native is not None:
                self._lifespan = False
                self._runtime.call_on_loop(self._runtime.shutdown)
        finally:
            self.close()

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        native, self._native = self._native, None
        if native is None:
            return
        native.stop()
        if not native.on_executor_thread:
            native.wait()
        # Else closed by its own executor thread (a handler, or the garbage collector running there), which cannot
        # wait for itself: dropping the last reference there hands the wait to a helper thread of the extension
        # (NativeApp::release_from_executor_thread), which the interpreter waits for at exit.

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001, S110 - interpreter shutdown
            pass

    def request(self, method: str, url: str, *, params: Mapping[str, Any] | list[tuple[str, Any]] | None = None,
                json: Any = None, content: bytes | str | None = None, data: Any = None, files: Any = None,
                headers: Mapping[str, str] | None = None, cookies: Mapping[str, str] | None = None,
                auth: tuple[str, str] | None = None) -> TestResponse:
        """As httpx's Client.request: `files` (a mapping or list of name -> bytes, file object, or (filename,
        content[, content_type[, headers]])) with `data` as the other fields makes a multipart/form-data body;
        `auth` (user, password) sends HTTP Basic credentials."""
        if self._native is None:
            raise RuntimeError("the TestClient is closed")
        parts = urlsplit(url)
        target = parts.path or "/"
        query = parts.query
        if params:
            extra = urlencode(list(params.items()) if isinstance(params, Mapping) else params, doseq=True)
            query = f"{query}&{extra}" if query else extra
        if query:
            target += "?" + query
        # As httpx does: characters not allowed in a request target are percent-encoded.
        target = quote(target, safe="/?&=%:@!$'()*+,;~[]#")
        send_headers = {"host": self._host_header, "user-agent": "testclient", "accept": "*/*",
                        "accept-encoding": "gzip, deflate", "connection": "keep-alive"}
        body: bytes | None = None
        if json is not None:
            body = _json.dumps(json, separators=(",", ":"), ensure_ascii=False).encode()
            send_headers["content-type"] = "application/json"
        elif content is not None:
            body = content.encode() if isinstance(content, str) else content
        elif files is not None:
            body, send_headers["content-type"] = _multipart(data, files)
        elif data is not None:
            body = urlencode(data, doseq=True).encode() if isinstance(data, Mapping) else data
            send_headers["content-type"] = "application/x-www-form-urlencoded"
        if auth is not None:
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode("ascii")
            send_headers["authorization"] = f"Basic {token}"
        all_cookies = {**self.cookies, **(cookies or {})}
        if all_cookies:
            send_headers["cookie"] = "; ".join(f"{k}={v}" for k, v in all_cookies.items())
        for key, value in {**self.headers, **{k.lower(): v for k, v in (headers or {}).items()}}.items():
            send_headers[key] = value
        if body is not None or method.upper() in ("POST", "PUT", "PATCH"):
            send_headers["content-length"] = str(len(body or b""))
        return self._send(method.upper(), target, body, send_headers)

    def _send(self, method: str, target: str, body: bytes | None, headers: dict[str, str]) -> TestResponse:
        for attempt in (0, 1):
            conn = self._connection()
            try:
                conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
                for key, value in headers.items():
                    conn.putheader(key, value)
                conn.endheaders(body)
                raw = conn.getresponse()
                content = raw.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                conn.close()
                self._conn = None
                if attempt == 1:
                    raise
                continue
            except BaseException:
                conn.close()
                self._conn = None
                raise
            if raw.will_close:
                conn.close()
                self._conn = None
            self._runtime.wait_idle(30)
            content = _decode_body(content, raw.getheader("content-encoding"))
            return TestResponse(raw.status, raw.reason, list(raw.getheaders()), content, self.base_url + target)
        raise AssertionError("unreachable")

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            self._conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        return self._conn

    def websocket_connect(self, url: str, subprotocols: list[str] | None = None, *,
                          params: Mapping[str, Any] | list[tuple[str, Any]] | None = None,
                          headers: Mapping[str, str] | None = None,
                          cookies: Mapping[str, str] | None = None) -> WebSocketTestSession:
        """A WebSocket session (Starlette's WebSocketTestSession), used as a context manager:
        `with client.websocket_connect("/ws") as ws: ws.send_text("hi"); ws.receive_text()`."""
        if self._native is None:
            raise RuntimeError("the TestClient is closed")
        parts = urlsplit(url)
        target, query = parts.path or "/", parts.query
        if params:
            extra = urlencode(list(params.items()) if isinstance(params, Mapping) else params, doseq=True)
            query = f"{query}&{extra}" if query else extra
        if query:
            target += "?" + query
        send_headers = {k.lower(): v for k, v in (headers or {}).items()}
        all_cookies = {**self.cookies, **(cookies or {})}
        if all_cookies:
            send_headers["cookie"] = "; ".join(f"{k}={v}" for k, v in all_cookies.items())
        return WebSocketTestSession(self, quote(target, safe="/?&=%:@!$'()*+,;~[]#"), send_headers, subprotocols)

    def get(self, url: str, **kwargs: Any) -> TestResponse:
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs: Any) -> TestResponse:
        return self.request("POST", url, **kwargs)

    def put(self, url: str, **kwargs: Any) -> TestResponse:
        return self.request("PUT", url, **kwargs)

    def patch(self, url: str, **kwargs: Any) -> TestResponse:
        return self.request("PATCH", url, **kwargs)

    def delete(self, url: str, **kwargs: Any) -> TestResponse:
        return self.request("DELETE", url, **kwargs)

    def head(self, url: str, **kwargs: Any) -> TestResponse:
        return self.request("HEAD", url, **kwargs)

    def options(self, url: str, **kwargs: Any) -> TestResponse:
        return self.request("OPTIONS", url, **kwargs)


def _multipart(data: Any, files: Any) -> tuple[bytes, str]:
    """A multipart/form-data body as httpx writes it: `data`'s fields, then the files; and its Content-Type."""
    boundary = secrets.token_hex(16)
    out = bytearray()
    fields = list(data.items()) if isinstance(data, Mapping) else list(data or [])
    for name, value in fields:
        for item in value if isinstance(value, (list, tuple)) else [value]:
            out += f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"\r\n\r\n'.encode()
            out += (item if isinstance(item, bytes) else str(item).encode()) + b"\r\n"
    for name, spec in files.items() if isinstance(files, Mapping) else files:
        filename, content, media, extra = name, spec, None, {}
        if isinstance(spec, tuple):
            filename, content = spec[0], spec[1]
            media = spec[2] if len(spec) > 2 else None
            extra = dict(spec[3]) if len(spec) > 3 else {}
        if hasattr(content, "read"):
            content = content.read()
        if isinstance(content, str):
            content = content.encode()
        media = media or mimetypes.guess_type(filename or "")[0] or "application/octet-stream"
        head = f'--{boundary}\r\nContent-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
        head += "".join(f"{k}: {v}\r\n" for k, v in extra.items())
        out += (head + f"Content-Type: {media}\r\n\r\n").encode() + content + b"\r\n"
    out += f"--{boundary}--\r\n".encode()
    return bytes(out), f"multipart/form-data; boundary={boundary}"
