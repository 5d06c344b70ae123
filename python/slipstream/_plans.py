"""Conversion plans: how validated JSON becomes a handler's Python objects (run in C++), and how models serialize.

A plan is a tree of plan_desc records (_core/plan_desc.py: AnyPlan, IntPlan, FloatPlan, OptionalPlan, ListPlan,
DictPlan, CallPlan, ModelPlan, DefaultPlan), read once per argument by the extension (python/bindings/plan_desc.h).
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import json
import types
import typing
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ._core.plan_desc import (
    ANY,
    FLOAT,
    INT,
    CallPlan,
    DefaultKind,
    DictPlan,
    ListPlan,
    ModelField,
    ModelPlan,
    OptionalPlan,
    PlanDesc,
)

_building: set[type] = set()  # models whose plan is being built (recursion guard)
_PLAIN_SCALARS = (str, bool, type(None))
_IMMUTABLE = (int, float, str, bool, bytes, type(None), tuple, frozenset, enum.Enum)


def _strip_annotated(tp: Any) -> tuple[Any, tuple[Any, ...]]:
    if typing.get_origin(tp) is Annotated:
        args = typing.get_args(tp)
        return args[0], tuple(args[1:])
    return tp, ()


def _is_union(tp: Any) -> bool:
    return typing.get_origin(tp) in (Union, types.UnionType)


def _adapter_call(tp: Any) -> CallPlan:
    adapter = TypeAdapter(tp)
    return CallPlan(adapter.validate_python)


def plan_for(tp: Any) -> PlanDesc:
    """The plan that turns validated JSON into an instance of `tp`, as pydantic would build it."""
    original = tp
    inner, metadata = _strip_annotated(tp)
    if metadata and any(not _is_constraint(m) for m in metadata):
        return _adapter_call(tp)  # validators or custom types in Annotated: let pydantic build it
    tp = inner
    if tp is Any or tp is object or tp in _PLAIN_SCALARS:
        return ANY
    if tp is int:
        return INT
    if tp is float:
        return FLOAT
    origin = typing.get_origin(tp)
    if origin is Literal:
        return _literal_plan(typing.get_args(tp))
    if _is_union(tp):
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        if len(members) == 1 and len(typing.get_args(tp)) == 2:
            sub = plan_for(members[0])
            return ANY if sub == ANY else OptionalPlan(sub)
        if all(plan_for(m) == ANY for m in members):
            return ANY
        return _adapter_call(tp)
    if origin in (list, typing.List):  # noqa: UP006
        (item,) = typing.get_args(tp) or (Any,)
        sub = plan_for(item)
        return ANY if sub == ANY else ListPlan(sub)
    if origin in (dict, typing.Dict):  # noqa: UP006
        args = typing.get_args(tp)
        key = args[0] if args else str
        sub = plan_for(args[1]) if args else ANY
        if key is not str:
            return _adapter_call(tp)
        return ANY if sub == ANY else DictPlan(sub)
    if tp is list or tp is dict:
        return ANY
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        if tp in _building:  # a recursive model: the inner levels are built by pydantic
            return CallPlan(tp.model_validate)
        _building.add(tp)
        try:
            return model_plan_for_args(tp)
        finally:
            _building.discard(tp)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return CallPlan(tp)
    # UUID, datetime, Decimal, ...: pydantic builds the object (and checks what the JSON Schema cannot say, such as
    # a datetime's gt or a Decimal's max_digits), so the constraints stay with the type.
    return _adapter_call(original)


def _literal_plan(members: tuple[Any, ...]) -> PlanDesc:
    """A JSON number that equals an int (or bool) member becomes that member, as pydantic gives it: 1.0 for
    Literal[1, 2] is 1, for Literal[True, 1] it is True (the first equal member). Other values stay as they are."""
    numeric = tuple(m for m in members if isinstance(m, int) and not isinstance(m, enum.Enum))
    if not numeric:
        return ANY

    def member(value: Any) -> Any:
        if type(value) is float:
            for candidate in numeric:
                if candidate == value:
                    return candidate
        return value

    return CallPlan(member)


def _is_constraint(meta: Any) -> bool:
    """True for metadata that only constrains (checked by the JSON Schema already): Field(), annotated_types."""
    if isinstance(meta, FieldInfo):
        return all(_is_constraint(m) for m in meta.metadata)
    module = type(meta).__module__
    return module.startswith("annotated_types") or type(meta).__name__ in {"_PydanticGeneralMetadata"}


def model_is_plain(cls: type[BaseModel]) -> bool:
    """True when building `cls` from validated JSON needs no Python validation logic (no validators, no custom
    __init__ or model_post_init, no extra='allow', not a RootModel)."""
    if getattr(cls, "__pydantic_root_model__", False) or getattr(cls, "__pydantic_post_init__", None):
        return False
    if cls.model_config.get("extra") == "allow":
        return False
    return not _has_functions(cls.__pydantic_core_schema__, set())


_FUNCTION_SCHEMAS = {"function-before", "function-after", "function-wrap", "function-plain"}


def _has_functions(node: Any, seen: set[int]) -> bool:
    if isinstance(node, dict):
        if id(node) in seen:
            return False
        seen.add(id(node))
        if node.get("type") in _FUNCTION_SCHEMAS or node.get("custom_init") or node.get("post_init"):
            return True
        return any(_has_functions(value, seen) for key, value in node.items() if key != "serialization")
    if isinstance(node, (list, tuple)):
        return any(_has_functions(item, seen) for item in node)
    return False


def model_plan_for_args(cls: type[BaseModel]) -> PlanDesc:
    if not model_is_plain(cls):
        return CallPlan(cls.model_validate)
    fields = []
    for name, info in cls.model_fields.items():
        key = info.validation_alias if isinstance(info.validation_alias, str) else (info.alias or name)
        if info.validation_alias is not None and not isinstance(info.validation_alias, str):
            return CallPlan(cls.model_validate)  # AliasPath / AliasChoices
        annotation = info.annotation
        if info.metadata:
            annotation = Annotated[(annotation, *info.metadata)]
        sub = plan_for(annotation)
        if info.default_factory is not None:
            fields.append(ModelField(name, key, sub, DefaultKind.FACTORY, info.default_factory))
        elif info.default is PydanticUndefined:
            fields.append(ModelField(name, key, sub, DefaultKind.REQUIRED, None))
        elif isinstance(info.default, _IMMUTABLE):
            fields.append(ModelField(name, key, sub, DefaultKind.VALUE, info.default))
        else:
            fields.append(ModelField(name, key, sub, DefaultKind.COPY, info.default))
    return ModelPlan(cls, tuple(fields))


# --- Serialization: which models the C++ encoder may walk field by field. ---

def _plain_for_json(tp: Any, depth: int = 0) -> bool:
    """True when values of `tp` serialize to the same JSON through jsonable_encoder and pydantic's model_dump."""
    if depth > 20:
        return False
    tp, metadata = _strip_annotated(tp)
    if metadata and any(not _is_constraint(m) for m in metadata):
        return False
    if tp in (str, int, float, bool, type(None)):
        return True
    origin = typing.get_origin(tp)
    if origin is Literal:
        return all(isinstance(v, (str, int, bool)) and not isinstance(v, enum.Enum) for v in typing.get_args(tp))
    if _is_union(tp):
        return all(_plain_for_json(m, depth + 1) for m in typing.get_args(tp))
    if origin in (list, typing.List):  # noqa: UP006
        return all(_plain_for_json(a, depth + 1) for a in typing.get_args(tp))
    if origin in (dict, typing.Dict):  # noqa: UP006
        args = typing.get_args(tp)
        return not args or (args[0] is str and _plain_for_json(args[1], depth + 1))
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return model_plan(tp) is not None
    return False


