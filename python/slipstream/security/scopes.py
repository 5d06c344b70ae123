"""RequireScopes: a dependency that lets a route run only for a principal whose credential grants the scopes named
(an API token issued at runtime, App(tokens=...), or a JWT's `scope` / `scopes` claim), as the engine's own routes
check them: 401 without credentials, 403 without the scopes."""

from __future__ import annotations

from collections.abc import Iterable

from ..dependencies.params import SecurityScopes
from ..exceptions import HTTPException
from ..requests import Request
from ..status import HTTP_401_UNAUTHORIZED, HTTP_403_FORBIDDEN
from .base import SecurityBase
from .models import HTTPBearer as HTTPBearerModel

_TENANT_KINDS = ("read", "write")


def _parts(scope: str) -> tuple[str, str]:
    name, _, tenant = scope.partition(":")
    return name, tenant


def scope_granted(held: Iterable[str], required: str) -> bool:
    """True when the scopes `held` grant `required`, by the grammar of issued tokens (src/agent/shared_state):
    `admin` grants everything; `write[:t]` grants `read[:t]` too; `read` / `write` without a tenant hold on every
    tenant; `tenant_admin:t` grants `read:t` and `write:t`. Any other scope is granted by itself only."""
    held = list(held)
    if "admin" in held or required in held:
        return True
    kind, tenant = _parts(required)
    if kind not in _TENANT_KINDS:
        return False
    for scope in held:
        name, on = _parts(scope)
        here = on == "" or on == tenant
        if name == "write" and here:
            return True
        if name == "tenant_admin" and tenant and on == tenant:
            return True
        if name == "read" and kind == "read" and here:
            return True
    return False


class RequireScopes(SecurityBase):
    """`dependencies=[Depends(RequireScopes("write"))]`, or `Security(RequireScopes(), scopes=["write"])` (the
    scopes of every Security() above it count too, as FastAPI's SecurityScopes): the route runs only when the
    request's principal holds each scope (`scope_granted`); its value is the principal's scopes (request.scopes).
    A request without credentials gets 401 (`WWW-Authenticate: Bearer`); one whose credential lacks a scope, 403
    with `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."` (RFC 6750 §3.1). The engine checks the
    credential itself (App(auth="required" or "optional", tokens=..., jwt_...)); this only reads what it found. In
    the OpenAPI document it is an HTTP bearer scheme listing the scopes."""

    def __init__(self, *scopes: str, scheme_name: str | None = None, description: str | None = None) -> None:
        for scope in scopes:
            if not isinstance(scope, str) or not scope or any(c.isspace() or c in '"\\' for c in scope):
                raise ValueError(f"a scope is a non-empty string without spaces, quotes or backslashes: {scope!r}")
        self.required_scopes = list(scopes)
        self.model = HTTPBearerModel(description=description)
        self.scheme_name = scheme_name or type(self).__name__

    def __call__(self, request: Request, security_scopes: SecurityScopes) -> list[str]:
        needed = [*self.required_scopes, *(s for s in security_scopes.scopes if s not in self.required_scopes)]
        if request.principal is None:
            raise HTTPException(HTTP_401_UNAUTHORIZED, "Not authenticated", {"WWW-Authenticate": "Bearer"})
        held = request.scopes
        missing = [scope for scope in needed if not scope_granted(held, scope)]
        if missing:
            wanted = " ".join(needed)
            raise HTTPException(
                HTTP_403_FORBIDDEN,
                f"this needs the scope(s): {' '.join(missing)}",
                {"WWW-Authenticate": f'Bearer error="insufficient_scope", scope="{wanted}"'},
            )
        return held
