"""Helpers shared by the security classes."""

from __future__ import annotations


def get_authorization_scheme_param(authorization_header_value: str | None) -> tuple[str, str]:
    """("Bearer", "abc") from "Bearer abc": the scheme up to the first space and the rest stripped; ("", "")
    when the header is missing or empty."""
    if not authorization_header_value:
        return "", ""
    scheme, _, param = authorization_header_value.partition(" ")
    return scheme, param.strip()
