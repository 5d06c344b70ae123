"""Typed fields and their JSON Schemas: pydantic's generator with FastAPI's $ref naming (#/components/schemas/X)."""

from __future__ import annotations

import dataclasses
import inspect
import warnings
from collections.abc import Iterable, Sequence
from enum import Enum
from typing import Annotated, Any, Literal, cast, get_args, get_origin

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema as _GenerateJsonSchema
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import PydanticUndefined, core_schema

REF_PREFIX = "#/components/schemas/"
REF_TEMPLATE = "#/components/schemas/{model}"
Mode = Literal["validation", "serialization"]

# The keywords of pydantic's Field() that FieldInfo keeps as attributes (constraints such as gt live in its
# metadata instead): a parameter's FieldInfo is turned back into Field(...) from these.
_FIELD_ATTRIBUTES = tuple(name for name in inspect.signature(Field).parameters if name in FieldInfo.__slots__)


class GenerateJsonSchema(_GenerateJsonSchema):
    """pydantic's generator, with bytes described as JSON Schema's content keywords instead of a format."""

    def bytes_schema(self, schema: core_schema.BytesSchema) -> JsonSchemaValue:
        plain = super().bytes_schema(schema)
        described: dict[str, Any] = {"type": "string", "contentMediaType": "application/octet-stream"}
        if plain.get("format") == "base64url":
            described["contentEncoding"] = "base64"
        described.update((key, value) for key, value in plain.items() if key not in ("type", "format"))
        return described


@dataclasses.dataclass(eq=False)
class ModelField:
    """One named, typed value (a parameter, a body, a response) as FastAPI models it: a FieldInfo whose
    constraints are metadata, validated (and described) through a TypeAdapter of the annotated type."""

    field_info: FieldInfo
    name: str
    mode: Mode = "validation"
    config: ConfigDict | None = None

    def __post_init__(self) -> None:
        info = self.field_info
        attributes = {name: getattr(info, name) for name in _FIELD_ATTRIBUTES
                      if getattr(info, name, PydanticUndefined) is not PydanticUndefined}
        with warnings.catch_warnings():
            # Attributes such as alias mean nothing to a bare TypeAdapter; pydantic >= 2.12 warns about them.
            warnings.simplefilter("ignore")
            annotated = Annotated[(self.field_info.annotation, *self.field_info.metadata, Field(**attributes))]
            self.type_adapter: TypeAdapter[Any] = TypeAdapter(cast(Any, annotated), config=self.config)

    @property
    def alias(self) -> str:
        """The name on the wire: the alias, or the parameter's own name."""
        given = self.field_info.alias
        return self.name if given is None else given

    @property
    def validation_alias(self) -> str | None:
        """A plain-string validation alias (AliasPath/AliasChoices do not name a parameter)."""
        given = self.field_info.validation_alias
        return given or None if isinstance(given, str) else None

    @property
    def serialization_alias(self) -> str | None:
        return self.field_info.serialization_alias or None

    @property
    def required(self) -> bool:
        return self.field_info.is_required()

    def __hash__(self) -> int:
        return id(self)


def model_field(name: str, annotation: Any, *, mode: Mode = "validation", **field_kwargs: Any) -> ModelField:
    """A field of `annotation` (Annotated metadata and FieldInfos merged, as pydantic does for model fields)."""
    default = field_kwargs.pop("default", PydanticUndefined)
    factory = field_kwargs.pop("default_factory", None)
    info = FieldInfo.from_annotation(Annotated[annotation, Field(**field_kwargs)] if field_kwargs else annotation)
    info.default = default
    if factory is not None:
        info.default_factory = factory
    return ModelField(field_info=info, name=name, mode=mode)


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _is_model_or_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, (BaseModel, Enum))


def _flat_models_from_model(model: type[BaseModel], known: set[type]) -> None:
    for info in model.model_fields.values():
        _flat_models_from_annotation_field(info.annotation, known, top=True)


def _flat_models_from_annotation_field(tp: Any, known: set[type], *, top: bool) -> None:
    if top and _is_model(tp):
        if tp not in known:
            known.add(tp)
            _flat_models_from_model(tp, known)
        return
    if top and isinstance(tp, type) and issubclass(tp, Enum):
        known.add(tp)
        return
    if get_origin(tp) is None:
        return
    for arg in get_args(tp):
        if _is_model_or_enum(arg):
            if arg not in known:
                known.add(arg)
                if _is_model(arg):
                    _flat_models_from_model(arg, known)
        else:
            _flat_models_from_annotation_field(arg, known, top=False)


def flat_models(fields: Iterable[ModelField]) -> set[type]:
    """Every model and enum reachable from `fields` (FastAPI's get_flat_models_from_fields)."""
    known: set[type] = set()
    for field in fields:
        _flat_models_from_annotation_field(field.field_info.annotation, known, top=True)
    return known


def _has_computed_fields(field: ModelField) -> bool:
    if field.type_adapter.core_schema.get("schema", {}).get("computed_fields", []):
        return True
    seen: set[type] = set()

    def visit(tp: Any) -> bool:
        if _is_model(tp):
            if tp in seen:
                return False
            seen.add(tp)
            return bool(tp.model_computed_fields) or any(visit(f.annotation) for f in tp.model_fields.values())
        return any(visit(arg) for arg in get_args(tp))

    return visit(field.field_info.annotation)


FieldMapping = dict[tuple[ModelField, Mode], JsonSchemaValue]


def definitions(fields: Sequence[ModelField], *, separate_input_output_schemas: bool = True,
                ) -> tuple[FieldMapping, dict[str, dict[str, Any]]]:
    """The JSON Schema of each field (by (field, mode)) and the shared definitions (components/schemas)."""
    generator = GenerateJsonSchema(ref_template=REF_TEMPLATE)
    model_fields: list[ModelField] = []
    for mode in ("validation", "serialization"):
        models = flat_models([f for f in fields if f.mode == mode])
        model_fields += [ModelField(field_info=FieldInfo(annotation=m), name=m.__name__, mode=cast(Mode, mode))
                         for m in models]
    input_types = {f.field_info.annotation for f in fields}
    extra = [f for f in model_fields if f.field_info.annotation not in input_types]
    inputs = [
        (f, f.mode if separate_input_output_schemas or _has_computed_fields(f) else "validation",
         f.type_adapter.core_schema)
        for f in [*fields, *extra]
    ]
    mapping, defs = generator.generate_definitions(inputs=cast(Any, inputs))
    for item in defs.values():
        if "description" in item:
            item["description"] = item["description"].split("\f")[0]
    return cast(FieldMapping, mapping), cast(dict[str, dict[str, Any]], defs)


def field_schema(field: ModelField, mapping: FieldMapping, *, separate_input_output_schemas: bool = True,
                 alias: str | None = None) -> dict[str, Any]:
    """The schema of `field` (from `mapping`). An inline schema (not a $ref) is titled: the field's title, else
    its wire name in title case with "_" as spaces."""
    mode: Mode = field.mode
    if not separate_input_output_schemas and not _has_computed_fields(field):
        mode = "validation"
    schema = dict(mapping[(field, mode)])
    if "$ref" in schema:
        return schema
    if alias is None:
        wire = field.validation_alias if field.mode == "validation" else field.serialization_alias
        alias = wire or field.alias
    schema["title"] = field.field_info.title or alias.title().replace("_", " ")
    return schema
