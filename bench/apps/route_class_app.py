"""The route of FastAPI's "Custom Request and APIRoute class" timing example, for bench/route_class.py:
GET /items/{item_id}?q= through an APIRoute subclass that wraps the handler and adds a header (BENCH_ROUTE_CLASS=1),
or as an ordinary route (BENCH_ROUTE_CLASS=0); BENCH_FRAMEWORK picks fastapi or slipstream."""

import os
import time
from typing import Any

if os.environ.get("BENCH_FRAMEWORK", "slipstream") == "fastapi":
    import fastapi as fw
    from fastapi.routing import APIRoute

    app: Any = fw.FastAPI()
else:
    import slipstream as fw
    from slipstream.routing import APIRoute

    app = fw.App()


class TimedRoute(APIRoute):
    def get_route_handler(self) -> Any:
        original_route_handler = super().get_route_handler()

        async def custom_route_handler(request: Any) -> Any:
            before = time.perf_counter()
            response = await original_route_handler(request)
            response.headers["X-Response-Time"] = f"{time.perf_counter() - before:.6f}"
            return response

        return custom_route_handler


router = fw.APIRouter(route_class=TimedRoute) if os.environ.get("BENCH_ROUTE_CLASS", "1") == "1" else fw.APIRouter()


@router.get("/items/{item_id}")
async def read_item(item_id: int, q: str | None = None) -> Any:
    return {"item_id": item_id, "q": q}


app.include_router(router)
