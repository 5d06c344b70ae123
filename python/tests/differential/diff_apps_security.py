"""The security apps of the differential suite: every class of `fastapi.security` (and `slipstream.security`),
written once against FastAPI's API, with auto_error on ("security") and off ("security_optional")."""

import importlib
import secrets
from types import ModuleType
from typing import Annotated, Any

from pydantic import BaseModel

# token -> (user, granted scopes): the apps' fake token store.
TOKENS = {"alice-token": ("alice", ["me", "items"]), "bob-token": ("bob", ["me"])}


class User(BaseModel):
    username: str
    scopes: list[str]


def _security(fw: ModuleType) -> ModuleType:
    return importlib.import_module(f"{fw.__name__}.security")


def _new_app(fw: ModuleType, **kwargs: Any) -> Any:
    return fw.FastAPI(**kwargs) if hasattr(fw, "FastAPI") else fw.App(**kwargs)


def build_security(fw: ModuleType) -> Any:
    sec = _security(fw)
    app = _new_app(fw, title="Secure", version="1", swagger_ui_init_oauth={"clientId": "docs", "usePkce": True})
    Depends, Security, HTTPException = fw.Depends, fw.Security, fw.HTTPException
    oauth2 = sec.OAuth2PasswordBearer(tokenUrl="token", scopes={"me": "Read yourself", "items": "Read items"},
                                      description="Password flow", refreshUrl="refresh")

    def current_user(security_scopes: sec.SecurityScopes, token: Annotated[str, Depends(oauth2)]) -> User:
        challenge = f'Bearer scope="{security_scopes.scope_str}"' if security_scopes.scopes else "Bearer"
        if token not in TOKENS:
            raise HTTPException(401, "Could not validate credentials", headers={"WWW-Authenticate": challenge})
        name, granted = TOKENS[token]
        for scope in security_scopes.scopes:
            if scope not in granted:
                raise HTTPException(401, "Not enough permissions", headers={"WWW-Authenticate": challenge})
        return User(username=name, scopes=security_scopes.scopes)

    def active_user(user: Annotated[User, Security(current_user, scopes=["me"])]) -> User:
        return user

    @app.post("/token")
    def login(form: Annotated[sec.OAuth2PasswordRequestForm, Depends()]):
        return {"access_token": f"{form.username}-token", "token_type": "bearer", "password": form.password,
                "scopes": form.scopes, "grant_type": form.grant_type, "client_id": form.client_id,
                "client_secret": form.client_secret}

    @app.post("/token-strict")
    def login_strict(form: Annotated[sec.OAuth2PasswordRequestFormStrict, Depends()]):
        return {"username": form.username, "grant_type": form.grant_type, "scopes": form.scopes}

    @app.get("/users/me")
    def me(user: Annotated[User, Security(current_user, scopes=["me"])]):
        return user

    @app.get("/users/me/items")
    def my_items(user: Annotated[User, Security(active_user, scopes=["items"])]):
        return {"owner": user.username, "scopes": user.scopes}

    @app.get("/status", dependencies=[Security(current_user, scopes=["admin"])])
    def status():
        return {"ok": True}

    @app.get("/token-only")
    def token_only(token: Annotated[str, Depends(oauth2)]):
        return {"token": token}

    @app.get("/items/{item_id}")
    def item(item_id: int, token: Annotated[str, Depends(oauth2)], q: int = 0):
        return {"item_id": item_id, "token": token, "q": q}

    code = sec.OAuth2AuthorizationCodeBearer(authorizationUrl="https://auth.example/authorize",
                                             tokenUrl="https://auth.example/token", scopes={"read": "Read"})

    @app.get("/code")
    def code_flow(token: Annotated[str, Security(code, scopes=["read"])]):
        return {"token": token}

    plain = sec.OAuth2(flows={"clientCredentials": {"tokenUrl": "cc-token", "scopes": {"svc": "Service"}}},
                       scheme_name="Machines")

    @app.get("/oauth2")
    def oauth2_plain(authorization: Annotated[str, Depends(plain)]):
        return {"authorization": authorization}

    models = importlib.import_module(f"{fw.__name__}.openapi.models")

    class CookieBearer(sec.OAuth2):
        """The docs' recipe: a bearer token kept in a cookie."""

        def __init__(self, tokenUrl: str) -> None:
            super().__init__(flows=models.OAuthFlows(password={"tokenUrl": tokenUrl, "scopes": {}}))

        async def __call__(self, request: fw.Request) -> str | None:
            scheme, _, param = request.cookies.get("access_token", "").partition(" ")
            if scheme.lower() != "bearer":
                raise HTTPException(401, "Not authenticated", headers={"WWW-Authenticate": "Bearer"})
            return param

    @app.get("/cookie-bearer")
    def cookie_bearer(token: Annotated[str, Depends(CookieBearer(tokenUrl="token"))]):
        return {"token": token}

    basic = sec.HTTPBasic(realm="shop", description="Basic auth")
    basic_plain = sec.HTTPBasic(scheme_name="PlainBasic")

    @app.get("/basic")
    def basic_route(credentials: Annotated[sec.HTTPBasicCredentials, Depends(basic)]):
        return credentials

    @app.get("/basic-checked")
    def basic_checked(credentials: Annotated[sec.HTTPBasicCredentials, Depends(basic_plain)]):
        good_user = secrets.compare_digest(credentials.username.encode(), b"alice")
        good_password = secrets.compare_digest(credentials.password.encode(), b"s3cret")
        if not (good_user and good_password):
            raise HTTPException(401, "Incorrect username or password", headers={"WWW-Authenticate": "Basic"})
        return {"username": credentials.username}

    bearer = sec.HTTPBearer(bearerFormat="JWT", description="A JWT")

    @app.get("/bearer")
    def bearer_route(credentials: Annotated[sec.HTTPAuthorizationCredentials, Depends(bearer)]):
        return credentials

    digest = sec.HTTPDigest()

    @app.get("/digest")
    def digest_route(credentials: Annotated[sec.HTTPAuthorizationCredentials, Depends(digest)]):
        return credentials

    custom = importlib.import_module(f"{fw.__name__}.security.http").HTTPBase(scheme="custom")

    @app.get("/http-base")
    def http_base(credentials: Annotated[sec.HTTPAuthorizationCredentials, Depends(custom)]):
        return credentials

    header_key = sec.APIKeyHeader(name="X-API-Key", description="A key")
    query_key = sec.APIKeyQuery(name="api_key")
    cookie_key = sec.APIKeyCookie(name="session", scheme_name="SessionCookie")

    @app.get("/key/header")
    def key_header(key: Annotated[str, Depends(header_key)]):
        return {"key": key}

    @app.get("/key/query")
    def key_query(key: Annotated[str, Depends(query_key)]):
        return {"key": key}

    @app.get("/key/cookie")
    def key_cookie(key: Annotated[str, Depends(cookie_key)]):
        return {"key": key}

    @app.get("/key/all")
    def key_all(a: Annotated[str, Depends(header_key)], b: Annotated[str, Depends(query_key)],
                c: Annotated[str, Depends(cookie_key)]):
        return [a, b, c]

    oidc = sec.OpenIdConnect(openIdConnectUrl="https://auth.example/.well-known/openid-configuration")

    @app.get("/oidc")
    def oidc_route(authorization: Annotated[str, Depends(oidc)]):
        return {"authorization": authorization}

    # router-level and include_router-level security, and one scheme required twice with different scopes
    router = fw.APIRouter(prefix="/admin", dependencies=[Depends(bearer)])

    @router.get("/stats")
    def stats(user: Annotated[User, Security(current_user, scopes=["me"])], token: Annotated[str, Depends(oauth2)]):
        return {"user": user.username, "token": token}

    app.include_router(router, dependencies=[Security(oauth2, scopes=["items"])])
    return app


