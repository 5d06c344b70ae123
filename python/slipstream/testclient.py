"""TestClient: FastAPI's test client (httpx's API, Starlette's defaults) over the real engine, in-process."""

from __future__ import annotations

import atexit
import base64
import contextlib
import dataclasses
import http.client
import json as _json
import mimetypes
import secrets
import weakref
import zlib
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote, urlencode, urljoin, urlsplit, urlunsplit

from . import _server_errors
from ._cookie_jar import Cookies
from ._proxy import TESTCLIENT_SCHEME_HEADER
from ._ws_session import WebSocketTestSession
from .datastructures import Headers

# Clients still open at exit are closed first: the server's threads must stop before the interpreter does.
_open_clients: weakref.WeakSet[TestClient] = weakref.WeakSet()


@atexit.register
def _close_open_clients() -> None:
    for client in list(_open_clients):
        client.close()


def _decode_body(content: bytes, coding: str | None) -> bytes:
    """Undoes the content codings the client advertises (gzip, deflate), as requests and httpx do. A body cut
    short (an app that failed mid-stream) gives what its bytes decode to; HTTP framing reports the cut."""
    for name in reversed([c.strip().lower() for c in (coding or "").split(",") if c.strip()]):
        if name in ("gzip", "x-gzip"):
            content = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(content)
        elif name == "deflate":
            try:
                content = zlib.decompressobj().decompress(content)
            except zlib.error:  # raw deflate without the zlib wrapper
                content = zlib.decompressobj(-zlib.MAX_WBITS).decompress(content)
    return content


@dataclasses.dataclass
class SentRequest:
    """What was sent for a response (httpx's `response.request`): method, absolute URL, headers, body."""

    method: str
    url: str
    headers: Headers
    content: bytes


class TestResponse:
    """status_code, headers (case-insensitive), content, text, json(); `history` holds the redirect responses
    that led to it, `cookies` what its Set-Cookie headers set, `request` what was sent (httpx's Response)."""

    __test__ = False

    def __init__(self, status_code: int, reason: str, headers: list[tuple[str, str]], content: bytes,
                 url: str, method: str = "GET") -> None:
        self.status_code = status_code
        self.reason_phrase = reason
        self.headers = Headers(headers)
        self.raw_headers = headers
        self.content = content
        self.url = url
        self.method = method
        self.history: list[TestResponse] = []
        # What a TemplateResponse rendered for this request (jinja2's Template and the context), as Starlette's.
        self.template: Any = None
        self.context: dict[str, Any] | None = None
        self.cookies = Cookies()
        self.cookies.extract_cookies(url, headers)
        self.request = SentRequest(method, url, Headers([]), b"")
        self.http_version = "HTTP/1.1"
        self.encoding = "utf-8"

    @property
    def text(self) -> str:
        return self.content.decode("utf-8", errors="replace")

    def json(self) -> Any:
        return _json.loads(self.content)

    @property
    def is_success(self) -> bool:
        return 200 <= self.status_code < 300

    @property
    def is_redirect(self) -> bool:
        return self.status_code in _REDIRECT_CODES and "location" in self.headers

    @property
    def is_error(self) -> bool:
        return self.status_code >= 400

    @property
    def is_informational(self) -> bool:
        return 100 <= self.status_code < 200

    @property
    def is_client_error(self) -> bool:
        return 400 <= self.status_code < 500

    @property
    def is_server_error(self) -> bool:
        return 500 <= self.status_code < 600

    def iter_bytes(self, chunk_size: int | None = None) -> Iterator[bytes]:
        """The body in chunks of `chunk_size` bytes (the whole body at once without one); read already."""
        size = chunk_size or len(self.content) or 1
        for start in range(0, len(self.content), size):
            yield self.content[start:start + size]

    def iter_raw(self, chunk_size: int | None = None) -> Iterator[bytes]:
        return self.iter_bytes(chunk_size)

    def iter_text(self, chunk_size: int | None = None) -> Iterator[str]:
        for chunk in self.iter_bytes(chunk_size):
            yield chunk.decode("utf-8", errors="replace")

    def iter_lines(self) -> Iterator[str]:
        yield from self.text.splitlines()

    def read(self) -> bytes:
        return self.content

    def close(self) -> None:
        """Nothing to release: the body was read whole."""

    def raise_for_status(self) -> TestResponse:
        """Raises HTTPStatusError for a 4xx or 5xx response (httpx's message); returns the response otherwise."""
        if self.is_error:
            kind = "Client error" if self.status_code < 500 else "Server error"
            raise HTTPStatusError(f"{kind} '{self.status_code} {self.reason_phrase}' for url '{self.url}'", self)
        return self

    def __repr__(self) -> str:
        return f"<TestResponse [{self.status_code}]>"