def _is_float_field(tp: Any) -> bool:
    """True for a `float` or `float | None` field: pydantic writes an int held there (an int default, a value set
    by assignment) as a float, 200 as 200.0."""
    tp, _ = _strip_annotated(tp)
    if _is_union(tp):
        members = [m for m in typing.get_args(tp) if m is not type(None)]
        return len(members) == 1 and _strip_annotated(members[0])[0] is float
    return tp is float


_model_plans: dict[type, tuple[tuple[Any, ...], ...] | None] = {}


def model_plan(cls: type) -> tuple[tuple[Any, ...], ...] | None:
    """(attribute, quoted JSON key[, True for a float field]) per field when the C++ encoder may walk `cls`'s
    __dict__; else None
    (then it is dumped with model_dump(mode="json", by_alias=True), as FastAPI's jsonable_encoder does)."""
    if cls in _model_plans:
        return _model_plans[cls]
    _model_plans[cls] = None  # recursion guard
    plan: tuple[tuple[Any, ...], ...] | None = None
    if (
        issubclass(cls, BaseModel)
        and not getattr(cls, "__pydantic_root_model__", False)
        and not cls.model_computed_fields
        and cls.model_config.get("extra") != "allow"
        and not _has_serializers(cls.__pydantic_core_schema__, set())
    ):
        entries = []
        for name, info in cls.model_fields.items():
            if info.exclude or not _plain_for_json(info.annotation):
                entries = None
                break
            key = info.serialization_alias or info.alias or name
            quoted = json.dumps(key, ensure_ascii=False)
            entries.append((name, quoted, True) if _is_float_field(info.annotation) else (name, quoted))
        plan = tuple(entries) if entries is not None else None
    _model_plans[cls] = plan
    return plan


def _has_serializers(node: Any, seen: set[int]) -> bool:
    if isinstance(node, dict):
        if id(node) in seen:
            return False
        seen.add(id(node))
        ser = node.get("serialization")
        if isinstance(ser, dict) and ser.get("type", "").startswith("function"):
            return True
        if node.get("type") == "model" and node.get("root_model"):
            return True
        return any(_has_serializers(value, seen) for value in node.values())
    if isinstance(node, (list, tuple)):
        return any(_has_serializers(item, seen) for item in node)
    return False


def deep_default(value: Any) -> Any:
    return value if isinstance(value, _IMMUTABLE) else copy.deepcopy(value)


def is_dataclass_type(tp: Any) -> bool:
    return isinstance(tp, type) and dataclasses.is_dataclass(tp)
