"""FastAPI vs Slipstream on the tutorial pages "Request Body", "Body - Multiple Parameters", "Body - Fields" and
"Body - Nested Models": a model body with optional fields, body + path + query together, several body parameters,
a singular `Body()` value, `Body(embed=True)`, `Field()` constraints and descriptions, nested models, lists and sets
of submodels, `HttpUrl`, bodies of lists and of `dict[int, float]`, and the OpenAPI document of all of it.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel, Field, HttpUrl

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Parcel(BaseModel):
    label: str
    note: str | None = None
    weight: float
    postage: float | None = None


class Sender(BaseModel):
    name: str
    phone: str | None = None


class Crate(BaseModel):
    label: str
    note: str | None = Field(default=None, title="What is inside", max_length=30)
    weight: float = Field(gt=0, description="Kilograms, more than zero")
    postage: float | None = None


class Photo(BaseModel):
    url: HttpUrl
    caption: str


class Shipment(BaseModel):
    label: str
    weight: float
    stickers: set[str] = set()
    routes: list[str] = []
    photo: Photo | None = None
    photos: list[Photo] | None = None


class Manifest(BaseModel):
    code: str
    shipments: list[Shipment]


def body_app(fw: Any) -> Any:
    app = new_app(fw)

    @app.post("/parcels/")
    async def create_parcel(parcel: Parcel) -> Any:
        answer = parcel.model_dump()
        if parcel.postage is not None:
            answer.update({"total": parcel.weight + parcel.postage})
        return answer

    @app.put("/parcels/{parcel_id}")
    async def update_parcel(parcel_id: int, parcel: Parcel, q: str | None = None) -> Any:
        answer: dict[str, Any] = {"parcel_id": parcel_id, **parcel.model_dump()}
        if q:
            answer["q"] = q
        return answer

    @app.put("/pairs/{parcel_id}")
    async def update_pair(parcel_id: int, parcel: Parcel, sender: Sender) -> Any:
        return {"parcel_id": parcel_id, "parcel": parcel, "sender": sender}

    @app.put("/ranked/{parcel_id}")
    async def update_ranked(
        parcel_id: Annotated[int, fw.Path(title="The parcel", ge=0, le=1000)],
        parcel: Parcel,
        sender: Sender,
        priority: Annotated[int, fw.Body(gt=0)],
        q: str | None = None,
    ) -> Any:
        return {"parcel_id": parcel_id, "parcel": parcel, "sender": sender, "priority": priority, "q": q}

    @app.put("/embedded/{parcel_id}")
    async def update_embedded(parcel_id: int, parcel: Annotated[Parcel, fw.Body(embed=True)]) -> Any:
        return {"parcel_id": parcel_id, "parcel": parcel}

    @app.put("/optional/{parcel_id}")
    async def update_optional(parcel_id: int, parcel: Parcel | None = None) -> Any:
        return {"parcel_id": parcel_id, "parcel": parcel}

    @app.put("/crates/{crate_id}")
    async def update_crate(crate_id: int, crate: Annotated[Crate, fw.Body(embed=True)]) -> Any:
        return {"crate_id": crate_id, "crate": crate}

    @app.put("/shipments/{shipment_id}")
    async def update_shipment(shipment_id: int, shipment: Shipment) -> Any:
        return {"shipment_id": shipment_id, "shipment": shipment}

    @app.post("/manifests/")
    async def create_manifest(manifest: Manifest) -> Any:
        return manifest

    @app.post("/photos/multiple/")
    async def create_photos(photos: list[Photo]) -> Any:
        return [photo.caption for photo in photos]

    @app.post("/weights/")
    async def create_weights(weights: dict[int, float]) -> Any:
        return weights

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs({"body": body_app})


PARCEL = {"label": "Books", "weight": 3.5}
SENDER = {"name": "Ann", "phone": "555"}
PHOTO = {"url": "http://example.com/a.png", "caption": "front"}
SHIPMENT = {"label": "Tea", "weight": 2, "stickers": ["fragile", "fragile", "up"], "routes": ["a", "b"]}
ROWS = [
    page_row("body", "POST", "/parcels/", json=PARCEL),
    page_row("body", "POST", "/parcels/", json={**PARCEL, "postage": 1.25, "note": "thin"}),
    page_row("body", "POST", "/parcels/", json={"label": "Books"}),
    page_row("body", "POST", "/parcels/", json={"label": 3, "weight": "heavy"}),
    page_row("body", "POST", "/parcels/", json=["not", "an", "object"]),
    page_row("body", "POST", "/parcels/", content=b'{"label": "x",', headers={"content-type": "application/json"}),
    page_row("body", "POST", "/parcels/"),
    page_row("body", "PUT", "/parcels/7?q=fast", json=PARCEL),
    page_row("body", "PUT", "/parcels/x", json=PARCEL),
    page_row("body", "PUT", "/pairs/7", json={"parcel": PARCEL, "sender": SENDER}),
    page_row("body", "PUT", "/pairs/7", json={"parcel": PARCEL}),
    page_row("body", "PUT", "/pairs/7", json=PARCEL),
    page_row("body", "PUT", "/ranked/7?q=x", json={"parcel": PARCEL, "sender": SENDER, "priority": 5}),
    page_row("body", "PUT", "/ranked/7", json={"parcel": PARCEL, "sender": SENDER, "priority": 0}),
    page_row("body", "PUT", "/ranked/1001", json={"parcel": PARCEL, "sender": SENDER}),
    page_row("body", "PUT", "/embedded/7", json={"parcel": PARCEL}),
    page_row("body", "PUT", "/embedded/7", json=PARCEL),
    page_row("body", "PUT", "/optional/7"),
    page_row("body", "PUT", "/optional/7", json=PARCEL),
    page_row("body", "PUT", "/crates/7", json={"crate": {"label": "C", "weight": 1}}),
    page_row("body", "PUT", "/crates/7", json={"crate": {"label": "C", "weight": 0, "note": "x" * 31}}),
    page_row("body", "PUT", "/shipments/1", json=SHIPMENT),
    page_row("body", "PUT", "/shipments/1", json={**SHIPMENT, "photo": PHOTO, "photos": [PHOTO, PHOTO]}),
    page_row("body", "PUT", "/shipments/1", json={**SHIPMENT, "photo": {"url": "not a url", "caption": "x"}}),
    page_row("body", "PUT", "/shipments/1", json={**SHIPMENT, "photos": [PHOTO, {"caption": 1}]}),
    page_row("body", "POST", "/manifests/", json={"code": "M1", "shipments": [SHIPMENT]}),
    page_row("body", "POST", "/manifests/", json={"code": "M1", "shipments": [{"label": "x"}]}),
    page_row("body", "POST", "/photos/multiple/", json=[PHOTO, PHOTO]),
    page_row("body", "POST", "/photos/multiple/", json={"url": "http://x.org"}),
    page_row("body", "POST", "/weights/", json={"1": 2.5, "20": 3}),
    page_row("body", "POST", "/weights/", json={"one": 2.5}),
    page_row("body", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
