"""A WebSocket route's handler and its dependencies (FastAPI's): arguments from the path, query, headers and
cookies (validated with pydantic), the WebSocket itself, and Depends() callables, `yield` ones included."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import typing
from collections.abc import Callable, Mapping, Sequence
from contextlib import AsyncExitStack
from typing import Annotated, Any

from pydantic import Field as PydanticField
from pydantic import TypeAdapter, ValidationError

from . import _signature, _threads, telemetry
from ._core.connection import HTTPConnection
from ._core.websocket import WebSocket
from ._markers import split_markers
from .dependencies.params import DependsParam
from .dependencies.tree import ACALL, AGEN, CALL, GEN, kind_of
from .params import HeaderParam, Param, Required

SOCKET, DEPEND, VALUE = range(3)
_SEQUENCES = (list, tuple, set, frozenset, Sequence)


class WebSocketValidationError(Exception):
    """Invalid parameters: FastAPI closes the connection with 1008 and the errors as the reason."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(errors)
        self.errors = errors


@dataclasses.dataclass
class _Value:
    source: str
    wire: str
    adapter: TypeAdapter[Any]
    sequence: bool
    default: Any
    default_factory: Callable[[], Any] | None


@dataclasses.dataclass
class _Plan:
    call: Callable[..., Any]
    kind: int
    params: list[tuple[str, int, Any]]  # (name, SOCKET/DEPEND/VALUE, _Value or DependsParam)


def _is_socket(annotation: Any, name: str) -> bool:
    if isinstance(annotation, str):
        return annotation.endswith("WebSocket")
    if annotation is inspect.Parameter.empty:
        return name == "websocket"
    # HTTPConnection: the Request on HTTP routes, the WebSocket here (the security classes ask for it).
    return annotation is HTTPConnection or (isinstance(annotation, type) and issubclass(annotation, WebSocket))


def _value(name: str, clean: Any, marker: Param | None, default: Any, in_path: bool) -> _Value:
    if marker is None:
        source, wire, constraints, factory = ("path" if in_path else "query"), name, {}, None
    else:
        source, factory, constraints = marker.source, marker.default_factory, marker.constraints()
        wire = marker.alias or name
        if isinstance(marker, HeaderParam) and marker.convert_underscores and marker.alias is None:
            wire = name.replace("_", "-")
    target = clean if clean is not inspect.Parameter.empty else str
    stripped = target
    while typing.get_origin(stripped) is Annotated:
        stripped = typing.get_args(stripped)[0]
    sequence = typing.get_origin(stripped) in _SEQUENCES
    adapter: TypeAdapter[Any] = TypeAdapter(Annotated[target, PydanticField(**constraints)] if constraints else target)
    return _Value(source, wire.lower() if source == "header" else wire, adapter, sequence, default, factory)


def plan_for(call: Callable[..., Any], path_names: Sequence[str]) -> _Plan:
    """How to call `call`: each parameter's source, read once when the route is registered."""
    hints = _signature._hints(call)
    params: list[tuple[str, int, Any]] = []
    for name, p in inspect.signature(call).parameters.items():
        if p.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            continue
        annotation = hints.get(name, p.annotation)
        clean, base, marker, from_annotated = split_markers(annotation, p.default)
        if isinstance(marker, DependsParam):
            dependency = marker.dependency if marker.dependency is not None else base
            params.append((name, DEPEND, dataclasses.replace(marker, dependency=dependency)))
        elif marker is None and _is_socket(base, name):
            params.append((name, SOCKET, None))
        else:
            default = p.default if p.default is not inspect.Parameter.empty else Required
            if isinstance(marker, Param) and not from_annotated:
                default = marker.default
            params.append((name, VALUE, _value(name, clean, marker if isinstance(marker, Param) else None, default,
                                               name in path_names)))
    return _Plan(call, kind_of(call), params)


