"""A route's dependency tree flattened into one RouteSpec (as FastAPI flattens it), plus the argument list.

Parameters of every dependency are validated in C++ with the handler's, so invalid input gets FastAPI's 422
without entering Python. Dependants are taken in the order FastAPI solves them (dependencies first), each cache
key once for path, query, header and cookie parameters (two dependants reading the same name get two rows with
the same wire name); body fields of every dependant share one row per name and are embedded when there is more
than one name (or the first has embed=True), as FastAPI decides.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from .. import _fallback, _plans, _schema, _signature
from .._core.plan_desc import CallPlan
from .._core.route_desc import ArgDesc, ArgKind, BodyDesc, ParamDesc, ParamSource
from . import program as _program
from . import tree as _tree
from .params import DependsParam

_SOURCES = {"path": ParamSource.PATH, "query": ParamSource.QUERY, "header": ParamSource.HEADER,
            "cookie": ParamSource.COOKIE}


@dataclasses.dataclass
class RouteShape:
    """A route's inputs as the extension reads them (slipstream/_core/route_desc.py): RouteSpec rows, handler
    arguments, path parameter names.

    `program` is None for a plain route (the handler is called with its arguments); otherwise the route runs
    through a runner (dependencies/runner.py) that receives the flat arguments, the Request and the reply.
    `fallback`: the parameters pydantic validates because the C++ validator does not model their type (see
    _fallback.py), or None."""

    params: tuple[ParamDesc, ...]
    body: tuple[BodyDesc, ...]
    args: tuple[ArgDesc, ...]
    path_params: tuple[str, ...]
    program: Any = None
    fallback: Any = None


def _key(dep: _tree.Dependant, root: _tree.Dependant) -> tuple[Any, ...]:
    return ("<root>",) if dep is root else dep.cache_key()


def _walk_solve(root: _tree.Dependant) -> list[_tree.Dependant]:
    """Every dependant in the order FastAPI solves them (and reports their errors): dependencies first."""
    out: list[_tree.Dependant] = []

    def visit(dep: _tree.Dependant) -> None:
        for sub in dep.subs:
            visit(sub)
        out.append(dep)

    visit(root)
    return out


def _walk_all(root: _tree.Dependant) -> list[_tree.Dependant]:
    out: list[_tree.Dependant] = []
    stack = [root]
    while stack:
        current = stack.pop()
        out.append(current)
        stack.extend(reversed(current.subs))
    return out


def _fields(dep: _tree.Dependant) -> list[_signature.Field]:
    return [r.field for r in dep.reads if r.kind == _signature.FIELD and r.field is not None]


class Rows:
    """RouteSpec rows and, per (dependant cache key, parameter), the row that feeds it."""

    def __init__(self, root: _tree.Dependant) -> None:
        self.params: list[ParamDesc] = []
        self.body: list[BodyDesc] = []
        self.slot: dict[tuple[int, str], int] = {}   # (id(dependant), parameter name) -> index in arguments
        self.keys: list[str] = []                      # index -> key in the arguments object
        self.fallback_plans: dict[int, CallPlan] = {}  # index -> pydantic plan (see _fallback.py)
        self._rows: list[tuple[tuple[str, ...], Any, Any]] = []
        self._reasons: list[tuple[str, str]] = []
        everyone = _walk_solve(root)
        keys = {id(d): _key(d, root) for d in everyone}
        first_of = {id(d): next(u for u in everyone if keys[id(u)] == keys[id(d)]) for d in everyone}
        unique = [d for d in everyone if first_of[id(d)] is d]
        param_list = [(d, f) for d in unique for f in _fields(d) if f.source != "body"]
        # Per parameter model (by its Field): how many rows of its location come before it (FastAPI's order).
        self.model_position: dict[int, int] = {}
        counts = dict.fromkeys(_SOURCES, 0)
        for d in unique:
            for r in d.reads:
                if r.field is not None and r.field.source in counts and r.kind == _signature.FIELD:
                    counts[r.field.source] += 1
                elif r.field is not None and r.kind == _signature.MODEL:
                    self.model_position[id(r.field)] = counts[r.field.source]
        param_list.sort(key=lambda df: _SOURCES[df[1].source])
        used: set[str] = set()
        for d, f in param_list:
            key = f.wire
            n = 1
            while key in used:
                n += 1
                key = f"{f.wire}#{n}"
            used.add(key)
            self.slot[(id(d), f.name)] = len(self.keys)
            self.keys.append(key)
            self.params.append(ParamDesc(key, _SOURCES[f.source], f.wire, self._schema(f), f.required))
        body_fields = [(d, f) for d in everyone for f in _fields(d) if f.source == "body"]
        names = {f.name for _, f in body_fields}
        first = next((f for d in _walk_all(root) for f in _fields(d) if f.source == "body"), None)  # FastAPI's
        self.embed = len(names) > 1 or bool(first is not None and getattr(first.marker, "embed", False))
        body_index: dict[str, int] = {}
        for d, f in body_fields:
            if f.wire not in body_index:
                body_index[f.wire] = len(self.keys)
                self.keys.append(f.wire)
                self.body.append(BodyDesc(f.wire, self._schema(f), f.required, embed=self.embed))
            self.slot[(id(d), f.name)] = body_index[f.wire]
        # Dependants met again (same cache key) read the rows of the first one.
        for d in everyone:
            first = first_of[id(d)]
            for f in _fields(d):
                if f.source != "body" and first is not d:
                    self.slot[(id(d), f.name)] = self.slot[(id(first), f.name)]

    def _schema(self, f: _signature.Field) -> str:
        """The schema text of the row just added for `f`; for a type the C++ validator does not model exactly, a
        permissive one, and pydantic validates the value in Python (see _fallback.py)."""
        constraints = f.marker.constraints()
        why = _fallback.reason(f.annotation, constraints, text=f.source != "body")
        loc = self.loc(f)
        if why is None:
            self._rows.append((loc, None, None))
            return _schema.schema_text(f.annotation, constraints)
        index = len(self.keys) - 1
        self.fallback_plans[index] = _fallback.plan(f.annotation, constraints)
        shaped = f.source != "body" and _fallback.list_shaped(f.annotation, constraints)
        reader = (_fallback.body_reader(f.wire if self.embed else None) if f.source == "body"
                  else _fallback.param_reader(f.source, f.wire, shaped))
        self._rows.append((loc, self.fallback_plans[index].target, reader))
        self._reasons.append((f"{f.source} {f.wire}", why))
        return _fallback.schema_text(shaped)

    def fallback(self) -> _fallback.RouteFallback | None:
        """The route's fallback parameters (None when the C++ validator models every one)."""
        return _fallback.RouteFallback(self._rows, self._reasons) if self._reasons else None

    def loc(self, field: _signature.Field) -> tuple[str, ...]:
        if field.source == "body":
            return ("body", field.wire) if self.embed else ("body",)
        return (field.source, field.wire)


