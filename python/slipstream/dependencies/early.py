"""FastAPI's order on a request that failed validation: the dependencies whose own parameters (and whose
sub-dependencies) are valid run before the 422 is raised, so one that raises (say a 401) wins over it."""

from __future__ import annotations

import copy
import typing
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from typing import Any

from pydantic import TypeAdapter

from .. import _plans, _signature
from . import program as _program
from . import shape as _shape
from .params import SecurityScopes

_SOURCES = ("query", "header", "cookie", "path")
_MISSING = object()


class EarlyRun:
    """The steps of a route's dependency program (all but the handler), with the fields that feed them."""

    def __init__(self, program: _program.Program, fields: dict[str, _signature.Field],
                 is_current: Callable[[], bool]) -> None:
        self.program = program
        self.fields = fields            # keyword -> the dependency parameter it holds
        self.is_current = is_current    # False once dependency_overrides changed (the program is rebuilt then)
        self._adapters: dict[str, TypeAdapter[Any]] = {}

    def applies(self, errors: Sequence[dict[str, Any]]) -> bool:
        """A malformed JSON body is raised before any dependency runs, as in FastAPI."""
        return self.is_current() and not any(e.get("type") == "json_invalid" for e in errors)

    async def run(self, exc: Exception, request: Any) -> None:
        """Calls, in order, each dependency whose parameters have no error and whose sub-dependencies ran, then
        raises `exc` (the 422), or what a dependency raised first; the exit code of the `yield` dependencies entered
        runs with it, function-scoped ones first, as in FastAPI."""
        errors = exc.errors() if hasattr(exc, "errors") else ()
        bad = {tuple(e.get("loc", ()))[:2] for e in errors}
        steps = self.program.steps[:-1]
        values: list[Any] = [None] * len(steps)
        ran = [False] * len(steps)
        ex = _program.Exchange(request)
        async with AsyncExitStack() as rstack:
            ex.rstack = rstack
            async with AsyncExitStack() as fstack:
                ex.fstack = fstack
                for i, step in enumerate(steps):
                    if step.alias is not None:
                        values[i], ran[i] = values[step.alias], ran[step.alias]
                        continue
                    kwargs = self._arguments(step, bad, values, ran, ex)
                    if kwargs is None:
                        continue
                    values[i] = await _program.call_step(step, kwargs, ex)
                    ran[i] = True
                raise exc

    def _arguments(self, step: _program.Step, bad: set[tuple[Any, ...]], values: list[Any], ran: list[bool],
                   ex: _program.Exchange) -> dict[str, Any] | None:
        kwargs: dict[str, Any] = {}
        for name, source, ref in step.args:
            if source == _program.FLAT:
                field = self.fields[ref]
                if (field.source, field.wire) in bad:
                    return None
                kwargs[name] = self._value(ref, field, ex.request)
            elif source == _program.STEP:
                if not ran[ref]:
                    return None
                kwargs[name] = values[ref]
            elif source == _program.MODEL:
                errors: list[Any] = []
                kwargs[name] = ref.read(ex.request, errors)
                if errors:
                    return None
            elif source == _program.REQUEST:
                kwargs[name] = ex.request
            elif source == _program.RESPONSE:
                kwargs[name] = ex.sub_response()
            elif source == _program.BACKGROUND:
                kwargs[name] = ex.background_tasks()
            else:
                kwargs[name] = SecurityScopes(scopes=list(ref))
        return kwargs

    def _value(self, kw: str, field: _signature.Field, request: Any) -> Any:
        raw = _raw(field, request)
        if raw is _MISSING:
            return field.default_factory() if field.default_factory is not None else copy.deepcopy(field.default)
        adapter = self._adapters.get(kw)
        if adapter is None:
            adapter = self._adapters[kw] = TypeAdapter(field.annotation)
        return adapter.validate_python(raw)


def _is_sequence(tp: Any) -> bool:
    tp = typing.get_args(tp)[0] if typing.get_origin(tp) is typing.Annotated else tp
    members = [m for m in typing.get_args(tp) if m is not type(None)] if _plans._is_union(tp) else [tp]
    return any(typing.get_origin(m) in (list, set, tuple, frozenset) or m in (list, set, tuple) for m in members)


def _raw(field: _signature.Field, request: Any) -> Any:
    if field.source == "path":
        return request.path_params.get(field.wire, _MISSING)
    if field.source == "cookie":
        return request.cookies.get(field.wire, _MISSING)
    container = request.query_params if field.source == "query" else request.headers
    if _is_sequence(field.annotation):
        found = container.getlist(field.wire)
        return found if found else _MISSING
    value = container.get(field.wire)
    return _MISSING if value is None else value


def plan(program: Any, is_current: Callable[[], bool]) -> EarlyRun | None:
    """An EarlyRun for `program` when every dependency (a call or a `yield` dependency, without form fields) has
    only path, query, header or cookie parameters; else None (every parameter is validated first)."""
    if program is None or len(program.steps) < 2:
        return None
    root = program.root
    fields: dict[str, _signature.Field] = {}
    for dep in _shape._walk_all(root):
        if dep is root:
            continue
        if dep.form_fields:
            return None
        for field in _shape._fields(dep):
            if field.source not in _SOURCES:
                return None
            fields[program.flat[(id(dep), field.name)]] = field
    for step in program.steps[:-1]:
        if step.alias is None and any(src == _program.FLAT and ref not in fields for _n, src, ref in step.args):
            return None
    return EarlyRun(program, fields, is_current)
