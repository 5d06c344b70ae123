"""OpenAPI 3.1 for slipstream apps: the document FastAPI would generate, and offline Swagger UI / ReDoc pages."""

from .docs import get_redoc_html, get_swagger_ui_html, get_swagger_ui_oauth2_redirect_html
from .utils import get_openapi

__all__ = ["get_openapi", "get_redoc_html", "get_swagger_ui_html", "get_swagger_ui_oauth2_redirect_html"]
