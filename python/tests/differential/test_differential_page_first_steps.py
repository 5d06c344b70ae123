"""FastAPI vs Slipstream on the tutorial pages "First Steps", "Path Parameters" and "Query Parameters": a root
route, typed path parameters (int, str, Enum, a `:path` convertor), fixed paths declared before parameterised ones,
query parameters with defaults, optional and required ones, bool conversions, several path and query parameters
together, and the OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from enum import Enum
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Engine(str, Enum):
    steam = "steam"
    diesel = "diesel"
    electric = "electric"


CATALOGUE = [{"part": "wheel"}, {"part": "axle"}, {"part": "boiler"}, {"part": "funnel"}]


def basics_app(fw: Any) -> Any:
    app = new_app(fw)

    @app.get("/")
    async def root() -> Any:
        return {"message": "All aboard"}

    @app.get("/trains/{train_id}")
    async def read_train(train_id: int) -> Any:
        return {"train_id": train_id}

    @app.get("/drivers/me")
    async def read_current_driver() -> Any:
        return {"driver": "the current driver"}

    @app.get("/drivers/{driver_id}")
    async def read_driver(driver_id: str) -> Any:
        return {"driver_id": driver_id}

    @app.get("/engines/{engine}")
    async def read_engine(engine: Engine) -> Any:
        if engine is Engine.steam:
            return {"engine": engine, "note": "coal and water"}
        if engine.value == "diesel":
            return {"engine": engine, "note": "fuel oil"}
        return {"engine": engine, "note": "overhead wires"}

    @app.get("/timetables/{file_path:path}")
    async def read_timetable(file_path: str) -> Any:
        return {"file_path": file_path}

    @app.get("/parts/")
    async def read_parts(skip: int = 0, limit: int = 2) -> Any:
        return CATALOGUE[skip : skip + limit]

    @app.get("/parts/{part_id}")
    async def read_part(part_id: str, q: str | None = None, short: bool = False) -> Any:
        part: dict[str, Any] = {"part_id": part_id}
        if q:
            part["q"] = q
        if not short:
            part["description"] = "A part with a long description"
        return part

    @app.get("/stations/{station_id}/platforms/{platform}")
    async def read_platform(station_id: int, platform: str, q: str | None = None, lit: bool = False) -> Any:
        return {"station_id": station_id, "platform": platform, "q": q, "lit": lit}

    @app.get("/required/{item_id}")
    async def read_required(item_id: str, needy: str, skip: int = 0, limit: int | None = None) -> Any:
        return {"item_id": item_id, "needy": needy, "skip": skip, "limit": limit}

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"basics": basics_app})


ROWS = [
    page_row("basics", "GET", "/"),
    page_row("basics", "POST", "/"),
    page_row("basics", "GET", "/trains/3"),
    page_row("basics", "GET", "/trains/three"),
    page_row("basics", "GET", "/trains/4.2"),
    page_row("basics", "GET", "/drivers/me"),
    page_row("basics", "GET", "/drivers/ann"),
    page_row("basics", "GET", "/engines/steam"),
    page_row("basics", "GET", "/engines/diesel"),
    page_row("basics", "GET", "/engines/electric"),
    page_row("basics", "GET", "/engines/horse"),
    page_row("basics", "GET", "/timetables/home/johndoe/myfile.txt"),
    page_row("basics", "GET", "/timetables//etc/passwd"),
    page_row("basics", "GET", "/parts/"),
    page_row("basics", "GET", "/parts/?skip=1&limit=2"),
    page_row("basics", "GET", "/parts/?skip=20"),
    page_row("basics", "GET", "/parts/?skip=x"),
    page_row("basics", "GET", "/parts/foo"),
    page_row("basics", "GET", "/parts/foo?q=bar&short=1"),
    page_row("basics", "GET", "/parts/foo?short=True"),
    page_row("basics", "GET", "/parts/foo?short=on"),
    page_row("basics", "GET", "/parts/foo?short=yes"),
    page_row("basics", "GET", "/parts/foo?short=false"),
    page_row("basics", "GET", "/parts/foo?short=maybe"),
    page_row("basics", "GET", "/stations/5/platforms/2b?q=late&lit=true"),
    page_row("basics", "GET", "/stations/x/platforms/2b"),
    page_row("basics", "GET", "/required/foo"),
    page_row("basics", "GET", "/required/foo?needy=sooo&limit=3"),
    page_row("basics", "GET", "/required/foo?needy=a&skip=x&limit=y"),
    page_row("basics", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
