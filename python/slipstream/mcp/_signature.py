"""A tool's, resource template's or prompt's function read once: its arguments as a pydantic model (the published
JSON Schema and the conversion of validated JSON into Python values), the Context parameter, and for tools the
structured output model (the official SDK's rules)."""

from __future__ import annotations

import dataclasses
import functools
import inspect
import typing
from collections.abc import Callable
from typing import Annotated, Any, get_args, get_origin, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, WithJsonSchema, create_model
from typing_extensions import is_typeddict

from .context import Context
from .types import Audio, CallToolResult, Image

_CONTENT_NAMES = frozenset({"TextContent", "ImageContent", "AudioContent", "ResourceLink", "EmbeddedResource",
                            "ContentBlock"})


class InvalidSignature(TypeError):
    """A function that cannot be a tool, resource or prompt (said at registration)."""


class _Arguments(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True, populate_by_name=True)

    def one_level(self) -> dict[str, Any]:
        """Keyword arguments: sub-models stay models."""
        return {(info.alias or name): getattr(self, name) for name, info in type(self).model_fields.items()}


def _is_context(annotation: Any) -> bool:
    if get_origin(annotation) is typing.Union or type(annotation).__name__ == "UnionType":
        return any(_is_context(a) for a in get_args(annotation))
    return isinstance(annotation, type) and issubclass(annotation, Context)


# Parameters whose JSON value (already checked by the engine against the schema pydantic made) is the Python value
# itself, up to int <-> float: no pydantic call is needed for them.
_PLAIN: dict[Any, Callable[[Any], Any] | None] = {str: None, bool: None, int: int, float: float}


