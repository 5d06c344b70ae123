"""FastAPI vs Slipstream on the advanced page "Testing Dependencies with Overrides": `app.dependency_overrides`
replacing a dependency used by a route, by a router's `dependencies=[...]` and by a sub-dependency, an override
with parameters of its own (they replace the original's, in the 422s and the OpenAPI document too), an override
that is a `yield` dependency, an override set and cleared between requests (`.clear()` and `del`), and an
override of a class dependency.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import Outcome, client_pairs, new_app, page_row, record, same_answer_test


async def common_parameters(q: str | None = None, skip: int = 0, limit: int = 100) -> dict[str, Any]:
    return {"q": q, "skip": skip, "limit": limit}


async def override_parameters(q: str | None = None, page: int = 1) -> dict[str, Any]:
    return {"q": q, "page": page, "overridden": True}


def get_db() -> Iterator[str]:
    yield "real database"


def get_fake_db() -> Iterator[str]:
    yield "fake database"


class Settings:
    def __init__(self, env: str = "production") -> None:
        self.env = env


def overrides_app(fw: Any, active: bool = True) -> Any:
    Depends = fw.Depends

    def needs_db(db: Annotated[str, Depends(get_db)]) -> str:
        return f"via {db}"

    router = fw.APIRouter(prefix="/admin", dependencies=[Depends(common_parameters)])

    @router.get("/")
    async def admin(request: fw.Request) -> Any:
        return {"admin": True}

    app = new_app(fw)
    app.include_router(router)

    @app.get("/items/")
    async def read_items(commons: Annotated[dict, Depends(common_parameters)]) -> Any:
        return {"message": "Hello Items!", "params": commons}

    @app.get("/users/")
    async def read_users(commons: Annotated[dict, Depends(common_parameters)]) -> Any:
        return {"message": "Hello Users!", "params": commons}

    @app.get("/db")
    def read_db(source: Annotated[str, Depends(needs_db)]) -> Any:
        return {"source": source}

    @app.get("/settings")
    def read_settings(settings: Annotated[Settings, Depends()]) -> Any:
        return {"env": settings.env}

    if active:
        app.dependency_overrides[common_parameters] = override_parameters
        app.dependency_overrides[get_db] = get_fake_db
        app.dependency_overrides[Settings] = lambda: Settings(env="testing")
    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"overrides": overrides_app})


ROWS = [
    page_row("overrides", "GET", "/items/"),
    page_row("overrides", "GET", "/items/?q=foo&skip=5&limit=10&page=3"),
    page_row("overrides", "GET", "/items/?page=x"),
    page_row("overrides", "GET", "/users/?q=bar"),
    page_row("overrides", "GET", "/admin/?page=x"),
    page_row("overrides", "GET", "/admin/?skip=x"),
    page_row("overrides", "GET", "/db"),
    page_row("overrides", "GET", "/settings?env=x"),
    page_row("overrides", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)


def test_overrides_set_and_cleared() -> None:
    """Overrides changed between requests on a running app: set, deleted one by one, cleared."""
    import slipstream
    from fastapi.testclient import TestClient as FastAPIClient

    answers = {}
    for fw in (slipstream, fastapi):
        app = overrides_app(fw, active=False)
        client = slipstream.TestClient(app) if fw is slipstream else FastAPIClient(app)
        with client:
            out = [client.get("/items/?skip=1&page=2").json(), client.get("/db").json()]
            app.dependency_overrides[common_parameters] = override_parameters
            app.dependency_overrides[get_db] = get_fake_db
            out += [client.get("/items/?skip=1&page=2").json(), client.get("/db").json()]
            del app.dependency_overrides[get_db]
            out += [client.get("/items/?page=2").json(), client.get("/db").json()]
            app.dependency_overrides.clear()
            out += [client.get("/items/?page=2").json(), client.get("/db").json()]
            out.append(client.get("/openapi.json").json()["paths"]["/items/"]["get"]["parameters"])
        answers[fw.__name__] = out
    diffs = [] if answers["slipstream"] == answers["fastapi"] else [f"answers: {answers!r}"]
    record(Outcome("overrides set, deleted and cleared while serving", None, diffs))
    assert not diffs, "\n".join(diffs)
