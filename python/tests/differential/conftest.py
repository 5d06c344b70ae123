"""Differential testing: the same app code under FastAPI and under Slipstream, compared request by request.

`clients(name)` builds the app factory `name` (diff_apps.FACTORIES) once per session for each framework and
returns (slipstream client, FastAPI client). Every compared request is recorded; the terminal summary prints
the match rate and each difference (known gaps included, with their reason).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient

from . import diff_apps, diff_support


class Clients:
    """(slipstream, fastapi) clients per app factory, built on first use and closed at the end of the session."""

    def __init__(self) -> None:
        self._built: dict[str, tuple[Any, Any]] = {}

    def __call__(self, name: str) -> tuple[Any, Any]:
        if name not in self._built:
            factory = diff_apps.FACTORIES[name]
            ours = slipstream.TestClient(factory(slipstream), raise_server_exceptions=False, follow_redirects=False)
            theirs = FastAPIClient(factory(fastapi), raise_server_exceptions=False, follow_redirects=False)
            self._built[name] = (ours, theirs)
        return self._built[name]

    def close(self) -> None:
        for ours, theirs in self._built.values():
            ours.close()
            theirs.close()


@pytest.fixture(scope="session")
def clients() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    built = Clients()
    yield built
    built.close()


@pytest.fixture(autouse=True)
def _current_module(request: Any) -> Iterator[None]:
    diff_support.CURRENT_MODULE[0] = request.module.__name__.rsplit(".", 1)[-1] + ".py"
    yield
    diff_support.CURRENT_MODULE[0] = ""


def _shorten(text: str, limit: int = 400) -> str:
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    outcomes = diff_support.OUTCOMES
    if not outcomes:
        return
    write = terminalreporter.write_line
    matched = sum(1 for o in outcomes if not o.diffs)
    terminalreporter.section("FastAPI differential results")
    write(f"match rate: {matched}/{len(outcomes)} requests ({100.0 * matched / len(outcomes):.1f}%)")
    # Per module (one per page of FastAPI's guide, docs/migrate-from-fastapi.md's table): `identical / compared`.
    modules: dict[str, list[int]] = {}
    for o in outcomes:
        counts = modules.setdefault(o.module, [0, 0])
        counts[0] += not o.diffs
        counts[1] += 1
    for module, (same, total) in sorted(modules.items()):
        write(f"| `{module}` | {same} / {total} |")
    differing = [o for o in outcomes if o.diffs]
    if not differing:
        return
    write(f"{len(differing)} difference(s):")
    for o in differing:
        write(f"- {o.case_id}" + (f"  [expected difference: {o.gap}]" if o.gap else "  [UNEXPECTED]"))
        for line in o.diffs:
            write(f"    {_shorten(line)}")
