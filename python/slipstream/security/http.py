"""HTTP authentication schemes (RFC 7235) read from the Authorization header: HTTPBasic, HTTPBearer, HTTPDigest."""

from __future__ import annotations

import binascii
from base64 import b64decode

from pydantic import BaseModel

from ..exceptions import HTTPException
from ..requests import HTTPConnection
from ..status import HTTP_401_UNAUTHORIZED
from .base import SecurityBase
from .models import HTTPBase as HTTPBaseModel
from .models import HTTPBearer as HTTPBearerModel
from .utils import get_authorization_scheme_param


class HTTPBasicCredentials(BaseModel):
    """What HTTPBasic gives the handler: the decoded user name and password."""

    username: str
    password: str


class HTTPAuthorizationCredentials(BaseModel):
    """What HTTPBearer, HTTPDigest and HTTPBase give the handler: `Authorization: <scheme> <credentials>`."""

    scheme: str
    credentials: str


class HTTPBase(SecurityBase):
    """Any HTTP scheme: the value is the header's scheme and credentials, whatever the scheme."""

    model: HTTPBaseModel

    def __init__(self, *, scheme: str, scheme_name: str | None = None, description: str | None = None,
                 auto_error: bool = True) -> None:
        self.model = HTTPBaseModel(scheme=scheme, description=description)
        self.scheme_name = scheme_name or type(self).__name__
        self.auto_error = auto_error

    def make_authenticate_headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": self.model.scheme.title()}

    def make_not_authenticated_error(self) -> HTTPException:
        return HTTPException(status_code=HTTP_401_UNAUTHORIZED, detail="Not authenticated",
                             headers=self.make_authenticate_headers())

    def _credentials(self, request: HTTPConnection, expected: str | None) -> HTTPAuthorizationCredentials | None:
        """The header's credentials when present (and of scheme `expected`, any case, if given)."""
        authorization = request.headers.get("Authorization")
        scheme, credentials = get_authorization_scheme_param(authorization)
        if not (authorization and scheme and credentials) or (expected and scheme.lower() != expected):
            if self.auto_error:
                raise self.make_not_authenticated_error()
            return None
        return HTTPAuthorizationCredentials(scheme=scheme, credentials=credentials)

    async def __call__(self, request: HTTPConnection) -> HTTPAuthorizationCredentials | None:
        return self._credentials(request, None)


class HTTPBasic(HTTPBase):
    """HTTP Basic: the value is HTTPBasicCredentials; a header that does not decode to `user:password` is a 401
    even with auto_error=False (as in FastAPI). `realm` goes into the challenge."""

    def __init__(self, *, scheme_name: str | None = None, realm: str | None = None, description: str | None = None,
                 auto_error: bool = True) -> None:
        self.model = HTTPBaseModel(scheme="basic", description=description)
        self.scheme_name = scheme_name or type(self).__name__
        self.realm = realm
        self.auto_error = auto_error

    def make_authenticate_headers(self) -> dict[str, str]:
        return {"WWW-Authenticate": f'Basic realm="{self.realm}"' if self.realm else "Basic"}

    async def __call__(self, request: HTTPConnection) -> HTTPBasicCredentials | None:  # type: ignore[override]
        authorization = request.headers.get("Authorization")
        scheme, param = get_authorization_scheme_param(authorization)
        if not authorization or scheme.lower() != "basic":
            if self.auto_error:
                raise self.make_not_authenticated_error()
            return None
        try:
            data = b64decode(param).decode("ascii")
        except (ValueError, UnicodeDecodeError, binascii.Error) as e:
            raise self.make_not_authenticated_error() from e
        username, separator, password = data.partition(":")
        if not separator:
            raise self.make_not_authenticated_error()
        return HTTPBasicCredentials(username=username, password=password)


class HTTPBearer(HTTPBase):
    """`Authorization: Bearer <token>`: the value is HTTPAuthorizationCredentials."""

    def __init__(self, *, bearerFormat: str | None = None, scheme_name: str | None = None,
                 description: str | None = None, auto_error: bool = True) -> None:
        self.model = HTTPBearerModel(bearerFormat=bearerFormat, description=description)
        self.scheme_name = scheme_name or type(self).__name__
        self.auto_error = auto_error

    async def __call__(self, request: HTTPConnection) -> HTTPAuthorizationCredentials | None:
        return self._credentials(request, "bearer")


class HTTPDigest(HTTPBase):
    """`Authorization: Digest ...`: the value is HTTPAuthorizationCredentials (checking the digest is the app's)."""

    def __init__(self, *, scheme_name: str | None = None, description: str | None = None,
                 auto_error: bool = True) -> None:
        self.model = HTTPBaseModel(scheme="digest", description=description)
        self.scheme_name = scheme_name or type(self).__name__
        self.auto_error = auto_error

    async def __call__(self, request: HTTPConnection) -> HTTPAuthorizationCredentials | None:
        return self._credentials(request, "digest")
