"""Shared fixtures: the handler style axis (def / async def) and a FastAPI-parity helper."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture(params=["def", "async"])
def style(request: pytest.FixtureRequest) -> str:
    """Each behaviour test runs with plain and coroutine handlers."""
    return request.param


def styled(style: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator: leaves a def handler as is for "def"; wraps it in an `async def` with the same signature for
    "async" (one awaited asyncio.sleep(0) when the handler sets `suspend`)."""

    def wrap(func: Callable[..., Any]) -> Callable[..., Any]:
        if style == "def":
            return func

        @functools.wraps(func)
        async def handler(*args: Any, **kwargs: Any) -> Any:
            return func(*args, **kwargs)

        handler.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
        return handler

    return wrap


def suspending(func: Callable[..., Any]) -> Callable[..., Any]:
    """An async handler that really suspends (awaits a timer) before calling `func`."""

    @functools.wraps(func)
    async def handler(*args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(0.001)
        return func(*args, **kwargs)

    handler.__signature__ = inspect.signature(func)  # type: ignore[attr-defined]
    return handler
