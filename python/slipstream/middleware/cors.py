"""CORSMiddleware: Starlette's options, answered by the engine in C++ (no request enters Python for CORS).

`app.add_middleware(CORSMiddleware, allow_origins=[...], ...)` (or `App(middleware=[Middleware(CORSMiddleware,
...)])`) turns the options into the server's cors_* options when the app is built. The engine then answers
preflights (OPTIONS with Origin and Access-Control-Request-Method) before routing, and adds the
Access-Control-* fields and `Vary: Origin` to every answer: handlers', streams', and its own 404/405/422.
It behaves as the outermost middleware. With no origin allowed (neither allow_origins nor allow_origin_regex),
nothing is added at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any


def _names(option: str, value: Any) -> list[str]:
    """A list option as its items; the engine takes them comma-separated, so an item holds no comma."""
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"CORSMiddleware: {option} must be a list of str, not {type(value).__name__} "
                        f"(write [{value!r}] for one item)")
    items = list(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"CORSMiddleware: {option} must hold str items, not {type(item).__name__} ({item!r})")
        if not item.strip():
            raise ValueError(f"CORSMiddleware: {option} holds an empty item")
        if "," in item:
            raise ValueError(f"CORSMiddleware: {option} item {item!r} holds a comma (give each name as its own item)")
    return items


class CORSMiddleware:
    """Cross-origin requests, with the options (and defaults) of Starlette's CORSMiddleware.

    Not an ASGI application: the app hands its options to the engine (`server_options()`), which applies them
    to every request without Python. `allow_origin_regex` is matched in full by RE2: a pattern RE2 does not
    take (lookaround, backreferences) is refused when the app is built (ValueError)."""

    def __init__(self, app: Any = None, allow_origins: Iterable[str] = (), allow_methods: Iterable[str] = ("GET",),
                 allow_headers: Iterable[str] = (), allow_credentials: bool = False,
                 allow_origin_regex: str | None = None, allow_private_network: bool = False,
                 expose_headers: Iterable[str] = (), max_age: int = 600) -> None:
        self.app = app
        self.allow_origins = _names("allow_origins", allow_origins)
        self.allow_methods = _names("allow_methods", allow_methods)
        self.allow_headers = _names("allow_headers", allow_headers)
        self.expose_headers = _names("expose_headers", expose_headers)
        if allow_origin_regex is not None:
            if not isinstance(allow_origin_regex, str):
                raise TypeError("CORSMiddleware: allow_origin_regex must be a str or None, not "
                                f"{type(allow_origin_regex).__name__}")
            re.compile(allow_origin_regex)  # re.error here, as Starlette; RE2 checks it again at build
        self.allow_origin_regex = allow_origin_regex
        if isinstance(max_age, bool) or not isinstance(max_age, int) or not 0 <= max_age < 2**32:
            raise ValueError(f"CORSMiddleware: max_age must be an int of seconds in 0..{2**32 - 1}, not {max_age!r}")
        self.max_age = max_age
        self.allow_credentials = bool(allow_credentials)
        self.allow_private_network = bool(allow_private_network)

    def server_options(self) -> dict[str, Any]:
        """The cors_* server options; empty (CORS off) when no origin is allowed."""
        if not self.allow_origins and not self.allow_origin_regex:
            return {}
        return {
            "cors_allow_origins": ",".join(self.allow_origins),
            "cors_allow_origin_regex": self.allow_origin_regex or "",
            "cors_allow_methods": ",".join(self.allow_methods),
            "cors_allow_headers": ",".join(self.allow_headers),
            "cors_allow_credentials": self.allow_credentials,
            "cors_expose_headers": ",".join(self.expose_headers),
            "cors_allow_private_network": self.allow_private_network,
            "cors_max_age": self.max_age,
        }

    def __repr__(self) -> str:
        return f"CORSMiddleware({self.server_options()!r})"


def is_cors_middleware(cls: Any) -> bool:
    """This CORSMiddleware (or a subclass), or Starlette's (FastAPI's `fastapi.middleware.cors`), whose options
    are the same: an app ported from FastAPI keeps its import."""
    if not isinstance(cls, type):
        return False
    if issubclass(cls, CORSMiddleware):
        return True
    return cls.__name__ == "CORSMiddleware" and cls.__module__ == "starlette.middleware.cors"