class HTTPStatusError(Exception):
    """raise_for_status() on a 4xx or 5xx response; `.response` is that response."""

    def __init__(self, message: str, response: TestResponse) -> None:
        super().__init__(message)
        self.response = response


class TooManyRedirects(Exception):
    """More than `max_redirects` redirects were followed for one request."""


_REDIRECT_CODES = (301, 302, 303, 307, 308)


class TestClient:
    """Starts `app` on 127.0.0.1 (port 0) in background threads of this process and talks HTTP/1.1 to it.

    Use as a context manager, or call close(). Every request goes through sockets, parsing, routing, C++
    validation and the Python executor, exactly as in production. As Starlette's TestClient: the app's lifespan
    (startup/shutdown) runs only when the client is used as a context manager; a request returns once the work
    after its response (background tasks, dependency exit code) is done; redirects are followed
    (`follow_redirects=False` to get them); `cookies` is a jar that Set-Cookie fills; and an exception no
    exception handler takes (or one the app's 500/Exception handler answered) is raised in the test, unless
    `raise_server_exceptions=False`, which gives the 500 response. A request to an https:// URL (base_url
    "https://testserver", or a redirect there) reaches the app as https (request.url, url_for, HTTPSRedirectMiddleware,
    secure cookies), over the same plain connection.
    """

    __test__ = False

    def __init__(self, app: Any, base_url: str = "http://testserver", raise_server_exceptions: bool = True,
                 root_path: str = "", backend: str = "asyncio", backend_options: Mapping[str, Any] | None = None,
                 cookies: Mapping[str, str] | None = None, headers: Mapping[str, str] | None = None,
                 follow_redirects: bool = True, *, max_redirects: int = 20, **server_options: Any) -> None:
        # root_path is the server's option (the app is served as if behind a proxy at that prefix), as Starlette's
        # sets the scope's; backend and backend_options (anyio's) are accepted so that FastAPI tests construct the
        # client unchanged: the engine runs its own asyncio loop.
        options = {"access_log": False, "threads": 1, **({"root_path": root_path} if root_path else {}),
                   "testclient_scheme": True, **server_options}
        self.app = app
        self.raise_server_exceptions = raise_server_exceptions
        self.follow_redirects = follow_redirects
        self.max_redirects = max_redirects
        self.base_url = base_url.rstrip("/")
        self._host_header = urlsplit(base_url).netloc or "testserver"
        # As Starlette's client: routes added and dependency_overrides changed after it started are served.
        self._native, self._runtime = app.build_native(late_changes=True, **options)
        self._native.listen("127.0.0.1", 0)
        self._native.start()
        self.port = self._native.port
        self._conn: http.client.HTTPConnection | None = None
        self._cookies = Cookies(cookies)
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}  # sent with every request
        self._watch = _server_errors.watch(app)
        self._lifespan = False
        _open_clients.add(self)

    @property
    def cookies(self) -> Cookies:
        """The cookie jar: Set-Cookie fills it, later requests send what matches their URL."""
        return self._cookies

    @cookies.setter
    def cookies(self, cookies: Mapping[str, str] | list[tuple[str, str]] | Cookies | None) -> None:
        self._cookies = Cookies(cookies)  # as httpx: assigning a mapping replaces the jar

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
        _server_errors.unwatch(self.app, self._watch)
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
                auth: tuple[str, str] | None = None, follow_redirects: bool | None = None) -> TestResponse:
        """As httpx's Client.request: `url` relative to base_url (or absolute); `files` (a mapping or list of
        name -> bytes, file object, or (filename, content[, content_type[, headers]])) with `data` as the other
        fields makes a multipart/form-data body; `auth` (user, password) sends HTTP Basic credentials;
        `follow_redirects` overrides the client's choice for this request."""
        if self._native is None:
            raise RuntimeError("the TestClient is closed")
        method = method.upper()
        full = self._full_url(url, params)
        body, send_headers = _encode_body(json, content, data, files)
        # httpx's order, which the app sees in request.headers (and a header model's errors follow): the
        # defaults, then the body's headers, then the client's and the request's headers, each one given again
        # moved to the end.
        send_headers = {"host": urlsplit(full).netloc, "accept": "*/*", "accept-encoding": "gzip, deflate",
                        "connection": "keep-alive", "user-agent": "testclient", **send_headers}
        if auth is not None:
            token = base64.b64encode(f"{auth[0]}:{auth[1]}".encode()).decode("ascii")
            send_headers["authorization"] = f"Basic {token}"
        # Names set on client.headers later may have any case: one header per name, the request's winning.
        for given in (self.headers, headers or {}):
            for key, value in given.items():
                send_headers.pop(key.lower(), None)
                send_headers[key.lower()] = value
        if body is not None or method in ("POST", "PUT", "PATCH"):
            send_headers["content-length"] = str(len(body or b""))
        follow = self.follow_redirects if follow_redirects is None else follow_redirects
        history: list[TestResponse] = []
        while True:
            response = self._exchange(method, full, body, send_headers, cookies)
            if not follow or not response.is_redirect:
                response.history = history
                return response
            history.append(response)
            if len(history) > self.max_redirects:
                raise TooManyRedirects(f"Exceeded maximum allowed redirects ({self.max_redirects}).")
            full, method, body = _redirected(response, full, method, body, send_headers)

    def _full_url(self, url: str, params: Mapping[str, Any] | list[tuple[str, Any]] | None) -> str:
        """httpx's URL merging: a relative `url` continues base_url's path; `params`, when given, replace the
        URL's query (as httpx does)."""
        parts = urlsplit(url)
        if not parts.scheme:
            base = urlsplit(self.base_url)
            parts = parts._replace(scheme=base.scheme, netloc=base.netloc,
                                   path=base.path.rstrip("/") + "/" + parts.path.lstrip("/"))
        query = parts.query
        if params:
            query = urlencode(list(params.items()) if isinstance(params, Mapping) else params, doseq=True)
        return urlunsplit(parts._replace(query=query, fragment=""))

    def _exchange(self, method: str, full: str, body: bytes | None, headers: dict[str, str],
                  cookies: Mapping[str, str] | None) -> TestResponse:
        """One request and its response: the jar's cookies for `full` sent, its Set-Cookie stored; an exception
        the app raised is raised here when raise_server_exceptions."""
        parts = urlsplit(full)
        if parts.scheme not in ("http", "https"):
            raise ValueError(f"the TestClient sends http:// and https:// requests: cannot request {full!r}")
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        # As httpx does: characters not allowed in a request target are percent-encoded.
        target = quote(target, safe="/?&=%:@!$'()*+,;~[]#")
        headers = dict(headers)
        if parts.scheme == "https":  # the app sees an https request (Starlette's client gives it an https scope)
            headers[TESTCLIENT_SCHEME_HEADER] = "https"
        if "cookie" not in headers:
            cookie = _cookie_header(self.cookies.header_for(full), cookies)
            if cookie:
                headers["cookie"] = cookie
        self._watch.clear()
        response = self._send(method, target, body, headers, full)
        self.cookies.extract_cookies(full, response.raw_headers)
        if self._watch.templates:
            response.template, response.context = self._watch.templates[-1]
        if self._watch.errors and self.raise_server_exceptions:
            exc = self._watch.errors[0]
            self._watch.clear()
            raise exc
        return response

    def _send(self, method: str, target: str, body: bytes | None, headers: dict[str, str],
              full: str) -> TestResponse:
        for attempt in (0, 1):
            conn = self._connection()
            try:
                conn.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
                for key, value in headers.items():
                    conn.putheader(key, value)
                conn.endheaders(body)
                raw = conn.getresponse()
                try:
                    content = raw.read()
                except http.client.IncompleteRead as cut:  # the app failed in the middle of a streamed body
                    content = cut.partial
                    raw.will_close = True
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
            response = TestResponse(raw.status, raw.reason, list(raw.getheaders()), content, full, method)
            sent = [(k, v) for k, v in headers.items() if k != TESTCLIENT_SCHEME_HEADER]
            response.request = SentRequest(method, full, Headers(sent), body or b"")
            return response
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
        `with client.websocket_connect("/ws") as ws: ws.send_text("hi"); ws.receive_text()`. As Starlette's, a
        relative `url` is taken against "ws://testserver" (not base_url); a "wss://" URL reaches the app as wss
        (`websocket.url.scheme`, the scope's scheme)."""
        if self._native is None:
            raise RuntimeError("the TestClient is closed")
        parts = urlsplit(urljoin("ws://testserver", url))
        if parts.scheme not in ("ws", "wss"):
            raise RuntimeError("Expected WebSocket upgrade")  # Starlette's words for an http(s):// URL
        target, query = parts.path or "/", parts.query
        if params:
            query = urlencode(list(params.items()) if isinstance(params, Mapping) else params, doseq=True)
        if query:
            target += "?" + query
        secure = parts.scheme == "wss"
        send_headers = {"host": parts.netloc or "testserver", **{k.lower(): v for k, v in (headers or {}).items()}}
        if secure:
            send_headers[TESTCLIENT_SCHEME_HEADER] = "https"
        jar_url = f"{'https' if secure else 'http'}://{parts.netloc}{parts.path or '/'}"
        cookie = _cookie_header(self.cookies.header_for(jar_url), cookies)
        if cookie and "cookie" not in send_headers:
            send_headers["cookie"] = cookie
        return WebSocketTestSession(self, quote(target, safe="/?&=%:@!$'()*+,;~[]#"), send_headers, subprotocols)

    @contextlib.contextmanager
    def stream(self, method: str, url: str, **kwargs: Any) -> Iterator[TestResponse]:
        """`with client.stream("GET", url) as response:` then `response.iter_lines()` / `iter_bytes()`; request()'s
        arguments. As Starlette's TestClient, the app's whole body is read before the block runs (an endless
        stream never returns)."""
        response = self.request(method, url, **kwargs)
        try:
            yield response
        finally:
            response.close()

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


def _encode_body(json: Any, content: bytes | str | None, data: Any,
                 files: Any) -> tuple[bytes | None, dict[str, str]]:
    """The body of a request and its Content-Type header, as httpx encodes json=, content=, data= and files=."""
    if json is not None:
        body = _json.dumps(json, separators=(",", ":"), ensure_ascii=False).encode()
        return body, {"content-type": "application/json"}
    if content is not None:
        return (content.encode() if isinstance(content, str) else content), {}
    if files is not None:
        body, content_type = _multipart(data, files)
        return body, {"content-type": content_type}
    if data is not None:
        body = urlencode(data, doseq=True).encode() if isinstance(data, Mapping) else data
        return body, {"content-type": "application/x-www-form-urlencoded"}
    return None, {}


def _cookie_header(from_jar: str | None, extra: Mapping[str, str] | None) -> str:
    """The jar's Cookie header with the request's own `cookies=` added (a name in both: the request's value)."""
    pairs = [p.partition("=") for p in from_jar.split("; ")] if from_jar else []
    merged = {name: value for name, _, value in pairs}
    merged.update(extra or {})
    return "; ".join(f"{k}={v}" for k, v in merged.items())


def _redirected(response: TestResponse, full: str, method: str, body: bytes | None,
                headers: dict[str, str]) -> tuple[str, str, bytes | None]:
    """The request that follows `response` (httpx's rules): its URL, method and body; `headers` updated."""
    target = urljoin(full, response.headers["location"])
    status = response.status_code
    if (status in (302, 303) and method != "HEAD") or (status == 301 and method == "POST"):
        new_method = "GET"
    else:
        new_method = method
    if new_method != method:
        body = None
        headers.pop("content-length", None)
        headers.pop("transfer-encoding", None)
    old, new = urlsplit(full), urlsplit(target)
    if (old.scheme, old.netloc) != (new.scheme, new.netloc):
        headers.pop("authorization", None)
        headers["host"] = new.netloc
    return target, new_method, body


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