@dataclasses.dataclass
class FunctionShape:
    fn: Callable[..., Any]
    is_async: bool
    arguments: type[_Arguments]
    context_param: str | None
    parameters: list[inspect.Parameter]
    plain: dict[str, Callable[[Any], Any] | None] | None = None  # every parameter plain: name -> conversion

    def input_schema(self) -> dict[str, Any]:
        return self.arguments.model_json_schema(by_alias=True)

    def kwargs(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Validated JSON arguments -> keyword arguments (raises pydantic's ValidationError)."""
        plain = self.plain
        if plain is None:
            return self.arguments.model_validate(arguments).one_level()
        out = {}
        for name, value in arguments.items():
            if name in plain:  # unknown members are ignored, as pydantic ignores them
                convert = plain[name]
                out[name] = value if convert is None else convert(value)
        return out


def read_function(fn: Callable[..., Any], model_name: str) -> FunctionShape:
    try:
        sig = inspect.signature(fn, eval_str=True)
    except NameError as exc:
        raise InvalidSignature(f"cannot evaluate the annotations of {model_name}: {exc}") from exc
    fields: dict[str, Any] = {}
    context_param = None
    parameters = []
    for param in sig.parameters.values():
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise InvalidSignature(f"{model_name}: *{param.name} / **{param.name} parameters are not supported")
        if _is_context(param.annotation):
            context_param = param.name
            continue
        if param.name.startswith("_"):
            raise InvalidSignature(f"{model_name}: parameter {param.name} cannot start with '_'")
        parameters.append(param)
        annotation = param.annotation
        metadata: list[Any] = []
        if annotation is inspect.Parameter.empty:
            annotation = Any
            metadata.append(WithJsonSchema({"title": param.name, "type": "string"}))
        name, field_kwargs = param.name, {}
        if hasattr(BaseModel, name):  # a name pydantic models use ("copy", "json", "schema", ...): aliased
            name, field_kwargs = f"field_{name}", {"alias": param.name}
        typed = Annotated[(annotation, *metadata, Field(**field_kwargs))]
        fields[name] = (typed, param.default) if param.default is not inspect.Parameter.empty else typed
    arguments = create_model(model_name, __base__=_Arguments, **fields)
    is_async = inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(type(fn).__call__)
    plain = None
    if all(p.annotation in _PLAIN and not hasattr(BaseModel, p.name) for p in parameters):
        plain = {p.name: _PLAIN[p.annotation] for p in parameters}
    return FunctionShape(fn, is_async, arguments, context_param, parameters, plain)


@dataclasses.dataclass
class OutputShape:
    """How a tool's return value becomes structuredContent: validated by `adapter`, wrapped as {"result": ...}
    for non-object types."""

    adapter: TypeAdapter[Any]
    schema: dict[str, Any]
    wrap: bool
    model: Any  # the type validated against

    @functools.cached_property
    def names_are_aliases(self) -> bool:
        """The output model serializes the same by alias and by name (no alias anywhere in it), so its JSON by alias
        (structuredContent) laid out with an indent is the SDK's text block (pydantic's to_json, by name)."""
        return isinstance(self.model, type) and issubclass(self.model, BaseModel) and _no_aliases(self.model, set())

    def instance(self, result: Any) -> bool:
        """An instance of the output model: valid by construction (the SDK does not validate it again either)."""
        return isinstance(result, BaseModel) and isinstance(self.model, type) and isinstance(result, self.model)

    def structured_json(self, result: Any) -> bytes:
        """structuredContent as compact JSON, serialized once from the value (pydantic-core, no dict built)."""
        if self.instance(result):
            # An instance of the output model is valid by construction: dumped as the SDK dumps it.
            return result.__pydantic_serializer__.to_json(result, by_alias=True)
        if self.wrap:
            result = {"result": result}
        validated = self.adapter.validate_python(result, by_alias=True, by_name=True)
        return self.adapter.dump_json(validated, by_alias=True)


def _no_aliases(tp: Any, seen: set[Any]) -> bool:
    """No field alias, serialization alias or alias generator in `tp` or in any model it refers to."""
    if tp in seen:
        return True
    seen.add(tp)
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        if tp.model_config.get("alias_generator") is not None:
            return False
        for field in tp.model_fields.values():
            if field.alias is not None or field.serialization_alias is not None:
                return False
            if not _no_aliases(field.annotation, seen):
                return False
        return True
    return all(_no_aliases(arg, seen) for arg in get_args(tp))


def _returns_content(tp: Any) -> bool:
    if isinstance(tp, type) and (issubclass(tp, Image | Audio) or tp.__name__ in _CONTENT_NAMES):
        return True
    if get_origin(tp) in (list, tuple) or get_origin(tp) is typing.Union or type(tp).__name__ == "UnionType":
        args = [a for a in get_args(tp) if a is not Ellipsis and a is not type(None)]
        return bool(args) and all(_returns_content(a) for a in args)
    return False


def _wrapped(name: str, annotation: Any) -> tuple[Any, bool]:
    return create_model(f"{name}Output", result=annotation), True


def _output_model(fn_name: str, annotation: Any) -> tuple[Any, bool] | None:
    tp = annotation
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    if tp is None or tp is type(None):
        return _wrapped(fn_name, annotation)
    if get_origin(tp) is dict:
        args = get_args(tp)
        if len(args) == 2 and args[0] is str:
            return Annotated[tp, Field(title=f"{fn_name}DictOutput")], False
        return _wrapped(fn_name, annotation)
    if isinstance(tp, type) and get_origin(tp) is None:
        if issubclass(tp, BaseModel) or is_typeddict(tp):
            return tp, False
        if tp in (str, int, float, bool, bytes):
            return _wrapped(fn_name, annotation)
        hints = get_type_hints(tp)
        if not hints:
            return None
        fields = {k: (v, getattr(tp, k)) if hasattr(tp, k) else v for k, v in hints.items() if not k.startswith("_")}
        return create_model(tp.__name__, __config__=ConfigDict(from_attributes=True), **fields), False
    return _wrapped(fn_name, annotation)


def read_output(fn: Callable[..., Any], structured_output: bool | None) -> OutputShape | None:
    """The structured output of a tool, or None (content only). `structured_output`: None decides from the return
    annotation; True requires one; False never."""
    if structured_output is False:
        return None
    annotation = inspect.signature(fn, eval_str=True).return_annotation
    name = getattr(fn, "__name__", "tool")
    if annotation is inspect.Parameter.empty:
        if structured_output:
            raise InvalidSignature(f"{name}: structured output needs a return annotation")
        return None
    bare = get_args(annotation)[0] if get_origin(annotation) is Annotated else annotation
    if isinstance(bare, type) and issubclass(bare, CallToolResult) or getattr(bare, "__name__", "") == "CallToolResult":
        return None
    if structured_output is None and _returns_content(bare):
        return None
    made = _output_model(name, annotation)
    if made is None:
        if structured_output:
            raise InvalidSignature(f"{name}: return type {bare!r} cannot be structured output")
        return None
    model, wrap = made
    try:
        adapter = TypeAdapter(model)
        schema = adapter.json_schema(by_alias=True)
    except Exception as exc:
        if structured_output:
            raise InvalidSignature(f"{name}: return type {bare!r} cannot be structured output: {exc}") from exc
        return None
    return OutputShape(adapter, schema, wrap, model)
