"""Reads the slipstream markers of a parameter's annotation or default: Query/Path/Header/Cookie/Body/Form/File
(`Param`) and Depends/Security (`DependsParam`), as FastAPI's analyze_param finds them."""

from __future__ import annotations

import typing
from typing import Annotated, Any

from .dependencies.params import DependsParam
from .params import Param


def split_markers(annotation: Any, default: Any) -> tuple[Any, Any, Param | DependsParam | None, bool]:
    """(annotation without markers, its bare type, the Param or Depends marker, whether it came from Annotated)."""
    if typing.get_origin(annotation) is Annotated:
        base, *meta = typing.get_args(annotation)
        params = [m for m in meta if isinstance(m, Param)]
        depends = [m for m in meta if isinstance(m, DependsParam)]
        rest = [m for m in meta if not isinstance(m, (Param, DependsParam))]
        if len(params) > 1:
            raise TypeError("only one of Query/Path/Header/Cookie/Body per parameter")
        if params or depends:
            if isinstance(default, (Param, DependsParam)):
                raise TypeError("give the marker either in Annotated or as the default, not both")
            clean = Annotated[(base, *rest)] if rest else base
            # FastAPI: the last FastAPI marker wins.
            last = max(params + depends, key=lambda m: max(i for i, x in enumerate(meta) if x is m))
            return clean, base, last, True
        if isinstance(default, (Param, DependsParam)):
            # Annotated[int, AfterValidator(f)] = Query(None): FastAPI keeps only the bare type (its analyze_param
            # sets the marker's annotation to it), so the metadata does not apply.
            return base, base, default, False
        return annotation, base, None, False
    if isinstance(default, (Param, DependsParam)):
        return annotation, annotation, default, False
    return annotation, annotation, None, False
