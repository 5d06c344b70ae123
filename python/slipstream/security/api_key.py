"""API keys in a query parameter, a header or a cookie: APIKeyQuery, APIKeyHeader, APIKeyCookie."""

from __future__ import annotations

from ..exceptions import HTTPException
from ..requests import HTTPConnection
from ..status import HTTP_401_UNAUTHORIZED
from .base import SecurityBase
from .models import APIKey, APIKeyIn


class APIKeyBase(SecurityBase):
    """The key's location and name; the dependency's value is the key (None when missing and not auto_error)."""

    model: APIKey

    def __init__(self, location: APIKeyIn, name: str, description: str | None, scheme_name: str | None,
                 auto_error: bool) -> None:
        self.auto_error = auto_error
        self.model = APIKey(**{"in": location}, name=name, description=description)
        self.scheme_name = scheme_name or type(self).__name__

    def make_not_authenticated_error(self) -> HTTPException:
        """401 with the challenge `APIKey` (a 401 must carry a WWW-Authenticate field; API keys have no standard
        one), as FastAPI answers."""
        return HTTPException(status_code=HTTP_401_UNAUTHORIZED, detail="Not authenticated",
                             headers={"WWW-Authenticate": "APIKey"})

    def check_api_key(self, api_key: str | None) -> str | None:
        if not api_key:
            if self.auto_error:
                raise self.make_not_authenticated_error()
            return None
        return api_key


class APIKeyQuery(APIKeyBase):
    """The key in the query parameter `name`: `api_key: str = Depends(APIKeyQuery(name="api_key"))`."""

    def __init__(self, *, name: str, scheme_name: str | None = None, description: str | None = None,
                 auto_error: bool = True) -> None:
        super().__init__(APIKeyIn.query, name, description, scheme_name, auto_error)

    async def __call__(self, request: HTTPConnection) -> str | None:
        return self.check_api_key(request.query_params.get(self.model.name))


class APIKeyHeader(APIKeyBase):
    """The key in the header `name` (any case)."""

    def __init__(self, *, name: str, scheme_name: str | None = None, description: str | None = None,
                 auto_error: bool = True) -> None:
        super().__init__(APIKeyIn.header, name, description, scheme_name, auto_error)

    async def __call__(self, request: HTTPConnection) -> str | None:
        return self.check_api_key(request.headers.get(self.model.name))


class APIKeyCookie(APIKeyBase):
    """The key in the cookie `name`."""

    def __init__(self, *, name: str, scheme_name: str | None = None, description: str | None = None,
                 auto_error: bool = True) -> None:
        super().__init__(APIKeyIn.cookie, name, description, scheme_name, auto_error)

    async def __call__(self, request: HTTPConnection) -> str | None:
        return self.check_api_key(request.cookies.get(self.model.name))
