"""Property-based differential test: the C++ validator against pydantic, as FastAPI runs it.

Hypothesis builds pydantic models from a grammar of field types and constraints (str with length bounds and a
pattern; int and float with bounds and multiple_of; bool, Optional, list/set/tuple/dict, nested models, Literal,
Enum, UUID, datetime, date, Decimal; defaults and aliases) and JSON bodies for them (values drawn from each field's
type and from other types, missing and extra keys, non-object bodies). Each body is POSTed to the same route under a
real slipstream app and a FastAPI app; the status, the 422 `detail` list and (for 200) the validated model's repr
must be equal. A type the C++ validator does not model makes the route fall back to pydantic (slipstream/_fallback.py),
so a disagreement is a defect either way.

Bounded and deterministic in `make test` (derandomized, fixed example count); SLIPSTREAM_DIFF_EXAMPLES=N runs N
examples with a random seed for a longer local search.
"""


import dataclasses
import datetime as dt
import enum
import inspect
import itertools
import json
import os
import re
import uuid
from decimal import Decimal
from typing import Annotated, Any, Literal, Optional

import pytest

fastapi = pytest.importorskip("fastapi")
hypothesis = pytest.importorskip("hypothesis")

import slipstream
from fastapi.testclient import TestClient as FastAPIClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, create_model
from typing_extensions import TypedDict

