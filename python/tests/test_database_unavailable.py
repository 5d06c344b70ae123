"""A database that cannot answer is a 503 by default ({"detail": "database unavailable"}, Retry-After), as the C++
apps answer it; an app's own handler for the error wins."""

from __future__ import annotations

from typing import Annotated

from slipstream import App, Database, Depends, JSONResponse, Request, TestClient, get_database
from slipstream.database import DatabaseError

DB = Annotated[Database, Depends(get_database)]
NOWHERE = "postgresql:///nobody?host=/nonexistent-slipstream-socket-dir&connect_timeout=1"


def _app() -> App:
    app = App(database=Database(NOWHERE, min_size=0, max_size=1, acquire_timeout=1.0, connect_timeout=1.0))

    @app.get("/async")
    async def read_async(db: DB) -> int:
        return await db.fetchval("SELECT 1")

    @app.get("/sync")
    def read_sync(db: DB) -> int:
        return db.sync.fetchval("SELECT 1")

    return app


def test_an_unreachable_database_is_503() -> None:
    with TestClient(_app(), raise_server_exceptions=False) as client:
        for path in ("/async", "/sync"):
            r = client.get(path)
            assert (r.status_code, r.json(), r.headers["retry-after"]) == (503, {"detail": "database unavailable"},
                                                                          "1"), path


def test_an_app_handler_for_the_error_wins() -> None:
    app = _app()

    # DatabaseError: the failure is ConnectionFailureError, or PoolTimeoutError when a loaded machine makes the
    # acquire deadline pass before the connection attempt fails.
    @app.exception_handler(DatabaseError)
    async def down(request: Request, exc: DatabaseError) -> JSONResponse:
        return JSONResponse({"down": True}, status_code=502)

    with TestClient(app, raise_server_exceptions=False) as client:
        assert (client.get("/async").status_code, client.get("/async").json()) == (502, {"down": True})
