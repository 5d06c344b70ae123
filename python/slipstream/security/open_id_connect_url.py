"""OpenIdConnect: an OpenID Connect discovery URL in the document; the value is the Authorization header."""

from __future__ import annotations

from ..exceptions import HTTPException
from ..requests import HTTPConnection
from ..status import HTTP_401_UNAUTHORIZED
from .base import SecurityBase
from .models import OpenIdConnect as OpenIdConnectModel


class OpenIdConnect(SecurityBase):
    """The dependency's value is the whole Authorization header (None when missing and not auto_error)."""

    model: OpenIdConnectModel

    def __init__(self, *, openIdConnectUrl: str, scheme_name: str | None = None,
                 description: str | None = None, auto_error: bool = True) -> None:
        self.model = OpenIdConnectModel(openIdConnectUrl=openIdConnectUrl, description=description)
        self.scheme_name = scheme_name or type(self).__name__
        self.auto_error = auto_error

    def make_not_authenticated_error(self) -> HTTPException:
        return HTTPException(status_code=HTTP_401_UNAUTHORIZED, detail="Not authenticated",
                             headers={"WWW-Authenticate": "Bearer"})

    async def __call__(self, request: HTTPConnection) -> str | None:
        authorization = request.headers.get("Authorization")
        if not authorization:
            if self.auto_error:
                raise self.make_not_authenticated_error()
            return None
        return authorization
