"""HTTP status codes as constants (HTTP_200_OK, HTTP_404_NOT_FOUND, ...), as starlette.status names them."""

from http import HTTPStatus as _HTTPStatus

_RENAMES = {
    "REQUEST_ENTITY_TOO_LARGE": "CONTENT_TOO_LARGE",
    "UNPROCESSABLE_ENTITY": "UNPROCESSABLE_CONTENT",
}

for _s in _HTTPStatus:
    globals()[f"HTTP_{_s.value}_{_s.name}"] = _s.value
    if _s.name in _RENAMES:
        globals()[f"HTTP_{_s.value}_{_RENAMES[_s.name]}"] = _s.value

HTTP_422_UNPROCESSABLE_ENTITY = 422
HTTP_413_REQUEST_ENTITY_TOO_LARGE = 413
