"""slipstream.encoders.jsonable_encoder against fastapi.encoders.jsonable_encoder: the same output for the same
values and options, and the same errors."""

import dataclasses
import datetime
import decimal
import enum
import pathlib
import uuid
from collections import deque
from typing import Any

import pytest
from pydantic import BaseModel, Field
from slipstream.encoders import jsonable_encoder

fastapi_encoders = pytest.importorskip("fastapi.encoders")


class Colour(enum.Enum):
    RED = "red"


class Tag(BaseModel):
    label: str = Field(alias="tagLabel")
    weight: int = 1
    note: str | None = None


class Item(BaseModel):
    name: str
    price: decimal.Decimal
    tags: list[Tag] = []
    when: datetime.datetime | None = None


@dataclasses.dataclass
class Point:
    x: int
    y: int | None = None


class Plain:
    def __init__(self) -> None:
        self.a = 1
        self.when = datetime.date(2024, 1, 2)


def _gen() -> Any:
    yield from (1, 2)


ITEM = Item(name="tea", price=decimal.Decimal("2.50"), tags=[Tag(tagLabel="hot")])
CASES: list[tuple[str, Any, dict[str, Any]]] = [
    ("scalars", [1, 2.5, "s", None, True], {}),
    ("model", ITEM, {}),
    ("model by name", ITEM, {"by_alias": False}),
    ("model exclude_unset", ITEM, {"exclude_unset": True}),
    ("model exclude_defaults", ITEM, {"exclude_defaults": True}),
    ("model exclude_none", ITEM, {"exclude_none": True}),
    ("model include", ITEM, {"include": {"name", "price"}}),
    ("model exclude list", ITEM, {"exclude": ["tags"]}),
    ("dataclass", Point(1), {}),
    ("dataclass exclude_none", Point(1), {"exclude_none": True}),
    ("dict include", {"a": 1, "b": 2, "_sa_state": 3}, {"include": ["a", "_sa_state"]}),
    ("dict keep _sa", {"_sa_x": 1}, {"sqlalchemy_safe": False}),
    ("dict keys", {Colour.RED: datetime.time(1, 2), 3: uuid.UUID(int=1)}, {}),
    ("kinds", {"e": Colour.RED, "p": pathlib.PurePosixPath("/a/b"), "d": decimal.Decimal("3E+2"),
               "f": decimal.Decimal("1.5"), "b": b"x", "set": {1}, "dq": deque([1]), "td": datetime.timedelta(1),
               "tuple": (1, "a")}, {}),
    ("generator", _gen(), {}),
    ("vars", Plain(), {}),
    ("custom", {"when": datetime.date(2024, 5, 6)}, {"custom_encoder": {datetime.date: lambda d: d.year}}),
    ("custom subclass", {"n": True}, {"custom_encoder": {int: lambda n: f"int {n}"}}),
]


@pytest.mark.parametrize(("value", "options"), [(v, o) for _, v, o in CASES], ids=[c[0] for c in CASES])
def test_the_same_as_fastapi(value: Any, options: dict[str, Any]) -> None:
    if value.__class__.__name__ == "generator":
        ours, theirs = jsonable_encoder(_gen(), **options), fastapi_encoders.jsonable_encoder(_gen(), **options)
    else:
        ours, theirs = jsonable_encoder(value, **options), fastapi_encoders.jsonable_encoder(value, **options)
    assert ours == theirs
    assert type(ours) is type(theirs)


def test_literal_results() -> None:
    assert jsonable_encoder(ITEM, exclude_unset=True) == {"name": "tea", "price": "2.50",
                                                           "tags": [{"tagLabel": "hot"}]}
    assert jsonable_encoder({"a": None, "b": [None]}, exclude_none=True) == {"b": [None]}
    assert jsonable_encoder(decimal.Decimal("3E+2")) == 300 and jsonable_encoder(decimal.Decimal("1.5")) == 1.5


def test_an_object_it_cannot_read_is_a_value_error() -> None:
    with pytest.raises(ValueError) as ours:
        jsonable_encoder(object())
    with pytest.raises(ValueError) as theirs:
        fastapi_encoders.jsonable_encoder(object())
    assert [type(e) for e in ours.value.args[0]] == [type(e) for e in theirs.value.args[0]] == [TypeError, TypeError]
