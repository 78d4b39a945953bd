"""The cost of one call of each text, list and date builtin on the largest input the default
limits let in, against what the call is charged to the operation budget. `sum` is the yardstick: a
builtin far slower per charged operation than `sum` is undercharged (a run's budget would
let it run past its time, where only the clock stops it).

    python benchmarks/bench_builtins.py [--repeat R]

Columns: the builtin and its input, milliseconds per call (best of R), operations charged
(1 + its `work`, and what it builds: `builds` from its arguments, `built` from its result),
and microseconds per charged operation.
"""

from __future__ import annotations

import argparse
import time
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any
from zoneinfo import ZoneInfo

from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.limits import Limits

NUMBERS = [Decimal(i * 7919 % 100_003) for i in range(100_000)]
STRINGS = [f"s{i * 7919 % 100_003}" for i in range(100_000)]
TEXT = "x" * 100_000
MOMENT = datetime(2026, 3, 29, 2, 30, tzinfo=ZoneInfo("Europe/Berlin"))
NAMED_DAY = "Sunday March " * 19 + "29 2026"
JSON_NUMBERS = "[" + ",".join(["7"] * 49_999) + "]"
CASES: list[tuple[str, str, tuple[Any, ...]]] = [
    ("sum", "100,000 numbers", (NUMBERS,)),
    ("upper", "100,000 characters", (TEXT,)),
    ("split", "33,333 words", ("ab " * 33_333, " ")),
    ("slice", "100,000 characters", (TEXT, Decimal(1), Decimal(-1))),
    ("title", "33,333 words", ("ab " * 33_333,)),
    ("capitalize", "100,000 characters", (TEXT,)),
    ("pad_left", "to 100,000", ("x", Decimal(100_000))),
    ("repeat", "to 100,000", ("ab", Decimal(50_000))),
    ("url_encode", "16,000 x é (to 96,000)", ("é" * 16_000,)),
    ("base64_encode", "70,000 characters", (TEXT[:70_000],)),
    ("base64_decode", "100,000 characters", ("eHh4" * 25_000,)),
    ("sha256", "100,000 characters", (TEXT,)),
    ("md5", "100,000 characters", (TEXT,)),
    ("is_email", "254 characters", ("a" * 64 + "@" + ".".join(["b" * 60] * 3) + ".com",)),
    ("is_url", "2,014 characters", ("https://a.com/" + "b" * 2000,)),
    ("sort", "100,000 numbers", (NUMBERS,)),
    ("sort", "100,000 strings", (STRINGS,)),
    ("sort", "100,000 objects by a key", ([{"k": n} for n in NUMBERS], "k")),
    ("unique", "100,000 numbers", (NUMBERS,)),
    ("flatten", "100,000 lists of 1", ([[n] for n in NUMBERS],)),
    ("range", "100,000", (Decimal(100_000),)),
    ("zip", "100,000 pairs", (NUMBERS, STRINGS)),
    ("count", "100,000 numbers, a value", (NUMBERS, Decimal(5))),
    # Date builtins: a pattern (at most 200 characters) is charged by its length, the rest cost one.
    ("today", "in a zone", ("America/Argentina/Buenos_Aires",)),
    ("add_months", "a datetime in a zone", (MOMENT, Decimal(-1234))),
    ("to_zone", "a datetime", (MOMENT, "Pacific/Chatham")),
    ("format_date", "200-character pattern of names", (MOMENT.date(), "dddd MMMM " * 20)),
    ("parse_date", "200-character pattern of names", (NAMED_DAY, "dddd MMMM " * 19 + "D YYYY")),
    ("parse_datetime", "ISO 8601, to a zone", ("2026-01-31T09:30:00.123456+05:30", None, "Europe/Berlin")),
    ("sort", "100,000 numbers by a list of keys", (NUMBERS, STRINGS)),
    ("group_by", "100,000 numbers, all different", (NUMBERS, NUMBERS)),
    ("group_by", "100,000 strings into 10 groups", (STRINGS, [n % 10 for n in NUMBERS])),
    ("group_by", "100,000 objects by a key", ([{"k": n} for n in NUMBERS], "k")),
    ("count_if", "100,000 conditions", ([n > 50_000 for n in NUMBERS],)),
    # The word and data builtins (OwnPilot's helpers).
    ("slugify", "16,000 x 'Crème ' (96,000 characters)", ("Crème " * 16_000,)),
    ("camel_case", "33,333 words", ("ab " * 33_333,)),
    ("snake_case", "64,000 characters of mixed case (to 96,000)", ("aBcD" * 16_000,)),
    ("truncate", "100,000 characters", (TEXT, Decimal(50_000))),
    ("count_words", "33,333 words", ("ab " * 33_333,)),
    ("remove_diacritics", "50,000 x é", ("é" * 50_000,)),
    ("is_json", "100,000 characters of numbers", (JSON_NUMBERS,)),
    ("parse_json", "100,000 characters of numbers", (JSON_NUMBERS,)),
    ("to_json", "12,000 numbers", (NUMBERS[:12_000],)),
    ("to_json", "8,000 numbers, indent 2", (NUMBERS[:8_000], Decimal(2))),
    ("parse_csv", "33,333 rows of 2 values", ("a,b\n" + "1,2\n" * 33_332,)),
    ("chunk", "100,000 numbers by 2", (NUMBERS, Decimal(2))),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    limits = Limits()
    print("| builtin | input | ms | charged | us / operation |\n|---|---|---:|---:|---:|")
    for name, what, args in CASES:
        builtin = BUILTINS[name]
        charged = 1 + (builtin.work(*args) if builtin.work else 0)
        charged += builtin.builds(limits, *args) if builtin.builds else 0
        best = float("inf")
        if builtin.clocked:  # today(), now(): the run's instant comes first
            args = (datetime.now(UTC), *args)
        for _ in range(repeat):
            started = time.perf_counter()
            result = builtin.impl(limits, *args)
            best = min(best, time.perf_counter() - started)
        charged += builtin.built(result) if builtin.built else 0
        print(f"| {name} | {what} | {best * 1000:.2f} | {charged:,} | {best * 1e6 / charged:.2f} |")


if __name__ == "__main__":
    main()
