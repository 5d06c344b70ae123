"""An app for the database server test: rows as JSON straight from the engine, on the URL in the environment."""

import os
from typing import Annotated

from slipstream import App, Database, Depends, get_database

app = App(access_log=False, database=os.environ["SLIPSTREAM_TEST_DATABASE_URL"])

DB = Annotated[Database, Depends(get_database)]


@app.on_event("startup")
async def create() -> None:
    await app.database.execute("CREATE TABLE IF NOT EXISTS items (id INTEGER PRIMARY KEY, name TEXT)")
    await app.database.execute("INSERT INTO items (id, name) VALUES (1, 'one') ON CONFLICT DO NOTHING")


@app.get("/items")
async def items(db: DB):
    return await db.json_response("SELECT id, name FROM items ORDER BY id")


@app.get("/count")
def count(db: DB):
    return db.sync.fetchval("SELECT count(*) FROM items")
