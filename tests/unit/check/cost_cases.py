"""Runs whose operations the static cost bound must cover: the shipped examples at several
sizes, and every case of the JsonLogic suites that imports and runs (read from
../shared/corpus/jsonlogic beside the repository, never copied). Used by test_cost_bound.py
and benchmarks/bench_cost_bound.py."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import toolkiln
from toolkiln.errors import CompileError, RunError
from toolkiln.interpret.runtime import Runtime
from toolkiln.io.tables import load_table_file
from toolkiln.semantics.dates import fixed_clock
from toolkiln.semantics.limits import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"
sys.path.insert(0, str(ROOT / "tests" / "unit" / "jsonlogic"))
from jsonlogic_suites import SUITES, all_cases  # noqa: E402

CLOCK = fixed_clock(datetime(2026, 2, 9, 23, 30, tzinfo=UTC))


@dataclass(frozen=True)
class Run:
    id: str
    tool: toolkiln.Tool
    args: dict[str, Any]
    tables: Mapping[str, Any]


def operations(tool: toolkiln.Tool, args: Mapping[str, Any], tables: Mapping[str, Any] | None = None) -> int:
    """The operations the interpreter charges a run: run as the callee of a run that starts at
    zero, so the budget's own counter says what the run took (the program's size included)."""
    caller = Runtime(DEFAULT_LIMITS, {}, 0, math.inf, CLOCK)
    tool.run_call(dict(args), {**tool.tables, **(tables or {})}, caller)
    return caller.operations


def _lines(count: int) -> list[dict[str, Any]]:
    return [{"sku": f"S-{i}", "category": f"c{i % 4}", "qty": i % 17, "price": 1.25 + i} for i in range(count)]


def _weights() -> dict[str, Any]:
    return dict(load_table_file(EXAMPLES / "industry_weights.csv"))


SIZES = (0, 1, 3, 10, 100)
_EXAMPLE_ARGS = {
    "shipping_cost.json": lambda k: {"weight_kg": 12 + k},
    "invoice_total.json": lambda k: {"items": [{"price": 19.99 + i, "qty": i % 5} for i in range(k)], "tax_rate": 0.19},
    "late_fee.tk": lambda k: {"days_overdue": 3 * k, "amount": 1200},
    "lead_score.tk": lambda k: {
        "company_size": 25 * k,
        "budget": 1000 * k,
        "industry": "software",
        "days_since_engagement": k,
        "source": "referral",
    },
    "customer_message.json": lambda k: {
        "customer_name": "  Ada " + "x" * k,
        "order_id": f"A-{k}",
        "amount": 1234.5,
        "status": ("shipped", "delivered", "cancelled", "new")[k % 4],
        "tracking_code": "1Z" * k,
    },
    "sales_commission.json": lambda k: {"sales": 1000 * k, "quota": 5000},
    "payment_reminder.tk": lambda k: {"invoice_number": "N" * (k + 1), "issued": "2026-01-05", "payment_days": k},
    "invoice_breakdown.tk": lambda k: {"lines": _lines(k)},
}


def example_runs() -> Iterator[Run]:
    tables = _weights()
    for name, args_for in _EXAMPLE_ARGS.items():
        tool = toolkiln.compile(EXAMPLES / name)
        for k in SIZES:
            yield Run(f"{name}@{k}", tool, args_for(k), tables if name == "lead_score.tk" else {})


KITZ = ROOT.parent / "shared" / "corpus" / "peers" / "kitz" / "compute"
KITZ_ARGS = {
    "shipping_cost.logic.json": [{"weight_kg": w} for w in (12, 10, 3, 10.5)],
    "price_times_quantity.logic.json": [{"price": 2.5, "quantity": 4}, {"price": 0, "quantity": 1_000}],
}


def corpus_runs() -> Iterator[Run]:
    """Kitz's two ComputeLogic programs, and every JsonLogic suite case that imports and runs
    (the others have no run to measure)."""
    for name, runs in KITZ_ARGS.items() if KITZ.is_dir() else ():
        tool = toolkiln.compile(json.loads((KITZ / name).read_text(encoding="utf-8")))
        for index, args in enumerate(runs):
            yield Run(f"kitz/{name}#{index}", tool, args, {})
    if not SUITES.is_dir():
        return
    for case in all_cases():
        try:
            tool = toolkiln.import_jsonlogic(case.rule)  # type: ignore[arg-type]
            tool.run({"data": case.data})
        except (CompileError, RunError):
            continue
        yield Run(case.id, tool, {"data": case.data}, {})
