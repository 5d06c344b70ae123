"""What changes after a TestClient started, served as FastAPI serves it (the TestClient builds its server with
`late_changes`): routes added to the app since, and routes whose dependency_overrides since replaced parameters
that the C++ validator still checks. Both are served in Python, every parameter read and validated by pydantic
(late.py), through the same runner as any route with dependencies.

A server started by App.run() reads its routes once; there, requests that fail the C++ validation are answered
by it (422) without Python, as ARCHITECTURE.md wants."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .. import _signature
from .._forwarded import forwarded_exception
from .._responses_prep import make_prepare
from ..exceptions import HTTP_EXCEPTION, RequestValidationError
from ..responses import Response
from . import tree as _tree
from .runner import UNVALIDATED, RouteInfo, answer_through_chain, endpoint_response

_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")
_CONVERTOR = {"str": "[^/]+", "int": "[0-9]+", "float": r"[0-9]+(?:\.[0-9]+)?", "path": ".*",
              "uuid": "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"}


def _regex(pattern: str) -> re.Pattern[str]:
    out, pos = [], 0
    for m in _PARAM.finditer(pattern):
        out.append(re.escape(pattern[pos:m.start()]))
        out.append(f"(?P<{m.group(1)}>{_CONVERTOR.get(m.group(2) or 'str', '[^/]+')})")
        pos = m.end()
    out.append(re.escape(pattern[pos:]))
    return re.compile("".join(out))


def route_info(app: Any, route: Any, runtime: Any) -> RouteInfo:
    """The runner's view of a route added after the start: it has no C++-validated program, so it is only ever
    run UNVALIDATED (every parameter read in Python, with the overrides in force)."""
    deps = list(getattr(route, "dependencies", None) or [])
    return RouteInfo(None, prepare=make_prepare(route), status_code=route.status_code or 200,  # type: ignore[arg-type]
                     hooks=runtime, overrides=lambda: app.dependency_overrides, snapshot={},
                     rebuild=lambda overrides: _tree.build(route.endpoint, _signature.path_param_names(route.path),
                                                           dependencies=deps, overrides=overrides))


class Rerun:
    """Set as `_slipstream_rerun` on the runner of a route with dependencies: a request that failed the C++
    validation is run again with every parameter read in Python when dependency_overrides changed since the
    start (an override may drop the parameters that failed; see _forwarded.answer_forwarded)."""

    def __init__(self, info: RouteInfo, runner: Callable[..., Any]) -> None:
        self.info = info
        self.runner = runner

    def applies(self, text: str, request: Any) -> bool:
        """Overridden since the start, and not a malformed body (FastAPI reads the body of the route as declared,
        before any dependency, so that error stands)."""
        if not self.info.overridden():
            return False
        exc = forwarded_exception(text, request)
        return isinstance(exc, RequestValidationError) and not any(
            e.get("type") == "json_invalid" for e in exc.errors())

    def __call__(self, request: Any, reply: Any) -> Any:
        return self.runner(__reply__=reply, __request__=request, **{UNVALIDATED: True})


class LateRoutes:
    """The endpoint of the catch-all route: a route of `app` added after the server started (not in
    `registered`), else `fallback` (the 404/405/redirect answers)."""

    def __init__(self, app: Any, runtime: Any, registered: list[Any], fallback: Callable[[Any], Any]) -> None:
        self.app = app
        self.runtime = runtime
        self.registered = registered  # kept: their ids stay unique while this lives
        self._known = {id(r) for r in registered}
        self.fallback = fallback
        self._entries: dict[int, tuple[Any, re.Pattern[str], RouteInfo]] = {}

    def _entry(self, route: Any) -> tuple[re.Pattern[str], RouteInfo]:
        entry = self._entries.get(id(route))
        if entry is None or entry[0] is not route:
            entry = (route, _regex(route.path), route_info(self.app, route, self.runtime))
            self._entries[id(route)] = entry
        return entry[1], entry[2]

    async def respond(self, request: Any, reply: Any, after: list[Callable[[], Any]]) -> Response:
        allowed: list[str] | None = None
        for route in self.app.routes:
            if id(route) in self._known:
                continue
            regex, info = self._entry(route)
            match = regex.fullmatch(request.path)
            if match is None:
                continue
            if request.method in route.methods:
                request.path_params = match.groupdict()
                request.route_path = route.path
                return await endpoint_response(info, {UNVALIDATED: True}, request, reply, after)
            if allowed is None:  # FastAPI's Allow: the first matching route's methods
                allowed = list(route.methods)
        if allowed is not None:
            raise HTTP_EXCEPTION(405, headers={"Allow": ", ".join(allowed)})  # Starlette's class, as its router
        return await self.fallback(request)


def make_runner(late: LateRoutes, chain: Any, hooks: Any) -> Callable[..., Any]:
    """The catch-all route's handler: `late` inside the app's middleware chain (an empty one without)."""

    async def run(__reply__: Any, __request__: Any) -> None:
        reply = __reply__
        await answer_through_chain(chain, __request__, reply, hooks,
                                   lambda req, after: late.respond(req, reply, after))

    return run
