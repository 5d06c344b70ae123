"""The conversion-plan contract: how one validated JSON value becomes a handler's Python object, read once per
argument by the extension at registration (python/bindings/plan_desc.h).

A plan is a tree of small frozen records, one class per `PlanKind`; C++ reads each record's `kind` and then the
fields of that kind by name. The enums' values are the C++ enums' (slipstream::python::PlanKind, DefaultKind).
`_plans.py` builds the plans; nothing here runs per request.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any, ClassVar


class PlanKind(enum.IntEnum):
    """What a plan does with a validated JSON value (slipstream::python::PlanKind)."""

    ANY = 0  # plain conversion: null/bool/int/float/str/list/dict
    INT = 1  # a JSON float (an integral one, validated) becomes an int
    FLOAT = 2  # a JSON integer becomes a float
    OPTIONAL = 3  # null stays None, anything else converts with `item`
    LIST = 4  # each array item converts with `item`
    DICT = 5  # each object value converts with `item`
    CALL = 6  # `target(item's result)`
    MODEL = 7  # a pydantic model built without re-validation (model_construct)
    DEFAULT = 8  # null (an absent optional value) becomes the default, anything else converts with `item`


class DefaultKind(enum.IntEnum):
    """How a plan's default is made for an absent optional value (slipstream::python::DefaultKind)."""

    REQUIRED = 0
    VALUE = 1  # shared (immutable)
    FACTORY = 2  # called
    COPY = 3  # deep-copied


@dataclasses.dataclass(frozen=True, slots=True)
class AnyPlan:
    """The JSON value as plain Python objects."""

    kind: ClassVar[PlanKind] = PlanKind.ANY


ANY = AnyPlan()


@dataclasses.dataclass(frozen=True, slots=True)
class IntPlan:
    kind: ClassVar[PlanKind] = PlanKind.INT


@dataclasses.dataclass(frozen=True, slots=True)
class FloatPlan:
    kind: ClassVar[PlanKind] = PlanKind.FLOAT


@dataclasses.dataclass(frozen=True, slots=True)
class OptionalPlan:
    item: PlanDesc
    kind: ClassVar[PlanKind] = PlanKind.OPTIONAL


@dataclasses.dataclass(frozen=True, slots=True)
class ListPlan:
    item: PlanDesc
    kind: ClassVar[PlanKind] = PlanKind.LIST


@dataclasses.dataclass(frozen=True, slots=True)
class DictPlan:
    """A dict with str keys; its values convert with `item`."""

    item: PlanDesc
    kind: ClassVar[PlanKind] = PlanKind.DICT


@dataclasses.dataclass(frozen=True, slots=True)
class CallPlan:
    """`target` called with the value `item` made (a TypeAdapter's validate_python, an Enum class, ...)."""

    target: Callable[[Any], Any]
    item: PlanDesc = ANY
    kind: ClassVar[PlanKind] = PlanKind.CALL


@dataclasses.dataclass(frozen=True, slots=True)
class ModelField:
    """One field of a ModelPlan."""

    name: str  # the attribute
    key: str  # its key in the validated JSON object (the validation alias)
    plan: PlanDesc
    default_kind: DefaultKind = DefaultKind.REQUIRED
    default: Any = None  # VALUE: the value; FACTORY: the factory; COPY: the value deep-copied; REQUIRED: None


@dataclasses.dataclass(frozen=True, slots=True)
class ModelPlan:
    """A pydantic model instance made as model_construct() does: `__dict__` from the fields, no validation."""

    cls: type
    fields: tuple[ModelField, ...]
    kind: ClassVar[PlanKind] = PlanKind.MODEL


@dataclasses.dataclass(frozen=True, slots=True)
class DefaultPlan:
    """An optional argument: its default for null (absent), else the value converted with `item`."""

    item: PlanDesc
    default_kind: DefaultKind
    default: Any  # as ModelField.default
    kind: ClassVar[PlanKind] = PlanKind.DEFAULT


PlanDesc = AnyPlan | IntPlan | FloatPlan | OptionalPlan | ListPlan | DictPlan | CallPlan | ModelPlan | DefaultPlan

INT = IntPlan()
FLOAT = FloatPlan()

__all__ = ["ANY", "FLOAT", "INT", "AnyPlan", "CallPlan", "DefaultKind", "DefaultPlan", "DictPlan", "FloatPlan",
           "IntPlan", "ListPlan", "ModelField", "ModelPlan", "OptionalPlan", "PlanDesc", "PlanKind"]
