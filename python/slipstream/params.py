"""Parameter markers: Query(), Path(), Header(), Cookie(), Body() — as defaults or in Annotated[...]."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Required: Any = ...
"""The default of a parameter that must be sent (FastAPI spells it `...`)."""

_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern", "strict",
                "allow_inf_nan", "max_digits", "decimal_places")


class Param:
    """Where a handler parameter comes from, and its constraints (checked in C++ before the handler runs)."""

    source: str = "query"

    def __init__(
        self,
        default: Any = Required,
        *,
        default_factory: Callable[[], Any] | None = None,
        alias: str | None = None,
        title: str | None = None,
        description: str | None = None,
        gt: float | None = None,
        ge: float | None = None,
        lt: float | None = None,
        le: float | None = None,
        multiple_of: float | None = None,
        min_length: int | None = None,
        max_length: int | None = None,
        pattern: str | None = None,
        regex: str | None = None,
        strict: bool | None = None,
        allow_inf_nan: bool | None = None,
        max_digits: int | None = None,
        decimal_places: int | None = None,
        examples: list[Any] | None = None,
        deprecated: bool | None = None,
        include_in_schema: bool = True,
        **extra: Any,
    ) -> None:
        if default is not Required and default_factory is not None:
            raise TypeError("cannot give both default and default_factory")
        self.default = default
        self.default_factory = default_factory
        self.alias = alias
        self.title = title
        self.description = description
        self.gt, self.ge, self.lt, self.le = gt, ge, lt, le
        self.multiple_of = multiple_of
        self.min_length = min_length
        self.max_length = max_length
        self.pattern = pattern if pattern is not None else regex
        self.strict = strict
        self.allow_inf_nan = allow_inf_nan
        self.max_digits = max_digits
        self.decimal_places = decimal_places
        self.examples = examples
        self.deprecated = deprecated
        self.include_in_schema = include_in_schema
        self.extra = extra

    @property
    def required(self) -> bool:
        return self.default is Required and self.default_factory is None

    def constraints(self) -> dict[str, Any]:
        """The pydantic Field() arguments that constrain the value."""
        return {name: getattr(self, name) for name in _CONSTRAINTS if getattr(self, name) is not None}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.default!r})"


class QueryParam(Param):
    source = "query"


class PathParam(Param):
    source = "path"

    def __init__(self, default: Any = Required, **kwargs: Any) -> None:
        # A path parameter is always required; FastAPI accepts `...` only.
        super().__init__(Required, **kwargs)


class HeaderParam(Param):
    source = "header"

    def __init__(self, default: Any = Required, *, convert_underscores: bool = True, **kwargs: Any) -> None:
        super().__init__(default, **kwargs)
        self.convert_underscores = convert_underscores


class CookieParam(Param):
    source = "cookie"


class BodyParam(Param):
    source = "body"

    def __init__(self, default: Any = Required, *, embed: bool | None = None, media_type: str = "application/json",
                 **kwargs: Any) -> None:
        super().__init__(default, **kwargs)
        self.embed = embed
        self.media_type = media_type


def Query(default: Any = Required, **kwargs: Any) -> Any:
    """A query string parameter: `q: Annotated[int, Query(gt=0)] = 1` or `q: int = Query(1, gt=0)`."""
    return QueryParam(default, **kwargs)


def Path(default: Any = Required, **kwargs: Any) -> Any:
    """A path parameter (always required): `item_id: Annotated[int, Path(ge=1)]`."""
    return PathParam(default, **kwargs)


def Header(default: Any = Required, *, convert_underscores: bool = True, **kwargs: Any) -> Any:
    """A header; `user_agent` is read from `user-agent` unless convert_underscores=False."""
    return HeaderParam(default, convert_underscores=convert_underscores, **kwargs)


def Cookie(default: Any = Required, **kwargs: Any) -> Any:
    """A cookie from the Cookie header."""
    return CookieParam(default, **kwargs)


def Body(default: Any = Required, *, embed: bool | None = None, **kwargs: Any) -> Any:
    """A JSON body parameter; embed=True reads it from the key named after the parameter."""
    return BodyParam(default, embed=embed, **kwargs)
