"""FastAPI's ORJSONResponse and UJSONResponse (deprecated there: a response_model is encoded faster): JSON written
by orjson or ujson, which the app installs itself (an AssertionError names the missing one, as in FastAPI)."""

from __future__ import annotations

from typing import Any

from ._core.response import JSONResponse

try:
    import orjson
except ImportError:  # pragma: no cover - optional
    orjson = None  # type: ignore[assignment]

try:
    import ujson
except ImportError:  # pragma: no cover - optional
    ujson = None


class ORJSONResponse(JSONResponse):
    """`content` written by orjson (non-str keys and numpy arrays allowed, as FastAPI's)."""

    def render(self, content: Any) -> bytes:
        assert orjson is not None, "orjson must be installed to use ORJSONResponse"
        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)


class UJSONResponse(JSONResponse):
    """`content` written by ujson (ensure_ascii off, as FastAPI's)."""

    def render(self, content: Any) -> bytes:
        assert ujson is not None, "ujson must be installed to use UJSONResponse"
        return ujson.dumps(content, ensure_ascii=False).encode("utf-8")


__all__ = ["ORJSONResponse", "UJSONResponse"]
