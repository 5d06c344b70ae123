"""The tutorial's dependencies app: a shared parameter set, a resource with clean-up, and a header check."""

from collections.abc import Iterator
from typing import Annotated

from slipstream import App, Depends, Header, HTTPException

app = App(title="Notes")


class Pagination:
    def __init__(self, offset: int = 0, limit: int = 20) -> None:
        self.offset = offset
        self.limit = limit


class Store:
    """Stands for a connection: opened for a request, closed after its response."""

    opened = 0
    closed = 0

    def __init__(self) -> None:
        Store.opened += 1
        self.notes = [f"note {i}" for i in range(50)]

    def close(self) -> None:
        Store.closed += 1


def get_store() -> Iterator[Store]:
    store = Store()
    try:
        yield store
    finally:
        store.close()


def require_token(x_token: Annotated[str, Header()]) -> str:
    if x_token != "secret":
        raise HTTPException(status_code=401, detail="Bad token")
    return x_token


@app.get("/notes", dependencies=[Depends(require_token)])
def list_notes(page: Annotated[Pagination, Depends()], store: Annotated[Store, Depends(get_store)]) -> list[str]:
    return store.notes[page.offset : page.offset + page.limit]
