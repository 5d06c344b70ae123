"""A form body (application/x-www-form-urlencoded or multipart/form-data) parsed in C++ (_native.parse_form) into
FormData, under the form limits (FastAPI's form_limits plus Slipstream's); Request.form() and Form()/File()
parameters (slipstream/forms.py) read it."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from typing import Any

from .. import _native
from ..datastructures import FormData, Headers, UploadFile
from ..exceptions import HTTPException

DEFAULT_LIMITS: dict[str, int] = {
    "max_fields": 1000,          # Starlette's defaults for the first three
    "max_files": 1000,
    "max_part_size": 1024 * 1024,  # one text field, bytes
    "max_file_size": 0,          # one file, bytes; 0: no limit but the server's max_body_bytes
    "max_part_header_size": 16 * 1024,
    "max_part_headers": 32,
    "spool_max_size": 1024 * 1024,  # files larger than this go to a temporary file (Starlette's spool size)
}
_MAX = (1 << 63) - 1


def check_limits(limits: Mapping[str, int] | None) -> dict[str, int]:
    """FastAPI's form_limits keys (max_fields, max_files, max_part_size) plus Slipstream's; unknown keys raise."""
    if not limits:
        return {}
    unknown = set(limits) - set(DEFAULT_LIMITS)
    if unknown:
        raise TypeError(f"unknown form limit(s): {', '.join(sorted(unknown))}")
    for key, value in limits.items():
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"form limit {key} must be a non-negative int")
    return dict(limits)


def _limits_tuple(limits: Mapping[str, int]) -> tuple[int, ...]:
    merged = {**DEFAULT_LIMITS, **limits}
    return (merged["max_fields"], merged["max_files"], merged["max_part_size"],
            merged["max_file_size"] or _MAX, merged["max_part_header_size"], merged["max_part_headers"])


def _spooled(data: bytes, fd: int, spool_max: int) -> Any:
    file = tempfile.SpooledTemporaryFile(max_size=spool_max)  # noqa: SIM115 - owned by the UploadFile
    if fd >= 0:
        # The extension already wrote the file to an unnamed temporary file: roll over onto it.
        file._file.close()  # type: ignore[attr-defined]
        file._file = os.fdopen(fd, "w+b")  # type: ignore[attr-defined]
        file._rolled = True  # type: ignore[attr-defined]
    else:
        file.write(data)
    file.seek(0)
    return file


def parse_body(request: Any, limits: Mapping[str, int]) -> FormData:
    """The request's form (empty for a body of another media type). A malformed or over-limit body raises
    HTTPException(400) with Starlette's message, as FastAPI answers."""
    merged = {**DEFAULT_LIMITS, **limits}
    content_type = request.headers.get("content-type", "")
    entries, error = _native.parse_form(content_type, request.body_bytes, _limits_tuple(merged),
                                        merged["spool_max_size"], tempfile.gettempdir())
    if error is not None:
        raise HTTPException(status_code=400, detail=error[1])
    items: list[tuple[str, Any]] = []
    for entry in entries:
        if len(entry) == 2:
            items.append(entry)
            continue
        name, filename, headers, data, fd, size = entry
        upload = UploadFile(_spooled(data, fd, merged["spool_max_size"]), size=size, filename=filename,
                            headers=Headers(headers))
        items.append((name, upload))
    return FormData(items)
