"""HTTPConnection, the base of Request and WebSocket (Starlette's name), and the Cookie header parser they share."""

from __future__ import annotations

from http.cookies import _unquote as _unquote_cookie  # the unquoting Starlette applies


class HTTPConnection:
    """What Request and WebSocket have in common (`headers`, `query_params`, `cookies`, `url`, ...). Annotate a
    dependency's parameter with it to get the Request on HTTP routes and the WebSocket on WebSocket routes, as the
    security classes do."""

    __slots__ = ()


def parse_cookies(header: str) -> dict[str, str]:
    """A Cookie header parsed as Starlette's cookie_parser does (lenient; the last duplicate wins)."""
    cookies: dict[str, str] = {}
    for chunk in header.split(";"):
        key, sep, value = chunk.partition("=")
        if not sep:
            key, value = "", key
        key, value = key.strip(), value.strip()
        if key or value:
            cookies[key] = _unquote_cookie(value)
    return cookies
