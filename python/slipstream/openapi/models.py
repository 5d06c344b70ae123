"""FastAPI's `fastapi.openapi.models` names for the Security Scheme objects (defined in slipstream.security.models),
so `from slipstream.openapi.models import OAuthFlows as OAuthFlowsModel` works in custom security classes."""

from ..security.models import (
    APIKey,
    APIKeyIn,
    HTTPBase,
    HTTPBearer,
    OAuth2,
    OAuthFlow,
    OAuthFlowAuthorizationCode,
    OAuthFlowClientCredentials,
    OAuthFlowImplicit,
    OAuthFlowPassword,
    OAuthFlows,
    OpenIdConnect,
    SecurityBase,
    SecurityScheme,
    SecuritySchemeType,
)

__all__ = [
    "APIKey",
    "APIKeyIn",
    "HTTPBase",
    "HTTPBearer",
    "OAuth2",
    "OAuthFlow",
    "OAuthFlowAuthorizationCode",
    "OAuthFlowClientCredentials",
    "OAuthFlowImplicit",
    "OAuthFlowPassword",
    "OAuthFlows",
    "OpenIdConnect",
    "SecurityBase",
    "SecurityScheme",
    "SecuritySchemeType",
]
