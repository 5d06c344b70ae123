"""The route contract (slipstream/_core/route_desc.py <-> python/bindings/route_desc.h): every field of a RouteDesc
as the engine reads it at registration, the enums' values on both sides, and the malformed descriptions it refuses."""

from __future__ import annotations

import dataclasses
from typing import Annotated, Any

import pytest
from slipstream import App, Header, Query, _native
from slipstream._core.plan_desc import INT, DefaultPlan, ListPlan
from slipstream._core.route_desc import ArgDesc, ArgKind, BodyDesc, DefaultKind, ParamDesc, ParamSource, RouteDesc
from slipstream._native_route import native_route


def _handler(**_kwargs: Any) -> None:
    return None


def _prepare(value: Any) -> Any:
    return value


PLAN = DefaultPlan(ListPlan(INT), DefaultKind.COPY, [1])


def _full() -> RouteDesc:
    """A description with every field set, each to a value no other field has."""
    return RouteDesc(
        handler=_handler,
        is_coroutine=True,
        status_code=201,
        args=(ArgDesc("q", ArgKind.VALUE, 3, "q#2", PLAN, ("query", "q")), ArgDesc.request("req"), ArgDesc.reply()),
        params=(
            ParamDesc("item_id", ParamSource.PATH, "item_id", '{"type":"integer"}', True),
            ParamDesc("q", ParamSource.QUERY, "q", '{"type":"string"}', False, '"x"'),
            ParamDesc("x_token", ParamSource.HEADER, "x-token", "{}", True),
            ParamDesc("session", ParamSource.COOKIE, "sid", '{"type":"boolean"}', False, "false"),
        ),
        body=(BodyDesc("item", '{"type":"object"}', True, embed=True), BodyDesc("n", "{}", False, "7", True)),
        path_params=("item_id",),
        prepare=_prepare,
        cache_ttl=2.5,
        forward_errors=True,
        strict_content_type=False,
        max_body_size=4096,
        app_errors=object(),
    )


def test_the_engine_reads_every_field_of_a_route_desc() -> None:
    read = _native.read_route_desc(_full())
    assert read == {
        "handler": _handler,
        "is_coroutine": True,
        "status_code": 201,
        "prepare": _prepare,
        "cache_ttl": 2.5,
        "path_params": ("item_id",),
        "params": (
            {"name": "item_id", "source": "kPath", "alias": "item_id", "schema": '{"type":"integer"}',
             "required": True, "default": ""},
            {"name": "q", "source": "kQuery", "alias": "q", "schema": '{"type":"string"}', "required": False,
             "default": '"x"'},
            {"name": "x_token", "source": "kHeader", "alias": "x-token", "schema": "{}", "required": True,
             "default": ""},
            {"name": "session", "source": "kCookie", "alias": "sid", "schema": '{"type":"boolean"}',
             "required": False, "default": "false"},
        ),
        "body": (
            {"name": "item", "schema": '{"type":"object"}', "required": True, "default": "", "embed": True},
            {"name": "n", "schema": "{}", "required": False, "default": "7", "embed": True},
        ),
        "forward_errors": True,
        "strict_content_type": False,
        "max_body_size": 4096,
        "args": (
            {"name": "q", "kind": "kValue", "index": 3, "key": "q#2", "plan": PLAN, "loc": ("query", "q")},
            {"name": "req", "kind": "kRequest", "index": 0, "key": "", "plan": None, "loc": ()},
            {"name": "__reply__", "kind": "kReply", "index": 0, "key": "", "plan": None, "loc": ()},
        ),
    }


def test_enum_values_are_the_engines() -> None:
    assert [(m.name, m.value) for m in ParamSource] == [("PATH", 0), ("QUERY", 1), ("HEADER", 2), ("COOKIE", 3)]
    assert [(m.name, m.value) for m in ArgKind] == [("VALUE", 0), ("REQUEST", 1), ("REPLY", 2)]
    assert [(m.name, m.value) for m in DefaultKind] == [("REQUIRED", 0), ("VALUE", 1), ("FACTORY", 2), ("COPY", 3)]


def test_a_route_made_by_the_app_reads_back_as_its_rows() -> None:
    app = App()

    @app.get("/items/{item_id}", status_code=202)
    def item(item_id: int, x_token: Annotated[str, Header()], q: Annotated[int, Query(ge=1)] = 5):
        return {}

    [route] = app.routes
    read = _native.read_route_desc(native_route(route, app.exception_handlers))
    assert read["handler"] is item
    assert (read["is_coroutine"], read["status_code"], read["prepare"], read["cache_ttl"]) == (False, 202, None, 0.0)
    assert read["path_params"] == ("item_id",)
    assert [(p["name"], p["source"], p["alias"], p["required"], p["default"]) for p in read["params"]] == [
        ("item_id", "kPath", "item_id", True, ""),
        ("q", "kQuery", "q", False, ""),  # its default is made by the argument's plan, not by the validator
        ("x-token", "kHeader", "x-token", True, ""),
    ]
    assert read["body"] == ()
    assert read["forward_errors"] is False
    assert [(a["name"], a["kind"], a["index"], a["key"], a["loc"]) for a in read["args"]] == [
        ("item_id", "kValue", 0, "item_id", ("path", "item_id")),
        ("x_token", "kValue", 2, "x-token", ("header", "x-token")),
        ("q", "kValue", 1, "q", ("query", "q")),
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"args": (ArgDesc.reply(), ArgDesc.request())}, "route description: the reply must be last"),
        ({"params": (_full().params[0]._replace(source=4),)}, "route description: param source is out of range"),
        ({"args": (ArgDesc("q", 3),)}, "route description: arg kind is out of range"),
        ({"params": ((0, 1, "a", "{}", True, ""),)}, "route description: param lacks 'name'"),
        ({"body": (BodyDesc("b", "{}", True, None),)}, "route description: body default must be a str"),  # type: ignore[arg-type]
        ({"handler": 42}, "route description: handler is not callable"),
        ({"args": [ArgDesc.reply()]}, "route description: args must be a tuple"),
    ],
)
def test_a_malformed_route_desc_is_refused_naming_the_field(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError) as raised:
        _native.read_route_desc(dataclasses.replace(_full(), **change))
    assert str(raised.value) == message
