"""FastAPI's security classes (`fastapi.security`): dependencies that read credentials from the request, answer
FastAPI's 401s, and describe themselves in the OpenAPI document (components.securitySchemes, operation security).
One module per family, as in FastAPI: api_key, http, oauth2, open_id_connect_url; and scopes (RequireScopes: the
scopes of the engine's credentials)."""

from .api_key import APIKeyCookie, APIKeyHeader, APIKeyQuery
from .http import HTTPAuthorizationCredentials, HTTPBasic, HTTPBasicCredentials, HTTPBearer, HTTPDigest
from .oauth2 import (
    OAuth2,
    OAuth2AuthorizationCodeBearer,
    OAuth2PasswordBearer,
    OAuth2PasswordRequestForm,
    OAuth2PasswordRequestFormStrict,
    SecurityScopes,
)
from .open_id_connect_url import OpenIdConnect
from .scopes import RequireScopes, scope_granted

__all__ = [
    "APIKeyCookie",
    "APIKeyHeader",
    "APIKeyQuery",
    "HTTPAuthorizationCredentials",
    "HTTPBasic",
    "HTTPBasicCredentials",
    "HTTPBearer",
    "HTTPDigest",
    "OAuth2",
    "OAuth2AuthorizationCodeBearer",
    "OAuth2PasswordBearer",
    "OAuth2PasswordRequestForm",
    "OAuth2PasswordRequestFormStrict",
    "OpenIdConnect",
    "RequireScopes",
    "SecurityScopes",
    "scope_granted",
]
