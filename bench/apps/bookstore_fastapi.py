"""The Bookstore's FastAPI + asyncpg peer (examples/bookstore/fastapi_app.py, unchanged) with the harness's runtime
report, written once its lifespan has opened the pool; uvicorn runs it as `bookstore_fastapi:app`."""
import asyncio
from contextlib import asynccontextmanager

import runtime_report

from examples.bookstore.fastapi_app import app

_opens_the_pool = app.router.lifespan_context


@asynccontextmanager
async def _lifespan(application):
    async with _opens_the_pool(application) as state:
        runtime_report.write(asyncio.get_running_loop())
        yield state


app.router.lifespan_context = _lifespan
