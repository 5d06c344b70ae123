"""Two answers FastAPI gives to requests its routes do not take, decided once at startup as extra routes:
redirect_slashes (307 to the path with or without its trailing slash, when only that form has a route) and
HEAD on a route that declares GET but not HEAD (405 with Allow; FastAPI's routes add no implicit HEAD).

Without HTTP middleware the redirects are routes of their own (the toggled patterns that no declared route can
match), and every method a pattern's routes do not declare gets a fixed 405 the I/O threads send, with
FastAPI's Allow (the first route's methods, no implicit HEAD); 404s stay in C++. With middleware, misses
already reach Python through the catch-all route (middleware.NotFound), which redirects there."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from .datastructures import URL
from .responses import RedirectResponse

_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")
_ENDS_WITH_PATH = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*:path\}$")
_SAMPLES = {"int": "1", "float": "1", "uuid": "00000000-0000-0000-0000-000000000000"}
_ALLOW_ORDER = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT")
METHOD_NOT_ALLOWED_BODY = b'{"detail":"Method Not Allowed"}'


def toggled(path: str) -> str:
    """`path` with its trailing slash removed, or one added (Starlette's redirect_slashes)."""
    return path[:-1] if path.endswith("/") else path + "/"


def _samples(pattern: str) -> list[str]:
    """Concrete paths the pattern matches, one per kind of value a plain {name} segment may take."""
    return [_PARAM.sub(lambda m, s=s: _SAMPLES.get(m.group(2) or "", s), pattern)  # type: ignore[misc]
            for s in ("1", "x", _SAMPLES["uuid"])]


def http_patterns(app: Any) -> list[str]:
    """Every HTTP route pattern of `app`: its routes, native routes and the docs pages, in order."""
    patterns = [r.path for r in app.routes]
    patterns += [args[1] for kind, args in getattr(app, "native_routes", ()) if kind in ("static", "echo")]
    config = getattr(app, "openapi_config", None)
    for name in ("openapi_url", "docs_url", "redoc_url", "swagger_ui_oauth2_redirect_url"):
        url = getattr(config, name, None)
        if isinstance(url, str) and url:
            patterns.append(url)
    return list(dict.fromkeys(patterns))


def redirect_patterns(app: Any, regex: Callable[[str], re.Pattern[str]]) -> list[str]:
    """The toggled form of every pattern that no declared route (HTTP or WebSocket) can match."""
    patterns = http_patterns(app)
    taken = set(patterns) | {r.path for r in getattr(app, "websocket_routes", ())}
    compiled = [regex(p) for p in taken]
    out: list[str] = []
    for pattern in patterns:
        target = toggled(pattern)
        if pattern == "/" or target in taken or target in out or _ENDS_WITH_PATH.search(pattern):
            continue
        if any(r.fullmatch(sample) for sample in _samples(target) for r in compiled):
            continue
        out.append(target)
    return out


def _first_methods(routes: Iterable[Any]) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Per pattern: every method its routes declare, and the Allow value of its first route (Starlette answers
    a 405 with the methods of the first route that matches the path)."""
    methods: dict[str, set[str]] = {}
    allow: dict[str, str] = {}
    for route in routes:
        methods.setdefault(route.path, set()).update(route.methods)
        if route.path not in allow:
            allow[route.path] = ", ".join([m for m in _ALLOW_ORDER if m in route.methods] +
                                          sorted(set(route.methods) - set(_ALLOW_ORDER)))
    return methods, allow


def head_405(routes: Iterable[Any]) -> list[tuple[str, str]]:
    """(pattern, Allow) for each pattern with a GET route and no HEAD route."""
    methods, allow = _first_methods(routes)
    return [(path, allow[path]) for path, declared in methods.items() if "GET" in declared and "HEAD" not in declared]


def not_allowed(routes: Iterable[Any]) -> list[tuple[str, str, str]]:
    """(pattern, method, Allow) for each method that no route of the pattern declares (HEAD included when GET
    is declared: FastAPI's routes add no implicit HEAD)."""
    methods, allow = _first_methods(routes)
    return [(path, method, allow[path]) for path, declared in methods.items()
            for method in _ALLOW_ORDER if method not in declared]


def redirect_response(request: Any) -> RedirectResponse:
    """307 to the request's URL with the trailing slash toggled (the query kept), as Starlette's router."""
    url = request.url
    return RedirectResponse(str(URL(url.scheme, url.netloc, toggled(url.path), url.query)))


def make_redirect_runner(hooks: Any) -> Callable[..., Any]:
    async def run(__reply__: Any, __request__: Any, **_path: Any) -> None:
        hooks.begin()
        try:
            __reply__.send(redirect_response(__request__))
        finally:
            hooks.end()

    return run


__all__ = ["METHOD_NOT_ALLOWED_BODY", "head_405", "http_patterns", "make_redirect_runner", "not_allowed",
           "redirect_patterns", "redirect_response", "toggled"]
