"""An app for the CLI test: a def route, an async route that really awaits, and a body route."""

import asyncio

from pydantic import BaseModel
from slipstream import App

app = App(access_log=False)


class Item(BaseModel):
    name: str
    price: float


@app.get("/hello")
def hello():
    return {"message": "hello"}


@app.get("/sleep/{ms}")
async def sleep(ms: int):
    await asyncio.sleep(ms / 1000)
    return {"slept": ms}


@app.post("/items")
def create(item: Item):
    return item
