"""The dependency tree of a route, read once at registration: FastAPI's Dependant, with overrides applied."""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import _signature
from .form_fields import form_reads
from .params import DependsParam, SecurityParam

# How a dependency is called (Dependant.kind).
CALL, ACALL, GEN, AGEN = range(4)
_MAX_DEPTH = 64


class DependencyScopeError(TypeError):
    """A dependency with scope "request" depends on one with scope "function" (FastAPI refuses it too)."""


@dataclasses.dataclass(eq=False)
class Dependant:
    """One callable in the tree: the handler (the root) or a dependency."""

    call: Callable[..., Any]
    name: str | None                 # the parameter it fills in its parent; None for the root and route-level ones
    use_cache: bool
    scope: str | None                # declared scope
    own_scopes: list[str]
    parent_scopes: list[str]
    reads: list[_signature.ParamRead]
    subs: list[Dependant] = dataclasses.field(default_factory=list)
    key_call: Any = None             # the call the cache key names (the original one when overridden)
    overridden: bool = False         # this dependant or one above it came from dependency_overrides
    kind: int = CALL
    form_fields: dict[str, Any] = dataclasses.field(default_factory=dict)  # FORM reads' fields by name
    limit: Any = None                # Depends(max_concurrency=...): its ConcurrencyLimit

    @property
    def scopes(self) -> list[str]:
        out = list(self.parent_scopes)
        for scope in self.own_scopes:
            if scope not in out:
                out.append(scope)
        return out

    def uses_scopes(self) -> bool:
        return bool(self.own_scopes) or any(r.kind == _signature.SCOPES for r in self.reads) or \
            is_security_scheme(self.call) or any(s.uses_scopes() for s in self.subs)

    def computed_scope(self) -> str | None:
        if self.scope:
            return self.scope
        return "request" if self.kind in (GEN, AGEN) else None

    def cache_key(self) -> tuple[Any, ...]:
        scopes = tuple(sorted(set(self.scopes))) if self.uses_scopes() else ()
        return (self.key_call, scopes, self.computed_scope() or "")


def is_security_scheme(call: Any) -> bool:
    """Security scheme objects (OAuth2PasswordBearer, APIKeyHeader, ...) carry an OpenAPI `model` and a name."""
    return hasattr(call, "model") and hasattr(call, "scheme_name")


def _impartial(call: Any) -> Any:
    while isinstance(call, functools.partial):
        call = call.func
    return call


def _candidates(call: Any) -> list[Any]:
    """What FastAPI inspects to classify a dependency: the callable without its partials and wrappers, and,
    unless that is a class, its `__call__` (the partial's target's, so `partial(obj)` with an `async __call__`
    is a coroutine dependency)."""
    bare = _impartial(call)
    unwrapped = inspect.unwrap(bare)
    candidates = [bare, unwrapped]
    if inspect.isclass(unwrapped):
        return candidates
    for owner in (bare, unwrapped):
        dunder = getattr(owner, "__call__", None)  # noqa: B004 - callable instances
        if dunder is not None:
            candidates += [_impartial(dunder), inspect.unwrap(_impartial(dunder))]
    return candidates


def kind_of(call: Any) -> int:
    """FastAPI's order: generator, async generator, coroutine, else a plain call (classes included)."""
    candidates = _candidates(call)
    if any(inspect.isgeneratorfunction(c) for c in candidates):
        return GEN
    if any(inspect.isasyncgenfunction(c) for c in candidates):
        return AGEN
    if any(inspect.iscoroutinefunction(c) for c in candidates):
        return ACALL
    return CALL


def build(call: Callable[..., Any], in_path: Sequence[str], *, dependencies: Sequence[DependsParam] = (),
          overrides: Mapping[Any, Any] | None = None) -> Dependant:
    """The root Dependant of a handler, with the route-level `dependencies` first among its sub-dependencies."""
    root = _dependant(call, in_path, name=None, depends=DependsParam(call), parent_scopes=[],
                      overrides=overrides or {}, overridden=False, depth=0)
    # The handler itself is called, never entered: a generator handler is a streamed response.
    root.kind = ACALL if kind_of(call) == ACALL else CALL
    route_level = [_sub(d, None, in_path, [], overrides or {}, False, 1) for d in dependencies]
    root.subs[:0] = route_level
    return root


def _sub(depends: DependsParam, name: str | None, in_path: Sequence[str], parent_scopes: list[str],
         overrides: Mapping[Any, Any], overridden: bool, depth: int) -> Dependant:
    if depends.dependency is None or not callable(depends.dependency):
        raise TypeError(f"Depends() of '{name}' needs a callable dependency")
    own = list(depends.scopes or []) if isinstance(depends, SecurityParam) else []
    original = depends.dependency
    replacement = overrides.get(original, original)
    if replacement is not original:
        # FastAPI: the override is read afresh; it inherits the original's scopes and cache key.
        scopes = parent_scopes + [s for s in own if s not in parent_scopes]
        dep = _dependant(replacement, in_path, name=name, depends=dataclasses.replace(depends, dependency=replacement),
                         parent_scopes=scopes, overrides=overrides, overridden=True, depth=depth, own_scopes=[])
    else:
        dep = _dependant(original, in_path, name=name, depends=depends, parent_scopes=parent_scopes,
                         overrides=overrides, overridden=overridden, depth=depth, own_scopes=own)
    dep.key_call = original
    return dep


def _dependant(call: Callable[..., Any], in_path: Sequence[str], *, name: str | None, depends: DependsParam,
               parent_scopes: list[str], overrides: Mapping[Any, Any], overridden: bool, depth: int,
               own_scopes: list[str] | None = None) -> Dependant:
    if depth > _MAX_DEPTH:
        raise TypeError(f"dependencies nested deeper than {_MAX_DEPTH} (a cycle?) at {call!r}")
    dep = Dependant(call=call, name=name, use_cache=depends.use_cache, scope=depends.scope,
                    own_scopes=list(own_scopes or []), parent_scopes=list(parent_scopes),
                    reads=_signature.read_parameters(call, in_path), key_call=call, overridden=overridden,
                    kind=kind_of(call), limit=depends.limit)
    dep.form_fields = form_reads(call, dep.reads)
    for read in dep.reads:
        if read.kind != _signature.DEPENDS:
            continue
        assert read.depends is not None
        if dep.computed_scope() == "request" and dep.kind in (GEN, AGEN) and read.depends.scope == "function":
            raise DependencyScopeError(
                f'The dependency "{getattr(call, "__name__", "<unnamed_callable>")}" has a scope of "request", '
                'it cannot depend on dependencies with scope "function".')
        dep.subs.append(_sub(read.depends, read.name, in_path, dep.scopes, overrides, overridden, depth + 1))
    return dep
