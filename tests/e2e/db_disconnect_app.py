"""The Python app of test_db_disconnect.py: an async route that sleeps on the server, with tasks cancelled when
their client disconnects."""

import os
from typing import Annotated

from slipstream import App, Database, Depends, get_database

app = App(access_log=False, database=os.environ["DB_DISCONNECT_URL"], cancel_on_disconnect=True)
DB = Annotated[Database, Depends(get_database)]


@app.get("/health")
async def health(db: DB):
    return await db.fetchval("SELECT 'ok'")


@app.get("/sleep")
async def sleep(db: DB):
    await db.execute("SELECT pg_sleep(30) /* e2e disconnect */")
    return "slept"


@app.get("/sleep-in-transaction")
async def sleep_in_transaction(db: DB):
    async with db.transaction() as conn:
        await conn.execute("INSERT INTO disconnect_log VALUES ('started')")
        await conn.execute("SELECT pg_sleep(30) /* e2e disconnect in transaction */")
    return "slept"
