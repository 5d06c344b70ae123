"""TrustedHostMiddleware: Starlette's Host header check (400 "Invalid host header"; the www. redirect).

Run in Python, as an HTTP middleware: an app that adds it makes every request enter Python (the cost of any
`@app.middleware("http")`), 404s and 405s included. Routes the engine answers without Python (static_route,
echo_route, cached routes, /healthz and the metrics) are not checked.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from ..responses import PlainTextResponse, RedirectResponse, Response
from . import BaseHTTPMiddleware

ENFORCE_DOMAIN_WILDCARD = "Domain wildcard patterns must be like '*.example.com'."

# RFC 3986: a reg-name or IPv4 address, or an IP literal in brackets (IPv6 or IPvFuture), then an optional port.
_REG_NAME = re.compile(r"[A-Za-z0-9._~%!$&'()*+,;=-]+")
_PORT = re.compile(r"[0-9]+")
_IP_FUTURE = re.compile(r"[vV][0-9A-Fa-f]+\.[A-Za-z0-9._~!$&'()*+,;=:-]+")


def parse_host(header: str | None) -> str | None:
    """The host of a Host header (brackets kept around an IP literal); None when the header is missing or not
    `host[:port]`."""
    if header is None:
        return None
    if header.startswith("["):
        end = header.find("]")
        if end < 0:
            return None
        literal, rest = header[1:end], header[end + 1:]
        if _IP_FUTURE.fullmatch(literal) is None:
            try:
                ipaddress.IPv6Address(literal)
            except ValueError:
                return None
        host = header[:end + 1]
    else:
        host, sep, port = header.partition(":")
        rest = sep + port
        if _REG_NAME.fullmatch(host) is None:
            return None
    if rest and (not rest.startswith(":") or _PORT.fullmatch(rest[1:]) is None):
        return None
    return host


class TrustedHostMiddleware(BaseHTTPMiddleware):
    """Answers 400 "Invalid host header" to a request whose Host is not in `allowed_hosts` ("*", exact names,
    or "*.example.com" wildcards); with `www_redirect`, a request for example.com when only www.example.com is
    allowed is redirected there (307)."""

    def __init__(self, app: Any = None, allowed_hosts: Sequence[str] | None = None, www_redirect: bool = True) -> None:
        super().__init__(app)
        if allowed_hosts is None:
            allowed_hosts = ["*"]
        if isinstance(allowed_hosts, str):
            raise TypeError(f"TrustedHostMiddleware: allowed_hosts must be a list of str (write [{allowed_hosts!r}])")
        for pattern in allowed_hosts:
            if "*" in pattern[1:] or (pattern.startswith("*") and pattern != "*" and not pattern.startswith("*.")):
                raise AssertionError(ENFORCE_DOMAIN_WILDCARD)  # Starlette's assert, kept under python -O too
        self.allowed_hosts = [pattern.lower() for pattern in allowed_hosts]
        self.allow_any = "*" in allowed_hosts
        self.www_redirect = www_redirect

    async def dispatch(self, request: Any, call_next: Callable[[Any], Awaitable[Response]]) -> Response:
        if self.allow_any:
            return await call_next(request)
        host = parse_host(request.headers.get("host"))
        if host is None:
            return PlainTextResponse("Invalid host header", status_code=400)
        host = host.lower()
        www_found = False
        for pattern in self.allowed_hosts:
            if host == pattern or (pattern.startswith("*") and host.endswith(pattern[1:])):
                return await call_next(request)
            if "www." + host == pattern:
                www_found = True
        if www_found and self.www_redirect:
            url = request.url
            return RedirectResponse(str(url.replace(netloc="www." + url.netloc)))
        return PlainTextResponse("Invalid host header", status_code=400)


__all__ = ["ENFORCE_DOMAIN_WILDCARD", "TrustedHostMiddleware"]