def _cookies(header: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for chunk in header.split(";"):
        key, sep, value = chunk.partition("=")
        if sep and key.strip():
            out[key.strip()] = value.strip()
    return out


_MISSING: Any = object()


def _raw(value: _Value, ws: Any) -> Any:
    if value.source == "path":
        return ws.path_params.get(value.wire, _MISSING)
    if value.source == "query":
        items = ws.query_params.getlist(value.wire)
        return items if value.sequence else (items[-1] if items else _MISSING)
    if value.source == "header":
        items = ws.headers.getlist(value.wire)
        return items if value.sequence else (items[0] if items else _MISSING)
    if value.source == "cookie":
        return _cookies(ws.headers.get("cookie", "")).get(value.wire, _MISSING)
    return _MISSING


def _read(value: _Value, ws: Any, errors: list[dict[str, Any]]) -> Any:
    loc = (value.source, value.wire)
    raw = _raw(value, ws)
    if raw is _MISSING or raw == []:
        if value.default is Required and value.default_factory is None:
            errors.append({"type": "missing", "loc": list(loc), "msg": "Field required", "input": None})
            return None
        return value.default_factory() if value.default_factory is not None else value.default
    try:
        return value.adapter.validate_python(raw)
    except ValidationError as exc:
        for error in exc.errors(include_url=False):
            errors.append({**error, "loc": [*loc, *error.get("loc", ())]})
        return None


class WsEndpoint:
    """A WebSocket route's handler with its route-level dependencies; `overrides()` gives the app's
    dependency_overrides at connection time."""

    def __init__(self, func: Callable[..., Any], path: str, dependencies: Sequence[Any] = (),
                 overrides: Callable[[], Mapping[Any, Any]] = dict) -> None:
        self.func = func
        self.path = path
        self.path_names = _signature.path_param_names(path)
        self.route_dependencies = [d for d in dependencies if isinstance(d, DependsParam)]
        self.overrides = overrides
        self._plans: dict[Any, _Plan] = {}
        self.plan = self._plan(func)  # a bad signature fails at startup
        for depends in self.route_dependencies:
            if depends.dependency is not None:
                self._plan(depends.dependency)

    def _plan(self, call: Callable[..., Any]) -> _Plan:
        plan = self._plans.get(call)
        if plan is None:
            plan = self._plans[call] = plan_for(call, self.path_names)
        return plan

    async def call(self, ws: Any) -> Any:
        """Solves the dependencies and calls the handler; `yield` dependencies exit when it returns."""
        overrides = self.overrides()
        cache: dict[Any, Any] = {}
        async with AsyncExitStack() as stack:
            errors: list[dict[str, Any]] = []
            with telemetry.operation("dependencies", self.func):  # FastAPI's operation spans (a traced app)
                for depends in self.route_dependencies:
                    await self._solve_depends(depends, ws, stack, cache, overrides, errors)
                kwargs = await self._arguments(self.plan, ws, stack, cache, overrides, errors)
            if errors:
                raise WebSocketValidationError(errors)
            with telemetry.operation("endpoint", self.func):
                result = self.func(**kwargs)
                if inspect.isawaitable(result):
                    result = await result
            return result

    async def _solve_depends(self, depends: DependsParam, ws: Any, stack: AsyncExitStack, cache: dict[Any, Any],
                             overrides: Mapping[Any, Any], errors: list[dict[str, Any]]) -> Any:
        original = depends.dependency
        if depends.use_cache and original in cache:
            return cache[original]
        call = overrides.get(original, original)
        plan = self._plan(call)
        own: list[dict[str, Any]] = []
        kwargs = await self._arguments(plan, ws, stack, cache, overrides, own)
        if own:
            errors.extend(own)
            return None
        # `def` dependencies (and a `yield` one's entry and exit) in the thread pool, as FastAPI runs them.
        if plan.kind == GEN:
            value = await stack.enter_async_context(_threads.sync_context(contextlib.contextmanager(call)(**kwargs)))
        elif plan.kind == AGEN:
            value = await stack.enter_async_context(contextlib.asynccontextmanager(call)(**kwargs))
        elif plan.kind == ACALL:
            value = await call(**kwargs)
        else:
            assert plan.kind == CALL
            value = await _threads.run_sync(call, **kwargs)
        if depends.use_cache:
            cache[original] = value
        return value

    async def _arguments(self, plan: _Plan, ws: Any, stack: AsyncExitStack, cache: dict[Any, Any],
                         overrides: Mapping[Any, Any], errors: list[dict[str, Any]]) -> dict[str, Any]:
        kwargs: dict[str, Any] = {}
        for name, kind, info in plan.params:
            if kind == SOCKET:
                kwargs[name] = ws
            elif kind == DEPEND:
                kwargs[name] = await self._solve_depends(info, ws, stack, cache, overrides, errors)
            else:
                kwargs[name] = _read(info, ws, errors)
        return kwargs


__all__ = ["WebSocketValidationError", "WsEndpoint", "plan_for"]
