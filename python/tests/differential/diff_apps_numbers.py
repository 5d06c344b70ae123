"""The "numbers" app of the differential suite: integers beyond 64 bits in bodies, parameters and responses."""

from types import ModuleType
from typing import Annotated, Any

from pydantic import BaseModel, Field

BIG = 10**30


class Big(BaseModel):
    n: int
    bounded: Annotated[int, Field(ge=-BIG, le=BIG)] = 0
    tens: Annotated[int, Field(multiple_of=10)] = 0
    small: Annotated[int, Field(lt=100)] = 0
    nested: dict[str, list[int]] = {}
    maybe: int | None = None
    ratio: float = 0.0


def build_numbers(fw: ModuleType) -> Any:
    app = fw.FastAPI() if hasattr(fw, "FastAPI") else fw.App()

    @app.post("/model")
    def model(m: Big):
        return m

    @app.post("/echo")
    def echo(body: Annotated[Any, fw.Body()]):
        return body

    @app.post("/ints")
    def ints(xs: list[int]):
        return {"xs": xs, "sum": sum(xs), "types": sorted({type(x).__name__ for x in xs})}

    @app.post("/scalar")
    def scalar(n: Annotated[int, fw.Body(embed=True)]):
        return {"n": n, "plus_one": n + 1, "digits": len(str(abs(n)))}

    @app.get("/query")
    def query(n: int, lo: Annotated[int, fw.Query(gt=-(10**20), lt=10**20)] = 0,
              many: Annotated[list[int], fw.Query()] = [], ratio: float = 0.0):  # noqa: B006 - FastAPI style
        return {"n": n, "lo": lo, "many": many, "ratio": ratio}

    @app.get("/path/{n}")
    def path(n: int):
        return {"n": n, "neg": -n}

    @app.get("/header")
    def header(x_n: Annotated[int, fw.Header()]):
        return {"x_n": x_n}

    @app.get("/out")
    def out():
        return {"big": 10**40, "neg": -(10**40), "edges": [2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1],
                "nested": {"list": [BIG, [BIG + 1]]}}

    @app.get("/out-model", response_model=Big)
    def out_model():
        return {"n": BIG * 7, "bounded": -BIG, "nested": {"k": [2**100]}}

    return app
