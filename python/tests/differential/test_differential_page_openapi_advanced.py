"""FastAPI vs Slipstream on the advanced pages "Additional Responses in OpenAPI", "OpenAPI Callbacks", "OpenAPI
Webhooks" and "Path Operation Advanced Configuration": `responses=` with a `model`, with a `description` only, with
other media types and examples, merged with `response_model` and with the router's and app's; predefined responses
combined with `**`; `callbacks=` from an APIRouter with a runtime-expression path; `@app.webhooks.post(...)`;
`operation_id`, ids from the function names (`route.operation_id = route.name`), `generate_unique_id_function` on
the app and on a router, `include_in_schema=False`, the docstring cut at `\\f`, `openapi_extra` (extensions and a
request body the handler reads itself), the App's `deprecated=`, `include_in_schema=` and `exception_handlers=`;
the answers and the OpenAPI documents.

Rows join the session's match rate (diff_support.record) like test_differential.py's.
"""

# No `from __future__ import annotations`: the handlers' annotations name each framework's classes, locals.
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

fastapi = pytest.importorskip("fastapi")

from pydantic import BaseModel, HttpUrl

from .diff_support import client_pairs, new_app, page_row, same_answer_test


class Item(BaseModel):
    id: str
    value: str


class Message(BaseModel):
    message: str


class Invoice(BaseModel):
    id: str
    title: str | None = None
    customer: str
    total: float


class InvoiceEvent(BaseModel):
    description: str
    paid: bool


class InvoiceEventReceived(BaseModel):
    ok: bool


class Subscription(BaseModel):
    username: str
    monthly_fee: float


RESPONSES = {
    404: {"description": "Item not found"},
    302: {"description": "The item was moved"},
    403: {"description": "Not enough privileges"},
}


def responses_app(fw: Any) -> Any:
    app = new_app(fw, responses={418: {"description": "A teapot, everywhere"}})
    responses = fw.responses

    @app.get("/items/{item_id}", response_model=Item, responses={404: {"model": Message}})
    async def read_item(item_id: str) -> Any:
        if item_id == "foo":
            return {"id": "foo", "value": "there goes my hero"}
        return responses.JSONResponse(status_code=404, content={"message": "Item not found"})

    @app.get(
        "/images/{item_id}",
        response_model=Item,
        responses={
            200: {"content": {"image/png": {}}, "description": "Return the JSON item or an image."},
            404: {"model": Message, "description": "The item was not found"},
            422: {"description": "Bad identifier"},
        },
    )
    async def read_image(item_id: str, img: bool | None = None) -> Any:
        if img:
            return responses.Response(content=b"\x89PNG fake", media_type="image/png")
        return {"id": "foo", "value": "there goes my hero"}

    @app.get(
        "/combined/{item_id}",
        response_model=Item,
        responses={**RESPONSES, 200: {"content": {"image/png": {"example": "bytes"}}}},
    )
    async def read_combined(item_id: str) -> Any:
        return {"id": item_id, "value": "combined"}

    router = fw.APIRouter(prefix="/router", responses={409: {"description": "Conflict", "model": Message}})

    @router.get("/{item_id}", responses={410: {"description": "Gone"}})
    async def router_item(item_id: str) -> Any:
        return {"item_id": item_id}

    app.include_router(router, responses={401: {"description": "Unauthorized"}})
    return app


def callbacks_app(fw: Any) -> Any:
    app = new_app(fw)
    callback_router = fw.APIRouter()

    @callback_router.post("{$callback_url}/invoices/{$request.body.id}", response_model=InvoiceEventReceived)
    def invoice_notification(body: InvoiceEvent) -> Any:
        pass

    @app.post("/invoices/", callbacks=callback_router.routes)
    def create_invoice(invoice: Invoice, callback_url: HttpUrl | None = None) -> Any:
        """Create an invoice; the external API is called back when it is paid."""
        return {"msg": "Invoice received", "callback_url": str(callback_url) if callback_url else None}

    receipts = fw.APIRouter()

    @receipts.post("{$request.query.receipt_url}", response_model=InvoiceEventReceived)
    def receipt_notification(body: Message) -> Any:
        pass

    audits = fw.APIRouter()

    @audits.put("{$request.body.customer}/audit", status_code=204)
    def audit_notification(body: InvoiceEvent) -> None:
        pass

    payments = fw.APIRouter(prefix="/payments", callbacks=receipts.routes)

    @payments.post("/")
    def create_payment(invoice: Invoice, receipt_url: str | None = None) -> Any:
        return {"paid": invoice.id}

    app.include_router(payments, callbacks=audits.routes)

    @app.webhooks.post("new-subscription")
    def new_subscription(body: Subscription) -> None:
        """When a new user subscribes, this request is sent to the URL the user registered."""

    return app