def build_security_optional(fw: ModuleType) -> Any:
    """Every class with auto_error=False: a missing credential is None, and the handler decides."""
    sec = _security(fw)
    app = _new_app(fw, title="Optional", version="2")
    Depends = fw.Depends
    schemes = {
        "password": sec.OAuth2PasswordBearer(tokenUrl="token", auto_error=False),
        "code": sec.OAuth2AuthorizationCodeBearer(authorizationUrl="a", tokenUrl="t", auto_error=False),
        "oauth2": sec.OAuth2(auto_error=False),
        "basic": sec.HTTPBasic(auto_error=False),
        "bearer": sec.HTTPBearer(auto_error=False),
        "digest": sec.HTTPDigest(auto_error=False),
        "header": sec.APIKeyHeader(name="key", auto_error=False),
        "query": sec.APIKeyQuery(name="key", auto_error=False),
        "cookie": sec.APIKeyCookie(name="key", auto_error=False),
        "oidc": sec.OpenIdConnect(openIdConnectUrl="https://auth.example/oidc", auto_error=False),
    }
    for name, scheme in schemes.items():
        def handler(value: Annotated[Any, Depends(scheme)]):
            return {"value": value}

        app.get(f"/{name}", name=name)(handler)

    header, bearer = schemes["header"], schemes["bearer"]

    @app.get("/either")
    def either(key: Annotated[str | None, Depends(header)],
               token: Annotated[sec.HTTPAuthorizationCredentials | None, Depends(bearer)]):
        if key is None and token is None:
            raise fw.HTTPException(403, "Not authenticated")
        return {"key": key, "token": token.credentials if token else None}

    return app


def build_security_middleware(fw: ModuleType) -> Any:
    """The "security" app behind an HTTP middleware: the 401s and 422s pass through it."""
    app = build_security(fw)

    @app.middleware("http")
    async def mark(request, call_next):
        response = await call_next(request)
        response.headers["x-mw"] = "1"
        return response

    return app