_EXAMPLES = int(os.environ.get("SLIPSTREAM_DIFF_EXAMPLES", "0") or 0)
_SETTINGS = settings(
    max_examples=_EXAMPLES or 120,
    derandomize=not _EXAMPLES,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


class Color(str, enum.Enum):
    red = "red"
    blue = "blue"


class Level(enum.IntEnum):
    low = 1
    high = 2


_names = itertools.count()


def _even(value: int) -> int:
    if value % 2:
        raise ValueError("odd")
    return value


# --- The type grammar: each strategy yields (annotation, value strategy for inputs of that type). ---

def _maybe(draw: Any, strategy: Any) -> Any:
    return draw(st.one_of(st.none(), strategy))


@st.composite
def _str_type(draw: Any) -> tuple[Any, Any]:
    low = _maybe(draw, st.integers(0, 3))
    high = _maybe(draw, st.integers(low or 0, 6))
    pattern = draw(st.sampled_from([None, r"^[a-z]+$", r"\d", r"^a"]))
    kwargs = {k: v for k, v in (("min_length", low), ("max_length", high), ("pattern", pattern)) if v is not None}
    text = st.text(alphabet="ab1 Zé", max_size=8)
    return (Annotated[str, Field(**kwargs)] if kwargs else str), text


@st.composite
def _number_type(draw: Any, base: type) -> tuple[Any, Any]:
    kwargs: dict[str, Any] = {}
    for key in draw(st.lists(st.sampled_from(["gt", "ge", "lt", "le", "multiple_of"]), unique=True, max_size=2)):
        if key == "multiple_of":
            kwargs[key] = draw(st.sampled_from([2, 3] if base is int else [0.5, 2.0, 0.1]))
        elif key in ("gt", "ge"):
            kwargs[key] = draw(st.sampled_from([0, -1, 1] if base is int else [0, -1.5, 0.5]))
        else:
            kwargs[key] = draw(st.sampled_from([10, 0, 100] if base is int else [10, 0.5, 100.0]))
    values = st.one_of(st.integers(-20, 120), st.floats(-50, 150, allow_nan=False).map(lambda x: round(x, 2)),
                       st.sampled_from(["1", "2.5", "-3", "1e2", " 4 ", "0x10", "inf", "nan", "abc"]))
    return (Annotated[base, Field(**kwargs)] if kwargs else base), values


def _leaf_types() -> Any:
    return st.one_of(
        _str_type(),
        _number_type(int),
        _number_type(float),
        st.just((bool, st.sampled_from([True, False, 0, 1, 2, "true", "false", "yes", "off", "t", "1", 1.0, 0.5]))),
        st.just((Literal["a", "b"], st.sampled_from(["a", "b", "c", 1, None]))),
        st.just((Literal[1, 2], st.sampled_from([1, 2, 3, "1", 1.0, True]))),
        st.just((Color, st.sampled_from(["red", "blue", "green", 1, None]))),
        st.just((Level, st.sampled_from([1, 2, 3, "1", "low", 1.0]))),
        st.just((uuid.UUID, st.sampled_from(["12345678-1234-5678-1234-567812345678",
                                             "12345678123456781234567812345678", "not-a-uuid", 5]))),
        st.just((dt.datetime, st.sampled_from(["2024-01-02T03:04:05", "2024-01-02T03:04:05Z", "2024-01-02",
                                               "2024-13-01T00:00:00", 1700000000, "x", 1.5]))),
        st.just((dt.date, st.sampled_from(["2024-01-02", "2024-02-30", "2024-01-02T00:00:00", 1700000000, "x"]))),
        st.just((Decimal, st.sampled_from(["1.10", "abc", 1, 2.5, "1e3", "NaN", True]))),
        st.just((dt.time, st.sampled_from(["03:04:05", "03:04:05.123Z", "25:00", 3600, "x"]))),
        # Validated by pydantic (the route falls back): their errors must still join the others exactly.
        st.just((dt.timedelta, st.sampled_from([90.5, 3, "PT1M", "1 day", "x", None]))),
        st.just((Annotated[int, AfterValidator(_even)], st.sampled_from([2, 3, "4", "x", 1.5]))),
        st.just((Annotated[float, Field(allow_inf_nan=False)], st.sampled_from([1.5, "inf", "nan", "x"]))),
    )


def _containers(children: Any) -> Any:
    @st.composite
    def list_type(draw: Any) -> tuple[Any, Any]:
        tp, values = draw(children)
        low = _maybe(draw, st.integers(0, 2))
        high = _maybe(draw, st.integers(max(low or 0, 1), 4))
        kwargs = {k: v for k, v in (("min_length", low), ("max_length", high)) if v is not None}
        return (Annotated[list[tp], Field(**kwargs)] if kwargs else list[tp]), st.lists(values, max_size=5)

    @st.composite
    def set_type(draw: Any) -> tuple[Any, Any]:
        item = draw(st.sampled_from([str, int]))
        values = st.lists(st.sampled_from(["a", "b", "a", 1, 2, 1, "1", None]), max_size=5)
        return (draw(st.sampled_from([set, frozenset]))[item], values)

    @st.composite
    def tuple_type(draw: Any) -> tuple[Any, Any]:
        (a, va), (b, vb) = draw(children), draw(children)
        return tuple[a, b], st.one_of(st.tuples(va, vb).map(list), st.lists(va, max_size=3))

    @st.composite
    def variadic_tuple_type(draw: Any) -> tuple[Any, Any]:
        tp, values = draw(children)
        return tuple[tp, ...], st.one_of(st.lists(values, max_size=3), values)

    @st.composite
    def union_type(draw: Any) -> tuple[Any, Any]:
        (a, va), (b, vb) = draw(children), draw(children)
        return a | b, st.one_of(va, vb)

    @st.composite
    def dict_type(draw: Any) -> tuple[Any, Any]:
        tp, values = draw(children)
        return dict[str, tp], st.dictionaries(st.sampled_from(["k", "1", "x y"]), values, max_size=3)

    @st.composite
    def optional_type(draw: Any) -> tuple[Any, Any]:
        tp, values = draw(children)
        return Optional[tp], st.one_of(st.none(), values)  # noqa: UP045 - a runtime type, not an annotation

    return st.one_of(list_type(), set_type(), tuple_type(), variadic_tuple_type(), union_type(), dict_type(),
                     optional_type(), _model_type(children))


def _model_type(children: Any) -> Any:
    @st.composite
    def model(draw: Any) -> tuple[Any, Any]:
        return _build_model(draw, children, nested=True)

    return model()


def _build_model(draw: Any, children: Any, *, nested: bool) -> tuple[Any, Any]:
    kind = draw(st.sampled_from(["model", "model", "dataclass", "typeddict"])) if nested else "model"
    if kind != "model":
        return _build_plain_class(draw, children, kind)
    count = draw(st.integers(1, 3 if nested else 4))
    fields: dict[str, Any] = {}
    value_strategies: dict[str, Any] = {}
    for i in range(count):
        tp, values = draw(children)
        name = f"f{i}"
        alias = draw(st.sampled_from([None, None, f"F-{i}"]))
        required = draw(st.booleans())
        info = Field(alias=alias) if required else Field(default=None, alias=alias)
        fields[name] = (tp, info)
        value_strategies[alias or name] = values
    forbid = draw(st.integers(0, 5)) == 0
    config = ConfigDict(extra="forbid") if forbid else None
    cls = create_model(f"M{next(_names)}", __config__=config, **fields)
    return cls, _object_values(value_strategies)


def _build_plain_class(draw: Any, children: Any, kind: str) -> tuple[Any, Any]:
    """A dataclass (required fields first, the others default to None) or a TypedDict (total or not)."""
    count = draw(st.integers(1, 3))
    drawn = [(f"f{i}", *draw(children)) for i in range(count)]
    name = f"{'D' if kind == 'dataclass' else 'T'}{next(_names)}"
    if kind == "dataclass":
        required = draw(st.integers(0, count))
        fields = [(n, tp) for n, tp, _ in drawn[:required]]
        fields += [(n, tp, dataclasses.field(default=None)) for n, tp, _ in drawn[required:]]
        cls = dataclasses.make_dataclass(name, fields)
    else:
        cls = TypedDict(name, {n: tp for n, tp, _ in drawn}, total=draw(st.booleans()))  # type: ignore[operator]
    return cls, _object_values({n: values for n, _, values in drawn})


def _object_values(fields: dict[str, Any]) -> Any:
    @st.composite
    def draw_object(draw: Any) -> dict[str, Any]:
        out = {}
        for key, values in fields.items():
            choice = draw(st.integers(0, 9))
            if choice == 0:
                continue  # missing
            out[key] = draw(_any_json()) if choice == 1 else draw(values)
        if draw(st.integers(0, 6)) == 0:
            out["extra"] = draw(_any_json())
        return out

    return st.one_of(draw_object(), draw_object(), draw_object(), _any_json())


def _any_json() -> Any:
    scalars = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1),
                        st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6),
                        st.sampled_from(["1", "1.5", "true", "2024-01-02", "red", ""]))
    return st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                          st.dictionaries(st.text(max_size=3), inner, max_size=3)),
                        max_leaves=6)


