"""Depends(), Security() and SecurityScopes: FastAPI's dependency markers, with the same names and arguments."""

from __future__ import annotations

import asyncio
import dataclasses
import weakref
from collections.abc import Callable, Sequence
from typing import Any, Literal


class ConcurrencyLimit:
    """Depends(max_concurrency=n): at most n calls of the dependency at once on a loop (a `yield` dependency counts
    until its exit code ran); the others wait their turn."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._by_loop: weakref.WeakKeyDictionary[Any, asyncio.Semaphore] = weakref.WeakKeyDictionary()

    def semaphore(self) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        found = self._by_loop.get(loop)
        if found is None:
            found = self._by_loop[loop] = asyncio.Semaphore(self.size)
        return found


@dataclasses.dataclass(frozen=True)
class DependsParam:
    """What `Depends(...)` returns: the dependency callable (None: the parameter's annotation), whether its value
    is cached per request, and the scope of a `yield` dependency's exit code ("request": after the response is
    sent; "function": right after the handler returns)."""

    dependency: Callable[..., Any] | None = None
    use_cache: bool = True
    scope: Literal["function", "request"] | None = None
    max_concurrency: int | None = dataclasses.field(default=None, kw_only=True)
    # The calls in flight are counted per declaration (two equal Depends() count apart, as in FastAPI).
    limit: ConcurrencyLimit | None = dataclasses.field(default=None, kw_only=True, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.scope not in (None, "function", "request"):
            raise ValueError(f"scope must be 'function' or 'request', not {self.scope!r}")
        if self.max_concurrency is None:
            object.__setattr__(self, "limit", None)
            return
        if type(self.max_concurrency) is not int or self.max_concurrency < 1:
            raise ValueError("max_concurrency must be a positive integer or None")
        if self.limit is None or self.limit.size != self.max_concurrency:
            object.__setattr__(self, "limit", ConcurrencyLimit(self.max_concurrency))


@dataclasses.dataclass(frozen=True)
class SecurityParam(DependsParam):
    """What `Security(...)` returns: a dependency that also declares OAuth2 scopes."""

    scopes: Sequence[str] | None = None


def Depends(dependency: Callable[..., Any] | None = None, *, use_cache: bool = True,
            scope: Literal["function", "request"] | None = None, max_concurrency: int | None = None) -> Any:
    """A dependency: `db: Annotated[Session, Depends(get_db)]` or `user = Depends(current_user)`.

    The callable may be a function, an `async def`, a generator or async generator (code after `yield` runs after
    the response is sent, or right after the handler with scope="function"), or a class. Its own parameters are
    read from the request like a handler's (validated in C++ with the route's), and may depend on others.
    `max_concurrency`: at most that many calls of it at once (the others wait), as in FastAPI."""
    return DependsParam(dependency=dependency, use_cache=use_cache, scope=scope, max_concurrency=max_concurrency)


def Security(dependency: Callable[..., Any] | None = None, *, scopes: Sequence[str] | None = None,
             use_cache: bool = True) -> Any:
    """A dependency with OAuth2 scopes; dependencies below it see them (with their own) in `SecurityScopes`."""
    return SecurityParam(dependency=dependency, use_cache=use_cache, scopes=list(scopes) if scopes else None)


class SecurityScopes:
    """Declare a parameter of this type in a dependency to get every scope required by the chain above it."""

    def __init__(self, scopes: list[str] | None = None) -> None:
        self.scopes: list[str] = scopes or []
        self.scope_str: str = " ".join(self.scopes)
