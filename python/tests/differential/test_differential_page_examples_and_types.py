"""FastAPI vs Slipstream on the tutorial pages "Declare Request Example Data" and "Extra Data Types": examples in
`model_config` (json_schema_extra), in `Field(examples=...)`, in `Body(examples=...)` and `Body(openapi_examples=
...)`, in `Query(examples=...)`; UUID path parameters, datetime, time, timedelta, frozenset, bytes and Decimal body
fields read and answered, and the OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import datetime as dt
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Annotated, Any
from uuid import UUID

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel, Field

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Kite(BaseModel):
    name: str
    colour: str | None = None
    span: float

    model_config = {"json_schema_extra": {"examples": [{"name": "Delta", "colour": "red", "span": 1.2}]}}


class Boat(BaseModel):
    name: str = Field(examples=["Dinghy"])
    length: float = Field(examples=[3.5])
    crew: int | None = Field(default=None, examples=[2])


class Trip(BaseModel):
    start: dt.datetime
    end: dt.datetime | None = None
    leave_at: dt.time | None = None
    allowance: dt.timedelta | None = None
    ports: frozenset[str] = frozenset()
    fare: Decimal = Decimal(0)
    code: bytes = b""


def _values() -> dict[str, Any]:
    return {
        "fare": Decimal("12.50"),
        "whole": Decimal(3),
        "at": dt.datetime(2026, 12, 7, 10, 0, tzinfo=dt.timezone.utc),
        "naive": dt.datetime(2026, 12, 7, 10, 0, 0, 500),
        "wait": dt.timedelta(days=-1, seconds=30),
        "code": b"abc",
        "ports": frozenset({"Oslo"}),
        "ratio": 0.1,
    }


def examples_app(fw: Any) -> Any:
    app = new_app(fw)
    Body, Query = fw.Body, fw.Query

    @app.put("/kites/{kite_id}")
    async def update_kite(kite_id: int, kite: Kite) -> Any:
        return {"kite_id": kite_id, "kite": kite}

    @app.put("/boats/{boat_id}")
    async def update_boat(boat_id: int, boat: Boat) -> Any:
        return {"boat_id": boat_id, "boat": boat}

    @app.put("/kites/body/{kite_id}")
    async def update_kite_body(
        kite_id: int,
        kite: Annotated[Kite, Body(examples=[{"name": "Box", "span": 0.8}, {"name": "Sled", "span": "1.5"}])],
    ) -> Any:
        return {"kite_id": kite_id, "kite": kite}

    @app.put("/kites/openapi/{kite_id}")
    async def update_kite_openapi(
        kite_id: int,
        kite: Annotated[
            Kite,
            Body(
                openapi_examples={
                    "normal": {"summary": "A normal kite", "description": "Flies.", "value": {"name": "A", "span": 1}},
                    "converted": {"summary": "Span as text", "value": {"name": "B", "span": "2"}},
                    "invalid": {"summary": "Refused", "value": {"name": "C", "span": "wide"}},
                }
            ),
        ],
    ) -> Any:
        return {"kite_id": kite_id, "kite": kite}

    @app.get("/search/")
    async def search(q: Annotated[str | None, Query(examples=["box kite"])] = None) -> Any:
        return {"q": q}

    @app.put("/trips/{trip_id}")
    async def update_trip(trip_id: UUID, trip: Trip) -> Any:
        end = trip.end or trip.start
        return {
            "trip_id": trip_id,
            "trip": trip,
            "duration": end - trip.start,
            "start_date": trip.start.date(),
            "ports": sorted(trip.ports),
        }

    @app.get("/values/any")
    def read_values_any() -> Any:
        return _values()

    @app.get("/values/plain")
    def read_values_plain():
        return _values()

    @app.put("/trips/plain/{trip_id}")
    async def update_trip_plain(trip_id: UUID, trip: Trip):
        end = trip.end or trip.start
        return {"trip_id": trip_id, "duration": end - trip.start, "fare": trip.fare, "ports": trip.ports}

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"examples": examples_app})


TRIP = {
    "start": "2026-12-07T10:00:00",
    "end": "2026-12-08T12:30:00+01:00",
    "leave_at": "09:15:00",
    "allowance": 3600.5,
    "ports": ["Oslo", "Bergen", "Oslo"],
    "fare": "12.50",
    "code": "abc",
}
# A handler annotated `-> Any` is answered as FastAPI answers it: serialized by pydantic (TypeAdapter(Any)), so a
# bare timedelta is an ISO 8601 duration; without an annotation jsonable_encoder's rules apply (seconds).
TRIP_URL = "/trips/3fa85f64-5717-4562-b3fc-2c963f66afa6"
ROWS = [
    page_row("examples", "PUT", "/kites/1", json={"name": "Delta", "span": 1.2}),
    page_row("examples", "PUT", "/boats/1", json={"name": "Dinghy", "length": 3.5, "crew": 2}),
    page_row("examples", "PUT", "/kites/body/1", json={"name": "Sled", "span": "1.5"}),
    page_row("examples", "PUT", "/kites/openapi/1", json={"name": "C", "span": "wide"}),
    page_row("examples", "GET", "/search/?q=box"),
    page_row("examples", "PUT", TRIP_URL, json={"start": "2026-12-07T10:00:00Z"}),
    page_row("examples", "PUT", TRIP_URL, json={**TRIP, "end": "2026-12-08T12:30"}),
    page_row("examples", "PUT", "/trips/plain/3fa85f64-5717-4562-b3fc-2c963f66afa6", json=TRIP),
    page_row("examples", "PUT", "/trips/plain/3fa85f64-5717-4562-b3fc-2c963f66afa6", json={"start": "2026-12-07"}),
    page_row("examples", "PUT", TRIP_URL, json={**TRIP, "allowance": "P1DT2H"}),
    page_row("examples", "PUT", "/trips/not-a-uuid", json=TRIP),
    page_row("examples", "PUT", TRIP_URL, json={"start": "yesterday"}),
    page_row("examples", "PUT", TRIP_URL, json={**TRIP, "leave_at": "25:00"}),
    page_row("examples", "GET", "/values/any"),
    page_row("examples", "GET", "/values/plain"),
    page_row("examples", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
