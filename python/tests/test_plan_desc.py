"""The conversion-plan contract (slipstream/_core/plan_desc.py <-> python/bindings/plan_desc.h): every plan kind and
every field as the engine reads it at registration, the enums' values on both sides, the plans _plans.py builds,
and the malformed descriptions it refuses."""

from __future__ import annotations

import enum
import types
import uuid
from typing import Annotated, Any, Literal

import pytest
from pydantic import AfterValidator, BaseModel, Field
from slipstream import App, Query, _native
from slipstream._core.plan_desc import (
    ANY,
    FLOAT,
    INT,
    AnyPlan,
    CallPlan,
    DefaultKind,
    DefaultPlan,
    DictPlan,
    FloatPlan,
    IntPlan,
    ListPlan,
    ModelField,
    ModelPlan,
    OptionalPlan,
    PlanKind,
)
from slipstream._native_route import native_route
from slipstream._plans import plan_for


def _target(value: Any) -> Any:
    return value


def _factory() -> list[int]:
    return [7]


class Item(BaseModel):
    name: str = Field(alias="Name")
    tags: list[str] = ["a"]
    size: float = 1.5
    made: list[int] = Field(default_factory=_factory)
    parent: int | None = None


class Color(enum.Enum):
    RED = "red"


TAGS = ["a"]  # a COPY default: C++ must hold this very object

# Every plan kind, each field set to a value no other field has, and what C++ reads of it.
CASES: list[tuple[Any, dict[str, Any]]] = [
    (ANY, {"kind": "kAny"}),
    (INT, {"kind": "kInt"}),
    (FLOAT, {"kind": "kFloat"}),
    (OptionalPlan(INT), {"kind": "kOptional", "item": {"kind": "kInt"}}),
    (ListPlan(FLOAT), {"kind": "kList", "item": {"kind": "kFloat"}}),
    (DictPlan(ListPlan(INT)), {"kind": "kDict", "item": {"kind": "kList", "item": {"kind": "kInt"}}}),
    (CallPlan(_target, OptionalPlan(FLOAT)),
     {"kind": "kCall", "target": _target, "item": {"kind": "kOptional", "item": {"kind": "kFloat"}}}),
    (ModelPlan(Item, (
        ModelField("name", "Name", ANY),
        ModelField("tags", "tags", ListPlan(ANY), DefaultKind.COPY, TAGS),
        ModelField("size", "size", FLOAT, DefaultKind.VALUE, 1.5),
        ModelField("made", "made", ListPlan(INT), DefaultKind.FACTORY, _factory),
    )), {"kind": "kModel", "cls": Item, "fields": (
        {"name": "name", "key": "Name", "plan": {"kind": "kAny"}, "default_kind": "kRequired", "default": None},
        {"name": "tags", "key": "tags", "plan": {"kind": "kList", "item": {"kind": "kAny"}}, "default_kind": "kCopy",
         "default": TAGS},
        {"name": "size", "key": "size", "plan": {"kind": "kFloat"}, "default_kind": "kValue", "default": 1.5},
        {"name": "made", "key": "made", "plan": {"kind": "kList", "item": {"kind": "kInt"}},
         "default_kind": "kFactory", "default": _factory},
    )}),
    (DefaultPlan(CallPlan(Color), DefaultKind.COPY, TAGS),
     {"kind": "kDefault", "default_kind": "kCopy", "default": TAGS,
      "item": {"kind": "kCall", "target": Color, "item": {"kind": "kAny"}}}),
]


@pytest.mark.parametrize(("plan", "expected"), CASES, ids=[type(plan).__name__ for plan, _ in CASES])
def test_the_engine_reads_every_field_of_a_plan(plan: Any, expected: dict[str, Any]) -> None:
    assert _native.read_plan_desc(plan) == expected


def test_the_cases_cover_every_plan_kind() -> None:
    assert sorted(type(plan).kind for plan, _ in CASES) == list(PlanKind)


def test_defaults_and_targets_are_the_objects_given() -> None:
    model = _native.read_plan_desc(CASES[7][0])
    assert model["cls"] is Item
    assert model["fields"][1]["default"] is TAGS  # deep-copied per request, not at registration
    assert model["fields"][3]["default"] is _factory
    assert _native.read_plan_desc(CASES[8][0])["default"] is TAGS


def test_enum_values_are_the_engines() -> None:
    assert [(m.name, m.value) for m in PlanKind] == [
        ("ANY", 0), ("INT", 1), ("FLOAT", 2), ("OPTIONAL", 3), ("LIST", 4), ("DICT", 5), ("CALL", 6), ("MODEL", 7),
        ("DEFAULT", 8),
    ]
    assert [(m.name, m.value) for m in DefaultKind] == [("REQUIRED", 0), ("VALUE", 1), ("FACTORY", 2), ("COPY", 3)]
    kinds = {AnyPlan: 0, IntPlan: 1, FloatPlan: 2, OptionalPlan: 3, ListPlan: 4, DictPlan: 5, CallPlan: 6,
             ModelPlan: 7, DefaultPlan: 8}
    assert {cls: cls.kind.value for cls in kinds} == kinds


def test_plans_are_frozen_values() -> None:
    assert ListPlan(INT) == ListPlan(IntPlan())
    assert ListPlan(INT) != DictPlan(INT)
    assert AnyPlan() != IntPlan()
    assert CallPlan(_target) == CallPlan(_target, ANY)
    with pytest.raises(AttributeError):
        ListPlan(INT).item = FLOAT  # type: ignore[misc]