def custom_id(route: Any) -> str:
    return f"{route.tags[0]}-{route.name}" if route.tags else route.name


def operations_app(fw: Any) -> Any:
    app = new_app(fw, generate_unique_id_function=custom_id)
    users = fw.APIRouter(generate_unique_id_function=lambda route: f"users_{route.name}")

    @app.get("/items/", operation_id="some_specific_id_you_define", tags=["items"])
    async def read_items() -> Any:
        return [{"item_id": "Foo"}]

    @app.get("/tagged/", tags=["items"])
    async def read_tagged() -> Any:
        return []

    @app.get("/hidden/", include_in_schema=False)
    async def read_hidden() -> Any:
        return {"hidden": True}

    @app.post("/described/", response_model=Item, summary="Create an item")
    async def create_item(item: Item) -> Any:
        """
        Create an item with all the information:

        - **id**: each item must have one
        - **value**: some text
        \f
        :param item: User input.
        """
        return item

    @app.get("/extended/", openapi_extra={"x-aperture-labs-portal": "blue"})
    async def read_extended() -> Any:
        return {"extended": True}

    @app.post(
        "/raw/",
        openapi_extra={
            "requestBody": {
                "content": {
                    "application/json": {
                        "schema": {"required": ["name"], "type": "object", "properties": {"name": {"type": "string"}}}
                    }
                },
                "required": True,
            }
        },
    )
    async def create_raw(request: fw.Request) -> Any:
        raw = await request.body()
        try:
            data = json.loads(raw)
        except ValueError:
            raise fw.HTTPException(status_code=400, detail="Invalid JSON") from None
        return {"size": len(raw), "name": data.get("name")}

    @users.get("/users/")
    async def list_users() -> Any:
        return []

    app.include_router(users)

    @app.get("/by-name/")
    async def by_name() -> Any:
        return {"by": "name"}

    for route in app.routes:  # FastAPI's loop over its APIRoutes
        if isinstance(route, fw.routing.APIRoute) and route.path == "/by-name/":
            route.operation_id = route.name
    return app


class Teapot(Exception):
    pass


def appwide_app(fw: Any) -> Any:
    async def teapot_handler(request: Any, exc: Teapot) -> Any:
        return fw.responses.JSONResponse({"detail": "short and stout"}, status_code=418)

    app = new_app(fw, deprecated=True, exception_handlers={Teapot: teapot_handler, 404: teapot_handler})

    @app.get("/old/")
    async def read_old() -> Any:
        raise Teapot()

    return app


def hidden_app(fw: Any) -> Any:
    app = new_app(fw, include_in_schema=False)

    @app.get("/secret/")
    async def read_secret() -> Any:
        return {"secret": True}

    return app


@pytest.fixture(scope="module")
def pair() -> Iterator[Callable[[str], tuple[Any, Any]]]:
    yield from client_pairs(
        {
            "responses": responses_app,
            "callbacks": callbacks_app,
            "operations": operations_app,
            "appwide": appwide_app,
            "hidden": hidden_app,
        }
    )


INVOICE = {"id": "inv1", "customer": "Ann", "total": 9.5}
ROWS = [
    page_row("responses", "GET", "/items/foo"),
    page_row("responses", "GET", "/items/bar"),
    page_row("responses", "GET", "/images/foo"),
    page_row("responses", "GET", "/images/foo?img=1"),
    page_row("responses", "GET", "/combined/x"),
    page_row("responses", "GET", "/router/x"),
    page_row("responses", "GET", "/openapi.json"),
    page_row("callbacks", "POST", "/invoices/?callback_url=https://example.com/cb", json=INVOICE),
    page_row("callbacks", "POST", "/invoices/?callback_url=nowhere", json=INVOICE),
    page_row("callbacks", "POST", "/invoices/", json={"id": "x"}),
    page_row("callbacks", "POST", "/payments/", json=INVOICE),
    page_row("callbacks", "GET", "/openapi.json"),
    page_row("operations", "GET", "/items/"),
    page_row("operations", "GET", "/hidden/"),
    page_row("operations", "POST", "/described/", json={"id": "a", "value": "b"}),
    page_row("operations", "GET", "/extended/"),
    page_row("operations", "POST", "/raw/", json={"name": "Ann", "more": [1, 2]}),
    page_row("operations", "POST", "/raw/", content=b"not json", headers={"content-type": "application/json"}),
    page_row("operations", "GET", "/users/"),
    page_row("operations", "GET", "/openapi.json"),
    page_row("appwide", "GET", "/old/"),
    page_row("appwide", "GET", "/nowhere"),
    page_row("hidden", "GET", "/secret/"),
    page_row("hidden", "GET", "/openapi.json"),
    page_row("appwide", "GET", "/openapi.json"),
]


test_same_answer = same_answer_test(ROWS)
