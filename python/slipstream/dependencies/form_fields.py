"""Form() / File() / UploadFile parameters of a dependency (FastAPI allows them anywhere in the tree): they leave
the C++-validated rows and are read from the request's form (parsed once per request) when the step runs."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .. import _signature, forms

# ParamRead.kind of a form field (beside _signature's FIELD, DEPENDS, ...).
FORM = 100


def form_reads(call: Callable[..., Any], reads: list[_signature.ParamRead]) -> dict[str, forms.FormField]:
    """Turns the reads of `call`'s form parameters into FORM reads (in place); returns their FormFields by name."""
    try:
        parameters = list(inspect.signature(call).parameters.values())
    except (TypeError, ValueError):
        return {}
    if not any(r.kind == _signature.FIELD and r.field is not None and _maybe_form(r.field) for r in reads):
        return {}
    fields = {f.name: f for f in forms.signature_fields(parameters, _signature._hints(call))}
    for i, read in enumerate(reads):
        if read.kind == _signature.FIELD and read.name in fields:
            reads[i] = _signature.ParamRead(read.name, FORM)
    return fields


def _maybe_form(field: _signature.Field) -> bool:
    return field.source == "form" or forms.claims(field.annotation, None)


def values(fields: list[forms.FormField], request: Any) -> dict[str, Any]:
    """The fields' validated values by name from the request's form; RequestValidationError (FastAPI's 422,
    every invalid field of them) if any is invalid."""
    return forms.solve_fields(fields, request.form_sync())


__all__ = ["FORM", "form_reads", "values"]
