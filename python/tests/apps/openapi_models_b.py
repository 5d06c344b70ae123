"""A second model named Item (another module): the OpenAPI parity test checks how the two names are told apart."""

from pydantic import BaseModel


class Item(BaseModel):
    login: str
    admin: bool = False
