"""The tutorial's first app: two routes, a path parameter and a query parameter."""

from slipstream import App

app = App(title="Greeter")


@app.get("/")
def root() -> dict[str, str]:
    return {"message": "Hello"}


@app.get("/hello/{name}")
def hello(name: str, excited: bool = False) -> dict[str, str]:
    return {"message": f"Hello, {name}{'!' if excited else '.'}"}
