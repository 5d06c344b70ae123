"""What the engine must know of an ASGI app before serving it: whether it is an ASGI 3 callable, and the paths of
its WebSocket routes (the engine routes a handshake only on a path registered for it)."""

from __future__ import annotations

import inspect
import re
from typing import Any

# Every method the router can route (an unknown method token is answered by the engine: 405).
METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE")


def is_asgi3(app: Any) -> bool:
    """Whether `app` is an ASGI 3 callable: app(scope, receive, send) returning an awaitable."""
    call = app if inspect.isfunction(app) or inspect.ismethod(app) else getattr(app, "__call__", None)  # noqa: B004
    if call is None:
        return False
    if inspect.iscoroutinefunction(call):
        return _positional_count(call) == 3
    return callable(app)


def _positional_count(func: Any) -> int:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):
        return 3
    return sum(1 for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))


_CONVERTORS = {"str", "int", "float", "uuid", "path"}
_PARAM = re.compile(r"\{([a-zA-Z_][a-zA-Z0-9_]*)(?::([a-zA-Z_][a-zA-Z0-9_]*))?\}")


def find_websocket_paths(app: Any, prefix: str = "", depth: int = 0) -> list[str]:
    """The WebSocket paths an app declares (Starlette's and FastAPI's WebSocket routes, under their Mounts and
    included routers), in the engine's pattern syntax. The engine routes a WebSocket handshake only on a path
    registered for it."""
    if depth > 16:
        return []
    routes = getattr(app, "routes", None)
    sockets = getattr(app, "websocket_routes", None)  # a Slipstream App keeps its WebSocket routes apart
    if isinstance(sockets, list):
        return [engine_pattern(prefix + route.path) for route in sockets]
    if routes is None:
        inner = getattr(app, "app", None)  # an ASGI middleware around the app
        return find_websocket_paths(inner, prefix, depth + 1) if inner is not None and inner is not app else []
    return list(dict.fromkeys(_walk(routes, prefix, depth)))


def _walk(routes: Any, prefix: str, depth: int) -> list[str]:
    found: list[str] = []
    for route in routes:
        candidates = getattr(route, "effective_candidates", None)
        if callable(candidates):  # FastAPI's included router (its routes, with the include's prefix applied)
            low = getattr(route, "effective_low_priority_routes", None)
            inner = [*candidates(), *(low() if callable(low) else ())]
            found.extend(_walk([getattr(c, "starlette_route", c) for c in inner], prefix, depth + 1))
            continue
        path = getattr(route, "path", None)
        if not isinstance(path, str):
            continue
        if "WebSocket" in type(route).__name__:
            found.append(engine_pattern(prefix + path))
        elif getattr(route, "routes", None) is not None or getattr(route, "app", None) is not None:
            found.extend(
                find_websocket_paths(getattr(route, "app", None) or route, prefix + path.rstrip("/"), depth + 1)
            )
    return found


def engine_pattern(path: str) -> str:
    def convert(match: re.Match[str]) -> str:
        name, convertor = match.group(1), match.group(2)
        return "{" + name + (":" + convertor if convertor in _CONVERTORS else "") + "}"

    return _PARAM.sub(convert, path or "/")


__all__ = ["METHODS", "engine_pattern", "find_websocket_paths", "is_asgi3"]
