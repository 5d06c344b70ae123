"""HTTPSRedirectMiddleware: Starlette's 307 from http:// to https:// (ws:// to wss://), same host and path.

A request is https when the server has TLS (`tls_cert_file`) or, with `proxy_headers=True`, when a trusted proxy
says so in X-Forwarded-Proto. Run in Python as an HTTP middleware (every request then enters Python); routes the
engine answers without Python (static_route, echo_route, cached routes, /healthz) are not redirected.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..responses import PlainTextResponse, RedirectResponse, Response
from . import BaseHTTPMiddleware


class HTTPSRedirectMiddleware(BaseHTTPMiddleware):
    """Redirects (307) every plain-http request to its https URL; port 80 or 443 in the Host is dropped."""

    def __init__(self, app: Any = None) -> None:
        super().__init__(app)

    async def dispatch(self, request: Any, call_next: Callable[[Any], Awaitable[Response]]) -> Response:
        url = request.url
        if url.scheme not in ("http", "ws"):
            return await call_next(request)
        if not url.netloc:
            return PlainTextResponse("Invalid host header", status_code=400)
        netloc = url.hostname if url.port in (80, 443) else url.netloc
        if ":" in (netloc or "") and url.port in (80, 443):
            netloc = f"[{netloc}]"  # an IPv6 literal keeps its brackets
        target = url.replace(scheme={"http": "https", "ws": "wss"}[url.scheme], netloc=netloc)
        return RedirectResponse(str(target), status_code=307)


__all__ = ["HTTPSRedirectMiddleware"]
