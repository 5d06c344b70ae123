"""App lifespan (FastAPI's rules): a `lifespan` context manager, or on_startup/on_shutdown handlers; and State."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from typing import Any


class State:
    """An attribute bag: `app.state.db = ...`, `request.state.user = ...` (Starlette's State)."""

    def __init__(self, state: dict[str, Any] | None = None) -> None:
        super().__setattr__("_state", state if state is not None else {})

    def __setattr__(self, key: str, value: Any) -> None:
        self._state[key] = value

    def __getattr__(self, key: str) -> Any:
        try:
            return self._state[key]
        except KeyError:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{key}'") from None

    def __delattr__(self, key: str) -> None:
        del self._state[key]

    def __getitem__(self, key: str) -> Any:
        return self._state[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._state[key] = value

    def __delitem__(self, key: str) -> None:
        del self._state[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._state)

    def __len__(self) -> int:
        return len(self._state)


async def _call(handler: Callable[[], Any]) -> None:
    result = handler()
    if inspect.isawaitable(result):
        await result


class DefaultLifespan:
    """Runs the app's on_startup handlers on enter and its on_shutdown handlers on exit, in order."""

    def __init__(self, owner: Any) -> None:
        self._owner = owner

    def __call__(self, app: Any) -> DefaultLifespan:
        return self

    async def __aenter__(self) -> None:
        for handler in self._owner.on_startup:
            await _call(handler)

    async def __aexit__(self, *exc_info: object) -> None:
        for handler in self._owner.on_shutdown:
            await _call(handler)


class _SyncLifespan:
    def __init__(self, cm: Any) -> None:
        self._cm = cm

    async def __aenter__(self) -> Any:
        return self._cm.__enter__()

    async def __aexit__(self, *exc_info: object) -> Any:
        return self._cm.__exit__(*exc_info)


def lifespan_context(lifespan: Any, owner: Any) -> Callable[[Any], Any]:
    """`lifespan(app)` as an async context manager factory: an async generator function, a generator function,
    or a factory of async context managers; None runs `owner`'s on_startup/on_shutdown handlers."""
    if lifespan is None:
        return DefaultLifespan(owner)
    if inspect.isasyncgenfunction(lifespan):
        return contextlib.asynccontextmanager(lifespan)
    if inspect.isgeneratorfunction(lifespan):
        cm = contextlib.contextmanager(lifespan)
        return lambda app: _SyncLifespan(cm(app))
    return lifespan


def merge(outer: Callable[[Any], Any], inner: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """An included router's lifespan nested in the app's; their states merged (the app's wins)."""

    @contextlib.asynccontextmanager
    async def merged(app: Any) -> AsyncIterator[Mapping[str, Any] | None]:
        async with outer(app) as outer_state, inner(app) as inner_state:
            if outer_state is None and inner_state is None:
                yield None
            else:
                yield {**(inner_state or {}), **(outer_state or {})}

    return merged
