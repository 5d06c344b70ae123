"""The Bookstore under FastAPI + asyncpg: the peer of app.py (same SQL, same JSON bytes), for bench/.
Run: BOOKSTORE_DATABASE_URL=postgresql://... uvicorn examples.bookstore.fastapi_app:app"""
from __future__ import annotations

import json
import os
from contextlib import asynccontextmanager

import asyncpg
from fastapi import FastAPI, HTTPException, Query, Request, Response

from . import shared


@asynccontextmanager
async def lifespan(app: FastAPI):
    app.state.pool = await asyncpg.create_pool(os.environ["BOOKSTORE_DATABASE_URL"], min_size=1, max_size=10)
    yield
    await app.state.pool.close()


app = FastAPI(lifespan=lifespan)


@app.get("/health")
async def health() -> dict[str, str]:
    return {"status": "ok"}


@app.get("/api/v1/books/stats", response_model=shared.Stats)
async def stats(request: Request) -> shared.Stats:
    row = await request.app.state.pool.fetchrow(shared.STATS_SQL)
    return shared.Stats(**dict(row))


@app.get("/api/v1/books/", response_model=shared.BookPage)
async def list_books(request: Request, page: int = Query(1, ge=1, le=1000),
                     search: str | None = Query(None, max_length=100)) -> shared.BookPage:
    pool = request.app.state.pool
    offset = (page - 1) * shared.PAGE_SIZE
    if search:
        total = await pool.fetchval(shared.SEARCH_COUNT_SQL, search)
        rows = await pool.fetch(shared.SEARCH_PAGE_SQL, search, offset)
    else:
        total = await pool.fetchval(shared.COUNT_SQL)
        rows = await pool.fetch(shared.PAGE_SQL, offset)
    return shared.BookPage(total=total, page=page, page_size=shared.PAGE_SIZE,
                           items=[shared.BookSummary(**dict(r)) for r in rows])


@app.get("/api/v1/books/{book_id}")
async def book(request: Request, book_id: int) -> Response:
    row = await request.app.state.pool.fetchrow(shared.BOOK_SQL, book_id)
    if row is None:
        raise HTTPException(404, "Book not found")
    fields = dict(row)
    fields["author"] = json.loads(fields["author"])
    fields["category"] = json.loads(fields["category"])
    body = shared.BookDetail(**fields).model_dump_json().encode()
    etag = shared.etag_of(body)
    headers = {"ETag": etag, "Cache-Control": "public, max-age=60"}
    if shared.etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


@app.get("/api/v1/reviews/", response_model=shared.ReviewPage)
async def reviews(request: Request, cursor: str | None = Query(None, max_length=64)) -> shared.ReviewPage:
    after = 0 if cursor is None else shared.open_cursor(cursor)
    if after is None:
        raise HTTPException(400, "invalid cursor")
    rows = await request.app.state.pool.fetch(shared.REVIEWS_SQL, after)
    items = [shared.Review(**dict(r)) for r in rows[:shared.PAGE_SIZE]]
    next_cursor = shared.sign_cursor(items[-1].id) if len(rows) > shared.PAGE_SIZE else None
    return shared.ReviewPage(items=items, next_cursor=next_cursor)
