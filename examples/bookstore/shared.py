"""What both Python Bookstore apps share (the Slipstream one and the FastAPI + asyncpg peer): the response models,
the SQL (the same statements as bookstore.cpp), review cursors and ETags. Framework-free."""
from __future__ import annotations

import datetime
import hashlib
import hmac
import os
from decimal import Decimal

from pydantic import BaseModel

PAGE_SIZE = 10
CURSOR_SECRET = (os.environ.get("BOOKSTORE_CURSOR_SECRET") or "bookstore-demo").encode()

STATS_SQL = (
    "SELECT count(*) AS total_books, count(*) FILTER (WHERE published) AS published_books, "
    "count(*) FILTER (WHERE featured) AS featured_books, round(avg(price), 2) AS average_price, "
    "(SELECT count(*) FROM reviews) AS total_reviews, (SELECT round(avg(rating), 2) FROM reviews) AS average_rating "
    "FROM books")
COUNT_SQL = "SELECT count(*) FROM books WHERE published"
PAGE_SQL = (
    "SELECT b.id, b.title, b.price, a.name AS author, c.name AS category FROM books b "
    "JOIN authors a ON a.id = b.author_id JOIN categories c ON c.id = b.category_id "
    "WHERE b.published ORDER BY b.id LIMIT 10 OFFSET $1")
SEARCH_COUNT_SQL = "SELECT count(*) FROM books WHERE published AND search @@ websearch_to_tsquery('english', $1)"
SEARCH_PAGE_SQL = (
    "SELECT b.id, b.title, b.price, a.name AS author, c.name AS category FROM books b "
    "JOIN authors a ON a.id = b.author_id JOIN categories c ON c.id = b.category_id "
    "WHERE b.published AND b.search @@ websearch_to_tsquery('english', $1) ORDER BY b.id LIMIT 10 OFFSET $2")
BOOK_SQL = (
    "SELECT b.id, b.title, b.isbn, b.price, b.published_on, b.summary, "
    "json_build_object('id', a.id, 'name', a.name) AS author, "
    "json_build_object('id', c.id, 'name', c.name, 'slug', c.slug) AS category, "
    "count(r.id) AS review_count, round(avg(r.rating), 2) AS average_rating FROM books b "
    "JOIN authors a ON a.id = b.author_id JOIN categories c ON c.id = b.category_id "
    "LEFT JOIN reviews r ON r.book_id = b.id WHERE b.id = $1 AND b.published GROUP BY b.id, a.id, c.id")
REVIEWS_SQL = "SELECT id, book_id, rating, reviewer, created_on FROM reviews WHERE id > $1 ORDER BY id LIMIT 11"


class Stats(BaseModel):
    total_books: int
    published_books: int
    featured_books: int
    average_price: Decimal
    total_reviews: int
    average_rating: Decimal


class BookSummary(BaseModel):
    id: int
    title: str
    price: Decimal
    author: str
    category: str


class BookPage(BaseModel):
    total: int
    page: int
    page_size: int
    items: list[BookSummary]


class AuthorRef(BaseModel):
    id: int
    name: str


class CategoryRef(BaseModel):
    id: int
    name: str
    slug: str


class BookDetail(BaseModel):
    id: int
    title: str
    isbn: str
    price: Decimal
    published_on: datetime.date
    summary: str
    author: AuthorRef
    category: CategoryRef
    review_count: int
    average_rating: Decimal | None


class Review(BaseModel):
    id: int
    book_id: int
    rating: int
    reviewer: str
    created_on: datetime.date


class ReviewPage(BaseModel):
    items: list[Review]
    next_cursor: str | None


def _mac(text: str) -> str:
    return hmac.new(CURSOR_SECRET, text.encode(), hashlib.sha256).hexdigest()[:16]


def sign_cursor(last_id: int) -> str:
    return f"{last_id}.{_mac(str(last_id))}"


def open_cursor(cursor: str) -> int | None:
    """The id a cursor carries, or None when it is malformed or forged."""
    head, dot, mac = cursor.partition(".")
    if not dot or not head.isdigit() or len(head) > 18:
        return None
    return int(head) if hmac.compare_digest(mac, _mac(head)) else None


def etag_of(body: bytes) -> str:
    return '"' + hashlib.sha256(body).hexdigest()[:20] + '"'


def etag_matches(if_none_match: str | None, etag: str) -> bool:
    for item in (if_none_match or "").split(","):
        item = item.strip().removeprefix("W/")
        if item in ("*", etag):
            return True
    return False
