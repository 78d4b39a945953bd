"""The plain reader of tool files (registry/record_view.py) and the pydantic model agree: every
record the registry writes, the plain reader reads to the model's values (except a workflow's
deployment, which it leaves to the model); and whatever bytes it accepts, however malformed
their neighbours, the model accepts with the same values. What it declines goes the model's
way, so a malformed record is refused with the same code as before (issue 34)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_profiles import examples

from toolkiln.registry.codec import decode_record, encode_record
from toolkiln.registry.models import ACTORS, STATUSES, USAGE_FIELDS, Deployment, Pin, ToolRecord
from toolkiln.registry.record_view import RecordView, read_record

# The model's fields a tool file holds that the reader reads as they are (pins: as pairs).
FIELDS = tuple(field for field in ToolRecord.model_fields if field not in {*USAGE_FIELDS, "deployment", "pins"})

names = st.from_regex(r"[a-z][a-z0-9_]{0,63}", fullmatch=True)
times = st.datetimes(
    min_value=datetime(1970, 1, 1), max_value=datetime(2200, 1, 1), timezones=st.sampled_from([UTC, None])
)
numbers = st.one_of(st.integers(-(10**20), 10**20), st.decimals(allow_nan=False, allow_infinity=False, places=3))
json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=8)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8,
)
pins = st.builds(Pin, version=st.integers(1, 2**63), digest=st.from_regex(r"[0-9a-f]{64}", fullmatch=True))
deployments = st.builds(
    Deployment, url=st.just("http://127.0.0.1:5678"), workflow_id=st.text(max_size=5), method=st.just("POST"),
    path=st.just("/x"), version=st.integers(1, 9),
)  # fmt: skip
records = st.builds(
    ToolRecord,
    name=names,
    description=st.text(max_size=20),
    kind=st.sampled_from(["compute", "workflow", "script", "executable", "robot"]),
    parameters=st.dictionaries(st.text(max_size=5), json_values, max_size=3),
    risk_level=st.sampled_from(["low", "medium", "high"]),
    status=st.sampled_from(STATUSES),
    created_by=st.sampled_from(ACTORS),
    created_at=times,
    updated_at=times,
    version=st.integers(1, 2**63),
    definition=st.dictionaries(st.text(max_size=5), json_values, max_size=3),
    deployment=st.none() | deployments,
    approve_calls=st.booleans(),
    pins=st.dictionaries(names, pins, max_size=2),
)


def same(view: RecordView, record: ToolRecord) -> bool:
    plain_pins = {callee: (pin.version, pin.digest) for callee, pin in record.pins.items()}
    return all(getattr(view, field) == getattr(record, field) for field in FIELDS) and view.pins == plain_pins


def agrees(data: bytes) -> None:
    """If the plain reader accepts `data`, the model does, to the same values."""
    view = read_record(data)
    if view is not None:
        record, diagnostics = decode_record(data, "tools/x.json")
        assert diagnostics == [] and record is not None, data
        assert same(view, record), data


@settings(max_examples=examples(300), deadline=None)
@given(records)
def test_every_record_the_registry_writes_is_read_to_the_models_values(record: ToolRecord) -> None:
    data = encode_record(record).encode("utf-8")
    view = read_record(data)
    if record.deployment is not None:
        assert view is None  # (a workflow's deployment: the model's to read)
        return
    assert view is not None and same(view, record)


# What a hand edit, another program or an attacker may put in a field instead.
ODD = [
    "1",
    "1.0",
    1.0,
    True,
    0,
    -1,
    2**64,
    "active",
    "enabled",
    "user",
    "person",
    "compute",
    "Compute",
    "low",
    "LOW",
    "2026-11-29T07:39:11Z",
    "2026-11-29T07:39:11.1234567Z",
    "2026-11-29 07:39:11Z",
    "2026-11-29t07:39:11z",
    "2026-11-29T07:39:11+24:00",
    "2026-11-29T07:39:11+23:59",
    "2026-11-29T07:39:11-00:00",
    "2026-02-30T00:00:00Z",
    "2026-11-29T24:00:00Z",
    "2026-11-29T23:59:60Z",
    "0000-01-01T00:00:00Z",
    "2026-11-29",
    "20261129T073911Z",  # (datetime.fromisoformat reads these three; the model does not)
    "2026-11-29T07",
    "2026-W48-7T07:39:11",
    "1732865951",
    1732865951,
    {"version": 1, "digest": "0" * 64},
    {"x": {"version": 1, "digest": "0" * 64}},
    {"x": {"version": 0, "digest": "0" * 64}},
    {"x": {"version": 1, "digest": "0" * 63}},
    {"x": {"version": 1, "digest": "A" * 64}},
    {"x": {"version": 1, "digest": "0" * 64, "note": ""}},
    {"x": {"version": "1", "digest": "0" * 64}},
    {"x": {"version": True, "digest": "0" * 64}},
    "shipping_cost\n",
    "a" * 65,
    "_x",
]
odd_values = st.one_of(json_values, st.sampled_from(ODD))
FIELD_NAMES = [*FIELDS, "pins", "deployment", "usage_count", "last_used_at", "colour", ""]
field_names = st.sampled_from(FIELD_NAMES)


def canonical() -> dict[str, Any]:
    record = ToolRecord(
        name="shipping_cost",
        description="Shipping",
        parameters={"type": "object", "properties": {"w": {"type": "number"}}},
        status="active",
        created_by="user",
        created_at=datetime(2026, 11, 29, 7, 39, 11, 448473, tzinfo=UTC),
        updated_at=datetime(2026, 11, 29, 7, 39, 11, tzinfo=timezone(timedelta(hours=2))),
        version=3,
        definition={"name": "shipping_cost", "logic": {"steps": [{"op": "return", "value": "w * 2.50"}]}},
    )
    data: dict[str, Any] = json.loads(encode_record(record))
    return data


def test_each_odd_value_in_each_field_or_the_field_left_out_is_read_alike_or_declined() -> None:
    for field in FIELD_NAMES:
        for value in [*ODD, None, [], {}, "", "x"]:
            obj = canonical()
            obj[field] = value
            agrees(json.dumps(obj).encode())
        obj = canonical()
        obj.pop(field, None)
        agrees(json.dumps(obj).encode())


@settings(max_examples=examples(600), deadline=None)
@given(st.lists(st.tuples(field_names, st.one_of(st.none(), odd_values)), min_size=1, max_size=3), st.booleans())
def test_whatever_the_plain_reader_accepts_the_model_accepts_alike(changes, drop) -> None:
    obj = canonical()
    for field, value in changes:
        if drop and value is None:
            obj.pop(field, None)
        else:
            obj[field] = value
    agrees(json.dumps(obj, default=str).encode())


@given(st.sampled_from([b"NaN", b"Infinity", b"-Infinity", b'"\\ud800"', b'"\\udfff\\ud800"', b'"\\ud83d\\ude00"']))
def test_what_json_reads_and_msgspec_does_not_is_declined(token: bytes) -> None:
    data = json.dumps(canonical()).encode().replace(b'"Shipping"', token)
    assert read_record(data) is None
    agrees(data)


def test_bytes_that_are_no_record_are_declined() -> None:
    for data in (b"", b"[]", b"{", b"\xff", b"\xef\xbb\xbf" + json.dumps(canonical()).encode(), b"{}" * 10):
        assert read_record(data) is None
    deep = b'{"name": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert read_record(deep) is None


def test_times_and_numbers_are_read_as_the_model_reads_them() -> None:
    obj = canonical()
    obj["definition"]["rate"] = Decimal("2.50")
    data = json.dumps(obj, default=str).replace('"2.50"', "2.50").encode()
    view = read_record(data)
    assert view is not None
    assert view.created_at == datetime(2026, 11, 29, 7, 39, 11, 448473, tzinfo=UTC)
    assert view.updated_at.utcoffset() == timedelta(hours=2)
    assert str(view.definition["rate"]) == "2.50"  # exact, as the model's decoder keeps it
    agrees(data)
