"""The exact bytes every bench contender serves: one source for the apps, the static configs and the harness."""
import json

CONTENT_TYPE = "application/json"

HELLO = b'{"message":"hello"}'

# echo: the request body; parsed and re-serialized compactly it is byte-identical to itself.
ECHO_BODY = b'{"user":{"name":"test","id":42},"items":[1,2,3],"meta":{"version":"1.0"}}'

# validated: 9 in 10 requests carry VALID_ITEM (answered 200 with the model re-serialized),
# 1 in 10 carries INVALID_ITEM (price must be > 0: answered 422, body not compared).
VALID_ITEM = b'{"name":"widget","price":9.5,"tags":["a","b"]}'
INVALID_ITEM = b'{"name":"widget","price":-1.0,"tags":["a","b"]}'
INVALID_STATUS = 422

# params: GET /users/42/items?limit=10&offset=20
PARAMS_PATH = "/users/42/items?limit=10&offset=20"
PARAMS_RESPONSE = b'{"user_id":42,"limit":10,"offset":20}'

LARGE_SIZE = 64 * 1024


def compact(value) -> bytes:
    """Serializes like every contender must: no spaces, insertion order kept."""
    return json.dumps(value, separators=(",", ":")).encode()


def large_body() -> bytes:
    """A deterministic JSON document of exactly LARGE_SIZE bytes."""
    items = []
    doc = {"items": items, "pad": ""}
    i = 0
    while True:
        items.append({"id": i, "name": f"item-{i:05d}", "price": 10.25, "tags": ["red", "green"]})
        if len(compact(doc)) > LARGE_SIZE - 200:
            break
        i += 1
    doc["pad"] = "x" * (LARGE_SIZE - len(compact(doc)))
    body = compact(doc)
    assert len(body) == LARGE_SIZE
    return body


LARGE = large_body()
