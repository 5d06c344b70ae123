"""SecurityBase: what every security scheme class has (the dependency tree and the OpenAPI document read both)."""

from __future__ import annotations

from .models import SecurityBase as SecurityBaseModel


class SecurityBase:
    """A security scheme: its OpenAPI Security Scheme object (`model`) and its name in
    `components.securitySchemes` (`scheme_name`, the class name unless given)."""

    model: SecurityBaseModel
    scheme_name: str
