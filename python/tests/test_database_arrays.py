"""PostgreSQL arrays read as (nested) lists whose elements have their kind's Python type, NULL as None; fetch_json
writes the same arrays as JSON."""

from __future__ import annotations

import asyncio
import datetime
import decimal
import json
import math
import uuid

from slipstream import Database

from tests.pg_cluster import PgCluster

UTC = datetime.timezone.utc


def test_arrays_of_every_kind(pg_cluster: PgCluster) -> None:
    cases = [
        ("'{1,NULL,3}'::int4[]", [1, None, 3]), ("'{9223372036854775807}'::int8[]", [9223372036854775807]),
        ("'{1.5,-2.5e-05}'::float8[]", [1.5, -2.5e-05]), ("'{1.50,NaN}'::numeric[]", None),
        ("'{t,f,NULL}'::bool[]", [True, False, None]),
        (r"""'{"a,b","c\"d",NULL,"NULL",""," sp "}'::text[]""", ["a,b", 'c"d', None, "NULL", "", " sp "]),
        ("'{{1,2},{3,4}}'::int4[]", [[1, 2], [3, 4]]), ("'[0:1]={7,8}'::int4[]", [7, 8]), ("'{}'::int4[]", []),
        ("ARRAY['\\x00ff'::bytea, NULL]", [b"\x00\xff", None]),
        ("'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'::uuid[]", [uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")]),
        ("'{2024-02-29,NULL}'::date[]", [datetime.date(2024, 2, 29), None]),
        ("'{\"2024-01-02 03:04:05+00\"}'::timestamptz[]", [datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)]),
        ("'{\"1 day 02:00:00\"}'::interval[]", [datetime.timedelta(days=1, hours=2)]),
        ("ARRAY['{\"a\": [1, 2]}'::jsonb, NULL]", [{"a": [1, 2]}, None]),
        (r"""'{{"x",NULL},{"\\","y"}}'::text[]""", [["x", None], ["\\", "y"]]),
    ]

    async def main() -> None:
        db = Database(pg_cluster.url)
        for literal, expected in cases:
            got = await db.fetchval(f"SELECT {literal}")
            if expected is None:  # numeric[]: Decimals, NaN included
                assert got[0] == decimal.Decimal("1.50") and got[1].is_nan(), literal
                continue
            assert got == expected, literal
            assert [type(v) for v in _flat(got)] == [type(v) for v in _flat(expected)], literal
        nan = await db.fetchval("SELECT '{NaN,Infinity}'::float8[]")
        assert math.isnan(nan[0]) and nan[1] == math.inf
        assert await db.fetchval("SELECT NULL::int4[]") is None
        assert json.loads(await db.fetch_json("SELECT '{1,NULL}'::int4[] a, '{2024-02-29}'::date[] d")) == [
            {"a": [1, None], "d": ["2024-02-29"]}]
        # Arrays as parameters (their text form) and back.
        assert await db.fetchval("SELECT $1::int4[]", "{4,5}") == [4, 5]
        await db.close()

    asyncio.run(main())


def _flat(value: object) -> list[object]:
    if isinstance(value, list):
        return [x for v in value for x in _flat(v)]
    return [value]
