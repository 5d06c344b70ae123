"""The Bookstore as a Slipstream Python app: the same SQL, models and bytes as fastapi_app.py, on slipstream.Database.
Run: BOOKSTORE_DATABASE_URL=postgresql://... python -m slipstream run examples.bookstore.app:app"""
from __future__ import annotations

import json
import os
from typing import Annotated

from slipstream import App, Database, Depends, HTTPException, Query, Request, Response, get_database

from . import shared

DB = Annotated[Database, Depends(get_database)]

app = App(database=Database(os.environ.get("BOOKSTORE_DATABASE_URL", "postgresql://localhost/bookstore"),
                            min_size=1, max_size=10))


@app.get("/api/v1/books/stats", response_model=shared.Stats)
async def stats(db: DB) -> shared.Stats:
    return shared.Stats(**dict(await db.fetchrow(shared.STATS_SQL)))


@app.get("/api/v1/books/", response_model=shared.BookPage)
async def list_books(db: DB, page: int = Query(1, ge=1, le=1000),
                     search: str | None = Query(None, max_length=100)) -> shared.BookPage:
    offset = (page - 1) * shared.PAGE_SIZE
    if search:
        total = await db.fetchval(shared.SEARCH_COUNT_SQL, search)
        rows = await db.fetch(shared.SEARCH_PAGE_SQL, search, offset)
    else:
        total = await db.fetchval(shared.COUNT_SQL)
        rows = await db.fetch(shared.PAGE_SQL, offset)
    return shared.BookPage(total=total, page=page, page_size=shared.PAGE_SIZE,
                           items=[shared.BookSummary(**dict(r)) for r in rows])


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


@app.get("/api/v1/books/{book_id}")
async def book(book_id: int, request: Request, db: DB) -> Response:
    row = await db.fetchrow(shared.BOOK_SQL, book_id)
    if row is None:
        raise HTTPException(404, "Book not found")
    fields = dict(row)
    fields["author"] = _json(fields["author"])
    fields["category"] = _json(fields["category"])
    body = shared.BookDetail(**fields).model_dump_json().encode()
    etag = shared.etag_of(body)
    headers = {"ETag": etag, "Cache-Control": "public, max-age=60"}
    if shared.etag_matches(request.headers.get("if-none-match"), etag):
        return Response(status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


@app.get("/api/v1/reviews/", response_model=shared.ReviewPage)
async def reviews(db: DB, cursor: str | None = Query(None, max_length=64)) -> shared.ReviewPage:
    after = 0 if cursor is None else shared.open_cursor(cursor)
    if after is None:
        raise HTTPException(400, "invalid cursor")
    rows = await db.fetch(shared.REVIEWS_SQL, after)
    items = [shared.Review(**dict(r)) for r in rows[:shared.PAGE_SIZE]]
    next_cursor = shared.sign_cursor(items[-1].id) if len(rows) > shared.PAGE_SIZE else None
    return shared.ReviewPage(items=items, next_cursor=next_cursor)
