"""Shared fixtures: the handler style axis (def / async def) and a FastAPI-parity helper."""

from __future__ import annotations

import asyncio
import functools
import inspect
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # tests/pg_cluster.py: the throwaway PostgreSQL of the e2e tests and benchmarks
    sys.path.append(str(ROOT))


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


@pytest.fixture(scope="session")
def pg_cluster():
    """A throwaway PostgreSQL server for the session (tests/pg_cluster.py: initdb into a temporary folder, pg_ctl on
    a Unix socket only, as `nobody` when run as root); skipped when PostgreSQL is not installed."""
    from tests.pg_cluster import PgCluster, find_bindir

    bindir = find_bindir()
    if bindir is None:
        pytest.skip(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: install postgresql or set SLIPSTREAM_TEST_PG_BINDIR"
        )
    cluster = PgCluster(bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def self_signed_cert(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(certificate, key): a self-signed certificate for localhost and 127.0.0.1, made by openssl for the session;
    skipped when openssl is not installed."""
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=localhost",
            "-addext",
            "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """Each database behaviour test runs on a fresh SQLite file and on the session's PostgreSQL cluster."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path}/test.db"
    return request.getfixturevalue("pg_cluster").url