_TYPES = st.recursive(_leaf_types(), _containers, max_leaves=4)


def _query_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


@st.composite
def query_param(draw: Any) -> tuple[Any, bool, Any]:
    """(type, required, strategy of the query values sent: a list of texts, empty for none)."""
    tp, values = draw(_leaf_types())
    as_list = draw(st.booleans())
    texts = st.lists(values.map(_query_text), max_size=3 if as_list else 1)
    return (list[tp] if as_list else tp), draw(st.booleans()), texts


@st.composite
def route_and_requests(draw: Any) -> tuple[Any, Any, list[tuple[Any, list[str]]]]:
    """(body: a model, or (model, second body parameter) embedded as {"m": ..., "n": ...}; query; requests)."""
    cls, values = _build_model(draw, _TYPES, nested=False)
    if draw(st.integers(0, 3)) == 0:
        second, second_values = draw(_TYPES)
        cls = (cls, second)
        values = st.one_of(_object_values({"m": values, "n": second_values}), _any_json())
    query = draw(st.one_of(st.none(), query_param()))
    texts = query[2] if query is not None else st.just([])
    requests = draw(st.lists(st.tuples(values, texts), min_size=1, max_size=6))
    return cls, query, requests


# --- Running one route under both frameworks. ---

def _app(fw: Any, cls: Any, query: Any) -> Any:
    app = fw.FastAPI() if hasattr(fw, "FastAPI") else fw.App()
    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    params = [inspect.Parameter("m", kind, annotation=cls[0] if isinstance(cls, tuple) else cls)]
    if isinstance(cls, tuple):  # a second body parameter: the body is embedded
        params.append(inspect.Parameter("n", kind, annotation=cls[1], default=fw.Body()))
    if query is not None:
        qtype, required, _ = query
        params.append(inspect.Parameter("q", kind, annotation=qtype, default=fw.Query() if required else fw.Query(None)))

    def handler(**kwargs: Any) -> Any:
        return {name: repr(value) for name, value in kwargs.items()}

    handler.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    handler.__annotations__ = {p.name: p.annotation for p in params}
    app.post("/m")(handler)
    return app


def _answer(client: Any, text: str, query: list[str]) -> tuple[int, Any]:
    response = client.post("/m", params=[("q", v) for v in query], content=text,
                           headers={"content-type": "application/json"})
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, response.text


@_SETTINGS
@given(route_and_requests())
def test_validators_agree(case: tuple[Any, Any, list[tuple[Any, list[str]]]]) -> None:
    cls, query, requests = case
    ours = slipstream.TestClient(_app(slipstream, cls, query), raise_server_exceptions=False)
    theirs = FastAPIClient(_app(fastapi, cls, query), raise_server_exceptions=False)
    try:
        for body, texts in requests:
            text = json.dumps(body)
            expected = _answer(theirs, text, texts)
            got = _answer(ours, text, texts)
            assert got == expected, (
                f"model {_describe(cls)}\nquery param {query and query[:2]} = {texts}\nbody {text}\n"
                f"slipstream {got}\nfastapi    {expected}\n"
                f"route validated by pydantic: {_app(slipstream, cls, query).routes[0].validation_fallback}")
    finally:
        ours.close()
        theirs.close()


def _describe(cls: Any) -> str:
    if isinstance(cls, tuple):
        return f"{_describe(cls[0])}, second body parameter n: {cls[1]!r}"
    if not (isinstance(cls, type) and issubclass(cls, BaseModel)):
        return repr(cls)
    fields = ", ".join(f"{n}: {f.annotation!r}{' (alias ' + f.alias + ')' if f.alias else ''}"
                       f"{'' if f.is_required() else ' = None'} {f.metadata or ''}"
                       for n, f in cls.model_fields.items())
    return re.sub(r"typing\.|<class '([^']+)'>", r"\1", f"{cls.__name__}({fields}) config={dict(cls.model_config)}")
