"""Response classes (Starlette-compatible) whose body is bytes: status, headers and media type sent as is.

The public module is slipstream.responses, which re-exports these with the streamed ones (StreamingResponse,
EventSourceResponse in _streaming_responses.py, FileResponse in _file_response.py)."""

from __future__ import annotations

import datetime
import email.utils
import http.cookies
import json
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote


class Response:
    """A complete response. `content` may be bytes, str (encoded with `charset`) or None."""

    media_type: str | None = None
    charset = "utf-8"

    def __init__(self, content: Any = None, status_code: int = 200, headers: Mapping[str, str] | None = None,
                 media_type: str | None = None, background: Any = None) -> None:
        self.status_code = status_code
        if media_type is not None:
            self.media_type = media_type
        self.background = background
        self.body = self.render(content)
        self.raw_headers: list[tuple[str, str]] = [(str(k), str(v)) for k, v in (headers or {}).items()]

    def render(self, content: Any) -> bytes:
        if content is None:
            return b""
        if isinstance(content, (bytes, memoryview, bytearray)):
            return bytes(content)
        return content.encode(self.charset)

    @property
    def headers(self) -> _MutableHeaders:
        return _MutableHeaders(self.raw_headers)

    def set_cookie(self, key: str, value: str = "", max_age: int | None = None,
                   expires: datetime.datetime | str | int | None = None, path: str | None = "/",
                   domain: str | None = None, secure: bool = False, httponly: bool = False,
                   samesite: str | None = "lax", partitioned: bool = False) -> None:
        """Adds a Set-Cookie header, exactly as Starlette writes it."""
        cookie: http.cookies.SimpleCookie = http.cookies.SimpleCookie()
        cookie[key] = value
        morsel = cookie[key]
        if max_age is not None:
            morsel["max-age"] = max_age
        if expires is not None:
            if isinstance(expires, datetime.datetime):
                morsel["expires"] = email.utils.format_datetime(expires, usegmt=True)
            else:
                morsel["expires"] = expires
        if path is not None:
            morsel["path"] = path
        if domain is not None:
            morsel["domain"] = domain
        if secure:
            morsel["secure"] = True
        if httponly:
            morsel["httponly"] = True
        if samesite is not None:
            if samesite.lower() not in ("strict", "lax", "none"):
                raise ValueError("samesite must be either 'strict', 'lax' or 'none'")
            morsel["samesite"] = samesite
        if partitioned:
            if sys.version_info < (3, 14):
                raise ValueError("Partitioned cookies are only supported in Python 3.14 and above.")
            morsel["partitioned"] = True  # pragma: no cover - Python 3.14
        self.raw_headers.append(("set-cookie", cookie.output(header="").strip()))

    def delete_cookie(self, key: str, path: str = "/", domain: str | None = None, secure: bool = False,
                      httponly: bool = False, samesite: str | None = "lax", partitioned: bool = False) -> None:
        """Expires the cookie now (max-age=0)."""
        self.set_cookie(key, max_age=0, expires=0, path=path, domain=domain, secure=secure, httponly=httponly,
                        samesite=samesite, partitioned=partitioned)

    def _content_type(self) -> str | None:
        if self.media_type is None:
            return None
        if self.media_type.startswith("text/") and "charset=" not in self.media_type.lower():
            return f"{self.media_type}; charset={self.charset}"
        return self.media_type

    def _slipstream_render(self) -> tuple[int, str | None, tuple[tuple[str, str], ...], bytes]:
        """(status, content type, other headers, body) for the engine; an explicit content-type header wins."""
        content_type = self._content_type()
        headers = []
        for name, value in self.raw_headers:
            if name.lower() == "content-type":
                content_type = value
            elif name.lower() != "content-length":
                headers.append((name, value))
        body = self.body
        if self.status_code < 200 or self.status_code in (204, 304):
            body = b""
        return self.status_code, content_type, tuple(headers), body


class _MutableHeaders:
    """A case-insensitive view over a Response's header list; assignment replaces, append adds."""

    def __init__(self, raw: list[tuple[str, str]]) -> None:
        self._raw = raw

    def __getitem__(self, key: str) -> str:
        for k, v in self._raw:
            if k.lower() == key.lower():
                return v
        raise KeyError(key)

    def get(self, key: str, default: Any = None) -> Any:
        try:
            return self[key]
        except KeyError:
            return default

    def setdefault(self, key: str, value: str) -> str:
        if key in self:
            return self[key]
        self._raw.append((key, value))
        return value

    def __setitem__(self, key: str, value: str) -> None:
        self._raw[:] = [(k, v) for k, v in self._raw if k.lower() != key.lower()]
        self._raw.append((key, value))

    def __delitem__(self, key: str) -> None:
        self._raw[:] = [(k, v) for k, v in self._raw if k.lower() != key.lower()]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and any(k.lower() == key.lower() for k, _ in self._raw)

    def append(self, key: str, value: str) -> None:
        self._raw.append((key, value))

    def getlist(self, key: str) -> list[str]:
        return [v for k, v in self._raw if k.lower() == key.lower()]

    def add_vary_header(self, vary: str) -> None:
        """Vary gains `vary` (Starlette's MutableHeaders.add_vary_header: the values joined in one header)."""
        self["vary"] = ", ".join([*self.getlist("vary"), vary])

    def items(self) -> list[tuple[str, str]]:
        return list(self._raw)


class JSONResponse(Response):
    """`content` written with json.dumps(ensure_ascii=False, allow_nan=False, separators=(",", ":"))."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=False, allow_nan=False, indent=None,
                          separators=(",", ":")).encode("utf-8")


class PlainTextResponse(Response):
    media_type = "text/plain"


class HTMLResponse(Response):
    media_type = "text/html"


class RedirectResponse(Response):
    """A redirect (307 by default) to `url`."""

    def __init__(self, url: str, status_code: int = 307, headers: Mapping[str, str] | None = None,
                 background: Any = None) -> None:
        super().__init__(content=b"", status_code=status_code, headers=headers, background=background)
        self.raw_headers.append(("location", quote(str(url), safe=":/%#?=@[]!$&'()*+,;")))



__all__ = ["HTMLResponse", "JSONResponse", "PlainTextResponse", "RedirectResponse", "Response"]
