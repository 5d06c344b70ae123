"""OAuth2: the OAuth2 base scheme, the password and authorization-code bearers, the password request forms."""

from __future__ import annotations

from typing import Annotated, Any

from ..dependencies.params import SecurityScopes
from ..exceptions import HTTPException
from ..forms import Form
from ..requests import HTTPConnection
from ..status import HTTP_401_UNAUTHORIZED
from .base import SecurityBase
from .models import OAuth2 as OAuth2Model
from .models import OAuthFlowAuthorizationCode, OAuthFlowPassword, flows_model
from .models import OAuthFlows as OAuthFlowsModel
from .utils import get_authorization_scheme_param


class OAuth2PasswordRequestForm:
    """The form of OAuth2's password flow (`Depends()` on a token route): `username`, `password`, `scope` (split
    into `scopes`), optional `grant_type` (when sent, "password"), `client_id`, `client_secret`."""

    def __init__(
        self,
        *,
        grant_type: Annotated[str | None, Form(pattern="^password$")] = None,
        username: Annotated[str, Form()],
        password: Annotated[str, Form(json_schema_extra={"format": "password"})],
        scope: Annotated[str, Form()] = "",
        client_id: Annotated[str | None, Form()] = None,
        client_secret: Annotated[str | None, Form(json_schema_extra={"format": "password"})] = None,
    ) -> None:
        self.grant_type = grant_type
        self.username = username
        self.password = password
        self.scopes = scope.split()
        self.client_id = client_id
        self.client_secret = client_secret


class OAuth2PasswordRequestFormStrict(OAuth2PasswordRequestForm):
    """OAuth2PasswordRequestForm with `grant_type` required (the specification's rule)."""

    def __init__(
        self,
        grant_type: Annotated[str, Form(pattern="^password$")],
        username: Annotated[str, Form()],
        password: Annotated[str, Form()],
        scope: Annotated[str, Form()] = "",
        client_id: Annotated[str | None, Form()] = None,
        client_secret: Annotated[str | None, Form()] = None,
    ) -> None:
        super().__init__(grant_type=grant_type, username=username, password=password, scope=scope,
                         client_id=client_id, client_secret=client_secret)


class OAuth2(SecurityBase):
    """An OAuth2 scheme with the given flows; the value is the whole Authorization header. Subclass it (or use
    the bearers below) to read the token another way, e.g. from a cookie."""

    model: OAuth2Model

    def __init__(self, *, flows: OAuthFlowsModel | dict[str, dict[str, Any]] | None = None,
                 scheme_name: str | None = None, description: str | None = None, auto_error: bool = True) -> None:
        self.model = OAuth2Model(flows=flows_model(flows if flows is not None else OAuthFlowsModel()),
                                 description=description)
        self.scheme_name = scheme_name or type(self).__name__
        self.auto_error = auto_error

    def make_not_authenticated_error(self) -> HTTPException:
        """401 "Not authenticated" with `WWW-Authenticate: Bearer`; override to send another challenge."""
        return HTTPException(status_code=HTTP_401_UNAUTHORIZED, detail="Not authenticated",
                             headers={"WWW-Authenticate": "Bearer"})

    async def __call__(self, request: HTTPConnection) -> str | None:
        authorization = request.headers.get("Authorization")
        if not authorization:
            if self.auto_error:
                raise self.make_not_authenticated_error()
            return None
        return authorization

    def _bearer_token(self, request: HTTPConnection) -> str | None:
        authorization = request.headers.get("Authorization")
        scheme, param = get_authorization_scheme_param(authorization)
        if not authorization or scheme.lower() != "bearer":
            if self.auto_error:
                raise self.make_not_authenticated_error()
            return None
        return param


class OAuth2PasswordBearer(OAuth2):
    """The password flow (token from `tokenUrl`); the value is the bearer token of `Authorization: Bearer ...`."""

    def __init__(self, tokenUrl: str, scheme_name: str | None = None,
                 scopes: dict[str, str] | None = None, description: str | None = None, auto_error: bool = True,
                 refreshUrl: str | None = None) -> None:
        flows = OAuthFlowsModel(password=OAuthFlowPassword(tokenUrl=tokenUrl, refreshUrl=refreshUrl,
                                                           scopes=scopes or {}))
        super().__init__(flows=flows, scheme_name=scheme_name, description=description, auto_error=auto_error)

    async def __call__(self, request: HTTPConnection) -> str | None:
        return self._bearer_token(request)


class OAuth2AuthorizationCodeBearer(OAuth2):
    """The authorization-code flow (`authorizationUrl`, `tokenUrl`); the value is the bearer token."""

    def __init__(self, authorizationUrl: str, tokenUrl: str, refreshUrl: str | None = None,
                 scheme_name: str | None = None, scopes: dict[str, str] | None = None,
                 description: str | None = None, auto_error: bool = True) -> None:
        flows = OAuthFlowsModel(authorizationCode=OAuthFlowAuthorizationCode(
            authorizationUrl=authorizationUrl, tokenUrl=tokenUrl, refreshUrl=refreshUrl, scopes=scopes or {}))
        super().__init__(flows=flows, scheme_name=scheme_name, description=description, auto_error=auto_error)

    async def __call__(self, request: HTTPConnection) -> str | None:
        return self._bearer_token(request)


__all__ = ["OAuth2", "OAuth2AuthorizationCodeBearer", "OAuth2PasswordBearer", "OAuth2PasswordRequestForm",
           "OAuth2PasswordRequestFormStrict", "SecurityScopes"]