def test_the_plans_of_types_read_back_as_built() -> None:
    assert _native.read_plan_desc(plan_for(int)) == {"kind": "kInt"}
    assert _native.read_plan_desc(plan_for(str)) == {"kind": "kAny"}
    assert _native.read_plan_desc(plan_for(list[float])) == {"kind": "kList", "item": {"kind": "kFloat"}}
    assert _native.read_plan_desc(plan_for(dict[str, int | None])) == {
        "kind": "kDict", "item": {"kind": "kOptional", "item": {"kind": "kInt"}}}
    assert _native.read_plan_desc(plan_for(list[str])) == {"kind": "kAny"}  # nothing to convert
    assert _native.read_plan_desc(plan_for(Color)) == {"kind": "kCall", "target": Color, "item": {"kind": "kAny"}}
    literal = _native.read_plan_desc(plan_for(Literal[1, 2]))
    assert (literal["kind"], literal["item"]) == ("kCall", {"kind": "kAny"})
    assert (literal["target"](1.0), type(literal["target"](1.0)), literal["target"]("x")) == (1, int, "x")
    adapted = _native.read_plan_desc(plan_for(uuid.UUID))
    assert (adapted["kind"], adapted["item"]) == ("kCall", {"kind": "kAny"})
    value = "12345678-1234-5678-1234-567812345678"
    assert adapted["target"](value) == uuid.UUID(value)


def test_a_model_plan_reads_back_as_its_fields() -> None:
    read = _native.read_plan_desc(plan_for(Item))
    assert read["kind"] == "kModel"
    assert read["cls"] is Item
    fields = read["fields"]
    assert [(f["name"], f["key"], f["plan"], f["default_kind"]) for f in fields] == [
        ("name", "Name", {"kind": "kAny"}, "kRequired"),
        ("tags", "tags", {"kind": "kAny"}, "kCopy"),
        ("size", "size", {"kind": "kFloat"}, "kValue"),
        ("made", "made", {"kind": "kList", "item": {"kind": "kInt"}}, "kFactory"),
        ("parent", "parent", {"kind": "kOptional", "item": {"kind": "kInt"}}, "kValue"),
    ]
    assert [f["default"] for f in fields] == [None, ["a"], 1.5, _factory, None]


def test_the_arguments_of_an_app_route_read_back_as_their_plans() -> None:
    app = App()

    @app.post("/items/{item_id}")
    def create(item_id: int, item: Item, q: Annotated[int, Query(ge=1)] = 5, ratio: float | None = None,
               tags: list[int] = [1],  # noqa: B006
               even: Annotated[int, AfterValidator(lambda v: v), Query()] = 2):
        return {}

    [route] = app.routes
    args = _native.read_route_desc(native_route(route, app.exception_handlers))["args"]
    plans = {a["name"]: _native.read_plan_desc(a["plan"]) for a in args}
    assert plans["item_id"] == {"kind": "kInt"}
    assert plans["item"]["kind"] == "kModel"
    assert plans["q"] == {"kind": "kDefault", "default_kind": "kValue", "default": 5, "item": {"kind": "kInt"}}
    assert plans["ratio"] == {"kind": "kDefault", "default_kind": "kValue", "default": None,
                              "item": {"kind": "kOptional", "item": {"kind": "kFloat"}}}
    assert plans["tags"] == {"kind": "kDefault", "default_kind": "kCopy", "default": [1],
                             "item": {"kind": "kList", "item": {"kind": "kInt"}}}
    # a parameter pydantic validates in Python (_fallback.py): its raw value through a TypeAdapter
    even = plans["even"]
    assert (even["kind"], even["default_kind"], even["default"]) == ("kDefault", "kValue", 2)
    assert (even["item"]["kind"], type(even["item"]["target"]).__name__, even["item"]["item"]) == (
        "kCall", "_Validate", {"kind": "kAny"})


@pytest.mark.parametrize(
    ("plan", "message"),
    [
        (("any",), "plan description: plan lacks 'kind'"),
        (ListPlan(("int",)), "plan description: plan lacks 'kind'"),  # type: ignore[arg-type]
        (types.SimpleNamespace(kind=9), "plan description: plan kind is out of range"),
        (types.SimpleNamespace(kind="list"), "plan description: plan kind must be an int"),
        (types.SimpleNamespace(kind=PlanKind.LIST), "plan description: plan lacks 'item'"),
        (types.SimpleNamespace(kind=PlanKind.CALL, target=len), "plan description: call plan lacks 'item'"),
        (CallPlan(42), "plan description: call plan target is not callable"),  # type: ignore[arg-type]
        (ModelPlan(42, ()), "plan description: model plan cls is not a class"),  # type: ignore[arg-type]
        (ModelPlan(Item, [ModelField("name", "Name", ANY)]),  # type: ignore[arg-type]
         "plan description: model plan fields must be a tuple"),
        (ModelPlan(Item, (ModelField(1, "Name", ANY),)),  # type: ignore[arg-type]
         "plan description: model field name must be a str"),
        (ModelPlan(Item, (ModelField("name", b"Name", ANY),)),  # type: ignore[arg-type]
         "plan description: model field key must be a str"),
        (ModelPlan(Item, (ModelField("name", "Name", ANY, 4),)),  # type: ignore[arg-type]
         "plan description: model field default_kind is out of range"),
        (ModelPlan(Item, (("name", "Name", ANY, DefaultKind.REQUIRED, None),)),  # type: ignore[arg-type]
         "plan description: model field lacks 'name'"),
        (DefaultPlan(ANY, -1, None), "plan description: default plan default_kind is out of range"),  # type: ignore
        (DefaultPlan(ANY, None, None), "plan description: default plan default_kind must be an int"),  # type: ignore
    ],
)
def test_a_malformed_plan_is_refused_naming_the_field(plan: Any, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        _native.read_plan_desc(plan)
    assert str(raised.value) == message