def _value_arg(name: str, rows: Rows, dep: _tree.Dependant, field: _signature.Field) -> ArgDesc:
    index = rows.slot[(id(dep), field.name)]
    plan = _signature.default_plan(field, rows.fallback_plans.get(index) or _plans.plan_for(field.annotation))
    return ArgDesc(name, ArgKind.VALUE, index, rows.keys[index], plan, rows.loc(field))


def _is_plain(root: _tree.Dependant) -> bool:
    return not root.subs and all(r.kind in (_signature.FIELD, _signature.REQUEST) for r in root.reads)


def analyze(handler: Any, pattern: str, *, dependencies: Sequence[DependsParam] = (),
            overrides: Mapping[Any, Any] | None = None, runner: bool = False) -> RouteShape:
    """The route's shape: every parameter of the handler and of its dependencies (route-level `dependencies`
    first, `overrides` applied) as RouteSpec rows. `runner`: go through the runner even for a plain handler
    (an app with HTTP middleware). Raises TypeError on what slipstream cannot serve."""
    return build(handler, pattern, dependencies=dependencies, overrides=overrides or {}, runner=runner)


def build(handler: Any, pattern: str, *, dependencies: Sequence[DependsParam], overrides: Mapping[Any, Any],
          runner: bool) -> RouteShape:
    in_path = _signature.path_param_names(pattern)
    root = _tree.build(handler, in_path, dependencies=dependencies, overrides=overrides)
    _check_unique(root)
    rows = Rows(root)
    params, body = tuple(rows.params), tuple(rows.body)
    if _is_plain(root) and not runner:
        args = [_value_arg(f.name, rows, root, f) for f in _fields(root)]
        args += [ArgDesc.request(r.name) for r in root.reads if r.kind == _signature.REQUEST]
        return RouteShape(params, body, tuple(args), in_path, fallback=rows.fallback())
    # Runner: every field of every dependant as a keyword "a<n>", then the Request, then the reply.
    args: list[ArgDesc] = []
    flat: dict[tuple[int, str], str] = {}
    for dep in _walk_all(root):
        for f in _fields(dep):
            kw = f"a{len(args)}"
            flat[(id(dep), f.name)] = kw
            args.append(_value_arg(kw, rows, dep, f))
    prog = _program.compile_tree(root, flat)
    for _key, reader in prog.models:
        reader.position = rows.model_position.get(id(reader.field), 0)
    if runner or prog.needs_request:
        args.append(ArgDesc.request())
    args.append(ArgDesc.reply())
    return RouteShape(params, body, tuple(args), in_path, program=prog, fallback=rows.fallback())


def _check_unique(root: _tree.Dependant) -> None:
    """Within one callable, two parameters may not read the same name (across dependencies they may)."""
    for dep in _walk_all(root):
        seen: dict[tuple[str, str], str] = {}
        for f in _fields(dep):
            key = (f.source, f.wire)
            if key in seen:
                raise TypeError(f"parameters '{seen[key]}' and '{f.name}' share the name '{f.wire}'")
            seen[key] = f.name


__all__ = ["RouteShape", "Rows", "analyze", "build"]
