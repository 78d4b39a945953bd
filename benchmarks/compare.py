"""toolkiln side by side with other ways to evaluate business logic, in one process.

    pip install -e ".[bench]"            # simpleeval, asteval, cel-python, a JsonLogic port
    python benchmarks/compare.py [--rounds R] [--min-time S] [--batch N] [--workload NAME] [--rows TEXT]

Three workloads, each written once per engine as naturally as the engine allows:

  shipping  `weight_kg * 2.5 + 5 if weight_kg <= 10 else (weight_kg * 2.5 + 5) * 0.9`
  invoice   the total of five line items (sum of price x qty), a discount tier, then tax
  lead      a lead score: 21 comparisons adding or removing points, clamped to 0..100

Before anything is timed, every engine is run on several argument sets per workload and its
result is compared with the hand-written Python function's. toolkiln returns exact decimals
and the peers return floats, so results are compared with a relative tolerance of 1e-9; an
engine that disagrees is reported as such and not timed.

Timing alternates: every round times each engine once (a loop of `number` evaluations, the
number chosen so that one timing lasts at least --min-time seconds, garbage collection off as
in timeit), the next round starts with the next engine, and so on for --rounds rounds. The
table gives the median microseconds per evaluation over the rounds, the fastest and slowest
round, and the ratio of the median to CPython's `eval` of code compiled once (the reference);
every ratio is of medians (floor.py: one definition of the floor and of timing). A peer that is
not installed, or that cannot express a workload, gets a row that says so; the script never
stops on a missing or failing peer.

Three rows are hand-written Python functions: the plain one (floats, the limit), the same in
exact decimals with floats by `Decimal(repr(x))`, and the floor (floor.py: floats by toolkiln's
own exact conversion, nothing checked, no limits): what exactness itself costs in Python, and
so how much of toolkiln's time is its own.

CPython's compile()/eval() appear here, and only here, because they are the baseline being
compared against; toolkiln itself never evaluates strings as Python.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from importlib import metadata
from typing import Any

from floor import by_repr, calibrate, floor_number, invoice_decimal, shipping_decimal, spread, timed

import toolkiln
from toolkiln.interpret.arguments import binding

REL_TOL = 1e-9
BUILTINS_FOR_EVAL = {"sum": sum, "max": max, "min": min}


# --- workloads ------------------------------------------------------------------------------


def _v(name: str) -> dict:
    """JsonLogic `var`."""
    return {"var": name}


def _tiers(op: str, name: str, steps: list[tuple[Any, int]], otherwise: int) -> dict:
    """JsonLogic `if` chain: the points of the first step whose `var op threshold` holds."""
    chain: list[Any] = []
    for threshold, points in steps:
        chain += [{op: [_v(name), threshold]}, points]
    return {"if": chain + [otherwise]}


@dataclass
class Workload:
    name: str
    title: str
    python: Callable[[dict], Any]  # the hand-written limit
    # the same in exact decimals, numbers taken through `convert`: what exactness costs
    python_decimal: Callable[[dict, Callable[[Any], Decimal]], Any]
    float_args: dict  # what json.loads gives: fractions as float, counts as int
    int_args: dict  # every number an int
    decimal_args: dict  # every number a Decimal
    checks: list[dict]  # more float-style argument sets, to cover every branch
    toolkiln: str  # text DSL
    python_expr: str  # for CPython eval and simpleeval
    asteval_code: str  # asteval runs statements: the natural form where it helps
    cel: str | None
    jsonlogic: Any
    simpleeval_compound: bool = False  # needs EvalWithCompoundTypes (lists, comprehensions)
    notes: dict[str, str] = field(default_factory=dict)


# (a) shipping ---------------------------------------------------------------------------------

SHIPPING_EXPR = "weight_kg * 2.5 + 5 if weight_kg <= 10 else (weight_kg * 2.5 + 5) * 0.9"

SHIPPING = Workload(
    name="shipping",
    title="(a) shipping: " + SHIPPING_EXPR.replace("|", "\\|"),
    python=lambda a: a["weight_kg"] * 2.5 + 5 if a["weight_kg"] <= 10 else (a["weight_kg"] * 2.5 + 5) * 0.9,
    python_decimal=shipping_decimal,
    float_args={"weight_kg": 12.5},
    int_args={"weight_kg": 12},
    decimal_args={"weight_kg": Decimal("12.5")},
    checks=[{"weight_kg": 0.3}, {"weight_kg": 10}, {"weight_kg": 10.01}, {"weight_kg": 1234.5678}],
    toolkiln=f"""tool shipping(weight_kg: number "Parcel weight in kilograms")
description "Shipping cost: 2.50 per kg plus 5.00, 10% off above 10 kg"
{{
  return {SHIPPING_EXPR}
}}
""",
    python_expr=SHIPPING_EXPR,
    asteval_code=SHIPPING_EXPR,
    # CEL never mixes int and double: double() because JSON gives 10 (an int) for a whole number.
    cel="double(weight_kg) <= 10.0 ? double(weight_kg) * 2.5 + 5.0 : (double(weight_kg) * 2.5 + 5.0) * 0.9",
    jsonlogic={
        "if": [
            {"<=": [_v("weight_kg"), 10]},
            {"+": [{"*": [_v("weight_kg"), 2.5]}, 5]},
            {"*": [{"+": [{"*": [_v("weight_kg"), 2.5]}, 5]}, 0.9]},
        ]
    },
    notes={"cel-python": "double() on the number input"},
)


# (b) invoice ----------------------------------------------------------------------------------


def invoice_py(a: dict) -> Any:
    subtotal = sum(item["price"] * item["qty"] for item in a["items"])
    rate = 0.10 if subtotal >= 1000 else 0.05 if subtotal >= 500 else 0
    net = subtotal * (1 - rate)
    return net + net * a["tax_percent"] / 100


def _items(prices: list, qtys: list) -> list[dict]:
    return [{"price": p, "qty": q} for p, q in zip(prices, qtys)]


_QTY = [3, 1, 12, 2, 40]

INVOICE = Workload(
    name="invoice",
    title="(b) invoice: sum of price x qty over 5 line items, discount tier (5% from 500, 10% from 1000), tax",
    python=invoice_py,
    python_decimal=invoice_decimal,
    float_args={"items": _items([19.99, 450, 4.75, 129, 0.99], _QTY), "tax_percent": 19},
    int_args={"items": _items([20, 450, 5, 129, 1], _QTY), "tax_percent": 19},
    decimal_args={
        "items": _items([Decimal(p) for p in ("19.99", "450", "4.75", "129", "0.99")], [Decimal(q) for q in _QTY]),
        "tax_percent": Decimal(19),
    },
    checks=[
        {"items": [], "tax_percent": 19},
        {"items": _items([19.99, 0.5], [2, 7]), "tax_percent": 7},
        {"items": _items([250.25, 1.1], [2, 3]), "tax_percent": 0},
        {"items": _items([999.99, 12.34], [5, 1]), "tax_percent": 21.5},
    ],
    toolkiln="""tool invoice(
  items: array[object] "Line items, each with a unit `price` and a quantity `qty`",
  tax_percent: number = 0 "Tax in percent, e.g. 19",
)
description "Invoice total: subtotal, volume discount, tax"
{
  subtotal = sum(i.price * i.qty for i in items)
  if subtotal >= 1000 {
    rate = 0.10
  } else if subtotal >= 500 {
    rate = 0.05
  } else {
    rate = 0
  }
  net = subtotal * (1 - rate)
  return net + net * tax_percent / 100
}
""",
    # One expression, no assignments: single-item comprehensions bind `s` and `net`.
    python_expr="[net + net * tax_percent / 100"
    " for s in [sum([i['price'] * i['qty'] for i in items])]"
    " for net in [s * (1 - (0.10 if s >= 1000 else 0.05 if s >= 500 else 0))]][0]",
    asteval_code="""
subtotal = sum([i['price'] * i['qty'] for i in items])
if subtotal >= 1000:
    rate = 0.10
elif subtotal >= 500:
    rate = 0.05
else:
    rate = 0
net = subtotal * (1 - rate)
net + net * tax_percent / 100
""",
    # CEL has no sum() and no let: a host function `sum` (registered with the program) adds a
    # list, and `[x].map(s, ...)[0]` binds the subtotal once.
    cel="[sum(items.map(i, double(i.price) * double(i.qty)))]"
    ".map(s, s * (1.0 - (s >= 1000.0 ? 0.10 : s >= 500.0 ? 0.05 : 0.0))"
    " * (1.0 + double(tax_percent) / 100.0))[0]",
    # JsonLogic has reduce but no let: reducing a one-element list [[subtotal, tax_percent]]
    # binds both, read back as current.0 and current.1.
    jsonlogic={
        "reduce": [
            [
                [
                    {
                        "reduce": [
                            _v("items"),
                            {"+": [_v("accumulator"), {"*": [_v("current.price"), _v("current.qty")]}]},
                            0,
                        ]
                    },
                    _v("tax_percent"),
                ]
            ],
            {
                "*": [
                    _v("current.0"),
                    {"-": [1, _tiers(">=", "current.0", [(1000, 0.10), (500, 0.05)], 0)]},
                    {"+": [1, {"/": [_v("current.1"), 100]}]},
                ]
            },
            0,
        ]
    },
    simpleeval_compound=True,
    notes={
        "simpleeval": "host function sum()",
        "cel-python": "host function sum(); map() as let; double()",
        "JsonLogic": "reduce() over a 1-item list as let",
    },
)


# (c) lead score -------------------------------------------------------------------------------


def lead_py(a: dict) -> int:
    industry = a["industry"]
    if industry in ("gambling", "tobacco", "weapons"):
        return 0
    score = 0
    size = a["company_size"]
    if size >= 1000:
        score += 25
    elif size >= 200:
        score += 18
    elif size >= 50:
        score += 10
    elif size >= 10:
        score += 4
    budget = a["budget"]
    if budget >= 100000:
        score += 25
    elif budget >= 25000:
        score += 15
    elif budget >= 5000:
        score += 5
    if industry in ("fintech", "saas"):
        score += 10
    elif industry == "retail":
        score += 5
    days = a["days_since_engagement"]
    if days <= 7:
        score += 15
    elif days <= 30:
        score += 8
    elif days > 90:
        score -= 10
    source = a["source"]
    if source in ("referral", "demo_request"):
        score += 20
    elif source == "webinar":
        score += 10
    elif source == "cold_list":
        score -= 5
    if a["is_decision_maker"]:
        score += 10
    pages = a["pages_visited"]
    if pages >= 10:
        score += 10
    elif pages >= 3:
        score += 4
    if a["email_opens"] >= 5:
        score += 5
    if a["country"] in ("DE", "AT", "CH"):
        score += 5
    return max(0, min(100, score))


_LEAD_TEXT = {"industry": "fintech", "source": "webinar", "is_decision_maker": True, "country": "DE"}

LEAD = Workload(
    name="lead",
    title="(c) lead score: 21 comparisons adding points, clamped to 0..100",
    python=lead_py,
    python_decimal=lambda a, convert=by_repr: lead_py(
        {k: v if type(v) in (str, bool) else convert(v) for k, v in a.items()}
    ),
    float_args={
        "company_size": 250,
        "budget": 42999.99,
        "days_since_engagement": 12,
        "pages_visited": 14,
        "email_opens": 3,
        **_LEAD_TEXT,
    },
    int_args={
        "company_size": 250,
        "budget": 43000,
        "days_since_engagement": 12,
        "pages_visited": 14,
        "email_opens": 3,
        **_LEAD_TEXT,
    },
    decimal_args={
        "company_size": Decimal(250),
        "budget": Decimal("42999.99"),
        "days_since_engagement": Decimal(12),
        "pages_visited": Decimal(14),
        "email_opens": Decimal(3),
        **_LEAD_TEXT,
    },
    checks=[
        {
            "company_size": 5000,
            "budget": 250000.5,
            "days_since_engagement": 1,
            "pages_visited": 40,
            "email_opens": 9,
            "industry": "saas",
            "source": "referral",
            "is_decision_maker": True,
            "country": "AT",
        },
        {
            "company_size": 3,
            "budget": 100,
            "days_since_engagement": 400,
            "pages_visited": 0,
            "email_opens": 0,
            "industry": "other",
            "source": "cold_list",
            "is_decision_maker": False,
            "country": "US",
        },
        {
            "company_size": 60,
            "budget": 5000,
            "days_since_engagement": 45,
            "pages_visited": 3,
            "email_opens": 5,
            "industry": "retail",
            "source": "paid_ads",
            "is_decision_maker": False,
            "country": "CH",
        },
        {
            "company_size": 900,
            "budget": 99999.99,
            "days_since_engagement": 30,
            "pages_visited": 9,
            "email_opens": 4,
            "industry": "tobacco",
            "source": "demo_request",
            "is_decision_maker": True,
            "country": "DE",
        },
        {
            "company_size": 12,
            "budget": 25000,
            "days_since_engagement": 91,
            "pages_visited": 2,
            "email_opens": 1,
            "industry": "retail",
            "source": "webinar",
            "is_decision_maker": False,
            "country": "FR",
        },
    ],
    toolkiln="""tool lead_score(
  company_size: integer,
  budget: number,
  industry: string,
  days_since_engagement: integer,
  source: string,
  is_decision_maker: boolean,
  pages_visited: integer,
  email_opens: integer,
  country: string,
)
description "Lead score from 0 to 100"
{
  if industry in ["gambling", "tobacco", "weapons"] {
    return 0
  }
  score = 0
  if company_size >= 1000 {
    score = score + 25
  } else if company_size >= 200 {
    score = score + 18
  } else if company_size >= 50 {
    score = score + 10
  } else if company_size >= 10 {
    score = score + 4
  }
  if budget >= 100000 {
    score = score + 25
  } else if budget >= 25000 {
    score = score + 15
  } else if budget >= 5000 {
    score = score + 5
  }
  if industry in ["fintech", "saas"] {
    score = score + 10
  } else if industry == "retail" {
    score = score + 5
  }
  if days_since_engagement <= 7 {
    score = score + 15
  } else if days_since_engagement <= 30 {
    score = score + 8
  } else if days_since_engagement > 90 {
    score = score - 10
  }
  if source in ["referral", "demo_request"] {
    score = score + 20
  } else if source == "webinar" {
    score = score + 10
  } else if source == "cold_list" {
    score = score - 5
  }
  if is_decision_maker {
    score = score + 10
  }
  if pages_visited >= 10 {
    score = score + 10
  } else if pages_visited >= 3 {
    score = score + 4
  }
  if email_opens >= 5 {
    score = score + 5
  }
  if country in ["DE", "AT", "CH"] {
    score = score + 5
  }
  return clamp(score, 0, 100)
}
""",
    python_expr="""0 if industry in ('gambling', 'tobacco', 'weapons') else max(0, min(100,
  (25 if company_size >= 1000 else 18 if company_size >= 200 else 10 if company_size >= 50
   else 4 if company_size >= 10 else 0)
  + (25 if budget >= 100000 else 15 if budget >= 25000 else 5 if budget >= 5000 else 0)
  + (10 if industry in ('fintech', 'saas') else 5 if industry == 'retail' else 0)
  + (15 if days_since_engagement <= 7 else 8 if days_since_engagement <= 30
     else -10 if days_since_engagement > 90 else 0)
  + (20 if source in ('referral', 'demo_request') else 10 if source == 'webinar'
     else -5 if source == 'cold_list' else 0)
  + (10 if is_decision_maker else 0)
  + (10 if pages_visited >= 10 else 4 if pages_visited >= 3 else 0)
  + (5 if email_opens >= 5 else 0)
  + (5 if country in ('DE', 'AT', 'CH') else 0)))""",
    asteval_code="",  # filled in below: the same expression
    cel="""industry in ["gambling", "tobacco", "weapons"] ? 0 : [
  (company_size >= 1000 ? 25 : company_size >= 200 ? 18 : company_size >= 50 ? 10
   : company_size >= 10 ? 4 : 0)
  + (double(budget) >= 100000.0 ? 25 : double(budget) >= 25000.0 ? 15 : double(budget) >= 5000.0 ? 5 : 0)
  + (industry in ["fintech", "saas"] ? 10 : industry == "retail" ? 5 : 0)
  + (days_since_engagement <= 7 ? 15 : days_since_engagement <= 30 ? 8
     : days_since_engagement > 90 ? -10 : 0)
  + (source in ["referral", "demo_request"] ? 20 : source == "webinar" ? 10 : source == "cold_list" ? -5 : 0)
  + (is_decision_maker ? 10 : 0)
  + (pages_visited >= 10 ? 10 : pages_visited >= 3 ? 4 : 0)
  + (email_opens >= 5 ? 5 : 0)
  + (country in ["DE", "AT", "CH"] ? 5 : 0)
].map(s, s > 100 ? 100 : (s < 0 ? 0 : s))[0]""",
    jsonlogic={
        "if": [
            {"in": [_v("industry"), ["gambling", "tobacco", "weapons"]]},
            0,
            {
                "max": [
                    0,
                    {
                        "min": [
                            100,
                            {
                                "+": [
                                    _tiers(">=", "company_size", [(1000, 25), (200, 18), (50, 10), (10, 4)], 0),
                                    _tiers(">=", "budget", [(100000, 25), (25000, 15), (5000, 5)], 0),
                                    {
                                        "if": [
                                            {"in": [_v("industry"), ["fintech", "saas"]]},
                                            10,
                                            {"==": [_v("industry"), "retail"]},
                                            5,
                                            0,
                                        ]
                                    },
                                    {
                                        "if": [
                                            {"<=": [_v("days_since_engagement"), 7]},
                                            15,
                                            {"<=": [_v("days_since_engagement"), 30]},
                                            8,
                                            {">": [_v("days_since_engagement"), 90]},
                                            -10,
                                            0,
                                        ]
                                    },
                                    {
                                        "if": [
                                            {"in": [_v("source"), ["referral", "demo_request"]]},
                                            20,
                                            {"==": [_v("source"), "webinar"]},
                                            10,
                                            {"==": [_v("source"), "cold_list"]},
                                            -5,
                                            0,
                                        ]
                                    },
                                    {"if": [_v("is_decision_maker"), 10, 0]},
                                    _tiers(">=", "pages_visited", [(10, 10), (3, 4)], 0),
                                    _tiers(">=", "email_opens", [(5, 5)], 0),
                                    {"if": [{"in": [_v("country"), ["DE", "AT", "CH"]]}, 5, 0]},
                                ]
                            },
                        ]
                    },
                ]
            },
        ]
    },
    simpleeval_compound=True,
    notes={"simpleeval": "host functions max(), min()", "cel-python": "map() as let for the clamp; double()"},
)
LEAD.asteval_code = LEAD.python_expr

WORKLOADS = [SHIPPING, INVOICE, LEAD]


# --- engines --------------------------------------------------------------------------------
# An engine's setup returns `run(args) -> result`, or raises Skip with the text for its row.


class Skip(Exception):
    """The row is not timed; the message says why (not installed, cannot express it, ...)."""


HUGE = toolkiln.Limits(
    max_operations=10**12, max_string_length=10**12, max_list_length=10**12, max_number_digits=1000, max_seconds=10**6
)


@dataclass
class Row:
    label: str
    setup: Callable[[Workload], Callable[[Any], Any]]
    args: str = "float"  # which argument set: float | int | decimal
    batch: bool = False  # run(rows) evaluates a batch; time is divided per row
    bound: bool = False  # ignores its argument (bound once): checked on the timing args only
    peer: str | None = None  # key into Workload.notes
    note: str = ""


def _version(*dists: str) -> str | None:
    for dist in dists:
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            continue
    return None


def setup_lambda(w: Workload) -> Callable:
    return w.python


def setup_lambda_decimal(w: Workload) -> Callable:
    decimal = w.python_decimal
    return lambda args: decimal(args, by_repr)


def setup_floor(w: Workload) -> Callable:
    decimal = w.python_decimal
    return lambda args: decimal(args, floor_number)


def setup_eval(w: Workload) -> Callable:
    code = compile(w.python_expr, f"<{w.name}>", "eval")
    namespace: dict[str, Any] = {"__builtins__": BUILTINS_FOR_EVAL}

    def run(args: dict, _eval: Callable = eval, _ns: dict = namespace, _code: Any = code) -> Any:
        _ns.update(args)
        return _eval(_code, _ns)

    return run


def setup_eval_text(w: Workload) -> Callable:
    namespace: dict[str, Any] = {"__builtins__": BUILTINS_FOR_EVAL}
    text = w.python_expr

    def run(args: dict, _eval: Callable = eval, _ns: dict = namespace) -> Any:
        _ns.update(args)
        return _eval(text, _ns)

    return run


def _simpleeval(w: Workload) -> Any:
    try:
        import simpleeval
    except ImportError:
        raise Skip("not installed (pip install simpleeval)") from None
    if w.simpleeval_compound:
        return simpleeval.EvalWithCompoundTypes(functions=dict(BUILTINS_FOR_EVAL))
    return simpleeval.SimpleEval(functions=dict(BUILTINS_FOR_EVAL))


def setup_simpleeval_parsed(w: Workload) -> Callable:
    evaluator = _simpleeval(w)
    expr = w.python_expr
    if not hasattr(evaluator, "parse"):
        raise Skip("this simpleeval has no parse(): needs simpleeval >= 0.9.13")
    parsed = evaluator.parse(expr)

    def run(args: dict) -> Any:
        evaluator.names = args
        return evaluator.eval(expr, previously_parsed=parsed)

    return run


def setup_simpleeval_text(w: Workload) -> Callable:
    evaluator = _simpleeval(w)
    expr = w.python_expr

    def run(args: dict) -> Any:
        evaluator.names = args
        return evaluator.eval(expr)

    return run


def setup_asteval(w: Workload) -> Callable:
    try:
        import asteval
    except ImportError:
        raise Skip("not installed (pip install asteval)") from None
    interpreter = asteval.Interpreter(use_numpy=False)
    node = interpreter.parse(w.asteval_code)
    symtable = interpreter.symtable

    def run(args: dict) -> Any:
        symtable.update(args)
        return interpreter.run(node)

    return run


def setup_cel(w: Workload) -> Callable:
    if w.cel is None:
        raise Skip("cannot express it")
    try:
        import celpy
        from celpy import celtypes
    except ImportError:
        raise Skip("not installed (pip install cel-python)") from None
    env = celpy.Environment()  # note: raises the process's recursion limit (cel-python does)

    def cel_sum(values: Any) -> Any:
        total = celtypes.DoubleType(0.0)
        for value in values:
            total = total + value
        return total

    program = env.program(env.compile(w.cel), functions={"sum": cel_sum})
    to_cel = celpy.json_to_cel

    def run(args: dict) -> Any:  # Python values -> CEL values is part of each evaluation
        return program.evaluate({name: to_cel(value) for name, value in args.items()})

    return run


# Every JsonLogic port installs the module `json_logic` with `jsonLogic(rule, data)`; the bench
# extra installs panzi-json-logic (lazy `if`/`and`/`or`, as json-logic-js).
JSONLOGIC_DISTS = ("panzi-json-logic", "json-logic-qubit", "json-logic-modernized", "json-logic")


def setup_jsonlogic(w: Workload) -> Callable:
    if w.jsonlogic is None:
        raise Skip("cannot express it")
    try:
        from json_logic import jsonLogic
    except ImportError:
        raise Skip("not installed (pip install panzi-json-logic)") from None
    rule = w.jsonlogic
    return lambda args: jsonLogic(rule, args)


def setup_toolkiln_jsonlogic(w: Workload, numbers: str = "exact") -> Callable:
    """The workload's JsonLogic rule imported as a toolkiln tool (toolkiln.import_jsonlogic):
    the same rule the JsonLogic port runs, its data given as the tool's `data`."""
    if w.jsonlogic is None:
        raise Skip("cannot express it")
    try:
        run = toolkiln.import_jsonlogic(w.jsonlogic, numbers=numbers).run  # type: ignore[arg-type]
    except toolkiln.Error as error:
        raise Skip(f"not imported: {error}") from None
    return lambda args: run({"data": args})


def setup_toolkiln_jsonlogic_float(w: Workload) -> Callable:
    return setup_toolkiln_jsonlogic(w, "float")


def _tool(w: Workload, limits: toolkiln.Limits | None = None) -> toolkiln.Tool:
    try:
        return toolkiln.compile(w.toolkiln, limits=limits)
    except toolkiln.Error as error:
        raise Skip(f"does not compile: {error}") from None


def setup_toolkiln(w: Workload) -> Callable:
    return _tool(w).run


def setup_toolkiln_huge(w: Workload) -> Callable:
    return _tool(w, HUGE).run


def setup_toolkiln_closures(w: Workload) -> Callable:
    """The compiled closures on a frame bound once (internals, for this measurement only):
    what a run costs without checking and converting its arguments."""
    program = _tool(w)._default
    if program.stateful:
        raise Skip("keeps per-run state (operation counter, clock): not measured without a run")
    frame: list[Any] = program.scope.run(program.bind, w.float_args)
    enter, body = program.scope.enter, program.body
    return lambda args: enter(body, frame)


def setup_floor_checked(w: Workload) -> Callable:
    """The floor after toolkiln's check of the lists of objects it binds as given (internals,
    for this measurement only; see lazy_items.py): work the floor does not do and toolkiln
    must (issue 16: "validate the rest without copying"). The floor converts what it reads, as
    toolkiln does."""
    tool = _tool(w)
    program = tool._default
    checks = [
        (p.name, binding(p, program.limits, lazy=True)) for p in tool.checked.parameters if p.name in program.exprs.lazy
    ]
    if not checks:
        raise Skip("no list checked whole: toolkiln converts each argument, as the floor does")
    floor = setup_floor(w)

    def run(args: dict) -> Any:
        for name, check in checks:
            check(args[name])
        return floor(args)

    return run


def setup_toolkiln_many(w: Workload) -> Callable:
    tool = _tool(w)
    if not hasattr(tool, "run_many"):
        raise Skip("this toolkiln has no Tool.run_many")
    return tool.run_many


JSONLOGIC_PORT = "JsonLogic"
JSONLOGIC_IMPORTS = {
    "exact": "toolkiln, the JsonLogic rule imported (exact decimals)",
    "float": "toolkiln, the JsonLogic rule imported (numbers=float)",
}
FLOOR = "Python function, hand-written, exact decimals (floats by scaling): the floor"
FLOOR_CHECKED = "the floor after toolkiln's check of the lists of objects (internal)"
REFERENCE = "CPython compile() once + eval(code, namespace) (reference)"
SIMPLEEVAL = "simpleeval, pre-parsed AST"
ROWS = [
    Row("Python function, hand-written (the limit)", setup_lambda),
    Row(
        "Python function, hand-written, exact decimals (floats by repr)",
        setup_lambda_decimal,
        note="no argument checks, no limits, the thread's own decimal context: what exactness costs",
    ),
    Row(
        FLOOR,
        setup_floor,
        note="toolkiln's float conversion, nothing else: the floor without generated code",
    ),
    Row(
        FLOOR_CHECKED,
        setup_floor_checked,
        note="each item's fields checked, as toolkiln's binder checks them: what the check costs",
    ),
    Row(REFERENCE, setup_eval),
    Row("CPython eval(text): parse + evaluate each time", setup_eval_text),
    Row(SIMPLEEVAL, setup_simpleeval_parsed, peer="simpleeval"),
    Row("simpleeval, parse + evaluate each time", setup_simpleeval_text, peer="simpleeval"),
    Row("asteval, .parse() once + .run()", setup_asteval, peer="asteval"),
    Row("cel-python, compile once + program.evaluate()", setup_cel, peer="cel-python"),
    Row(f"{JSONLOGIC_PORT} ({_version(*JSONLOGIC_DISTS) or 'no port installed'})", setup_jsonlogic, peer="JsonLogic"),
    Row(JSONLOGIC_IMPORTS["exact"], setup_toolkiln_jsonlogic, "float"),
    Row(JSONLOGIC_IMPORTS["float"], setup_toolkiln_jsonlogic_float, "float"),
    Row("toolkiln tool.run, float args", setup_toolkiln, "float"),
    Row("toolkiln tool.run, whole float args (12.0)", setup_toolkiln, "whole"),
    Row("toolkiln tool.run, int args", setup_toolkiln, "int"),
    Row("toolkiln tool.run, Decimal args", setup_toolkiln, "decimal"),
    Row("toolkiln tool.run_many, float args, per row", setup_toolkiln_many, "float", batch=True),
    Row(
        "toolkiln tool.run, float args, huge Limits",
        setup_toolkiln_huge,
        "float",
        note="budgets on in every toolkiln row; vs the float row: their size costs nothing",
    ),
    Row(
        "toolkiln closures only, arguments bound once (internal)",
        setup_toolkiln_closures,
        "float",
        bound=True,
        note="vs the float row: the cost of checking and converting arguments",
    ),
]


# --- checking -------------------------------------------------------------------------------


def _as_float(data: Any) -> Any:
    if isinstance(data, Decimal):
        return float(data)
    if isinstance(data, dict):
        return {k: _as_float(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_as_float(v) for v in data]
    return data


def _whole_floats(data: Any) -> Any:
    """Every int as a float (12 -> 12.0), as some JSON encoders send whole numbers."""
    if isinstance(data, int) and not isinstance(data, bool):
        return float(data)
    if isinstance(data, dict):
        return {k: _whole_floats(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_whole_floats(v) for v in data]
    return data


def _as_decimal(data: Any) -> Any:
    if isinstance(data, bool):
        return data
    if isinstance(data, (int, float)):
        return Decimal(repr(data))
    if isinstance(data, dict):
        return {k: _as_decimal(v) for k, v in data.items()}
    if isinstance(data, list):
        return [_as_decimal(v) for v in data]
    return data


def _agrees(got: Any, want: Any) -> bool:
    if isinstance(got, bool) or isinstance(want, bool):
        return got is want
    try:
        return math.isclose(float(got), float(want), rel_tol=REL_TOL, abs_tol=0.0)
    except (TypeError, ValueError):
        return False


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check(row: Row, run: Callable, w: Workload, timing_args: Any) -> None:
    """Raise Skip unless `run` agrees with the hand-written function on every argument set."""
    inputs = [_as_decimal(a) if row.args == "decimal" else a for a in w.checks]
    inputs = ([] if row.args in ("int", "whole") or row.bound else inputs) + [
        timing_args if not row.batch else timing_args[0]
    ]
    for args in inputs:
        want = w.python(_as_float(args))
        try:
            got = run([args])[0] if row.batch else run(args)
        except Exception as error:  # noqa: BLE001 - a peer's failure must not stop the benchmark
            raise Skip(f"error: {type(error).__name__}: {_short(str(error))}") from None
        if isinstance(got, Exception) or not _agrees(got, want):
            raise Skip(f"WRONG RESULT on {_short(args)}: got {_short(got)}, expected {want!r}")


# --- timing ---------------------------------------------------------------------------------


@dataclass
class Measured:
    row: Row
    run: Callable | None = None
    args: Any = None
    per_call: int = 1  # evaluations per call (the batch size for run_many)
    number: int = 1
    times: list[float] = field(default_factory=list)
    status: str = ""


def prepare(w: Workload, batch: int) -> list[Measured]:
    out = []
    for row in ROWS:
        m = Measured(row)
        args = {
            "float": w.float_args,
            "whole": _whole_floats(w.int_args),
            "int": w.int_args,
            "decimal": w.decimal_args,
        }[row.args]
        if row.batch:
            args, m.per_call = [args] * batch, batch
        try:
            run = row.setup(w)
            check(row, run, w, args)
        except Skip as skip:
            m.status = str(skip)
        except Exception as error:  # noqa: BLE001 - never crash on a peer
            m.status = f"error: {type(error).__name__}: {_short(str(error))}"
        else:
            m.run, m.args = run, args
        out.append(m)
    return out


def measure(measured: list[Measured], rounds: int, min_time: float) -> None:
    active = [m for m in measured if m.run is not None]
    for m in active:
        m.number = calibrate(m.run, m.args, min_time)
    for r in range(rounds):
        for i in range(len(active)):
            m = active[(i + r) % len(active)]  # each round starts with the next engine
            m.times.append(timed(m.run, m.args, m.number) / m.per_call)


# --- report ---------------------------------------------------------------------------------


def machine() -> str:
    cpu = platform.processor() or platform.machine() or "unknown CPU"
    return f"{platform.system()} {platform.release()}, {cpu}, {os.cpu_count()} CPUs"


def _us(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:,.2f}" if us < 100 else f"{us:,.0f}"


def table(w: Workload, measured: list[Measured]) -> list[str]:
    reference = next(m for m in measured if m.row.label == REFERENCE)
    base = spread(reference.times)[0] if reference.times else None
    lines = [
        f"### {w.title}",
        "",
        "| engine | median (us) | fastest - slowest (us) | x CPython eval | note |",
        "|---|---:|---:|---:|---|",
    ]
    for m in measured:
        note = "; ".join(x for x in (w.notes.get(m.row.peer or ""), m.row.note) if x)
        if not m.times:
            lines.append(f"| {m.row.label} | - | - | - | {m.status.replace('|', '/')} |")
            continue
        median, best, worst = spread(m.times)
        ratio = f"{median / base:,.2f}" if base else "-"
        lines.append(f"| {m.row.label} | {_us(median)} | {_us(best)} - {_us(worst)} | {ratio} | {note} |")
    return lines


# The speed issue's targets per workload: toolkiln (float args) within this many times the
# floor, and simpleeval (pre-parsed) at least this many times slower than toolkiln.
TARGETS = {"shipping": (1.3, 3.0), "invoice": (1.5, 5.0), "lead": (1.5, 5.0)}
ARGUMENT_ROWS = {
    "float": "toolkiln tool.run, float args",
    "int": "toolkiln tool.run, int args",
    "Decimal": "toolkiln tool.run, Decimal args",
}


def _median(m: Measured) -> float:
    return spread(m.times)[0]


def headline(w: Workload, measured: list[Measured]) -> str | None:
    """toolkiln / floor and simpleeval / toolkiln for float, int and Decimal arguments, against
    the workload's targets (the targets are set for float arguments, what json.loads gives);
    then the imported JsonLogic rule against the JsonLogic port (target: faster, below 1)."""
    by_label = {m.row.label: m for m in measured if m.times}
    floor, simpleeval, checked = by_label.get(FLOOR), by_label.get(SIMPLEEVAL), by_label.get(FLOOR_CHECKED)
    within, faster = TARGETS[w.name]
    lines = []
    for args, label in ARGUMENT_ROWS.items():
        tk = by_label.get(label)
        if tk is None or floor is None:
            continue
        text = f"{w.name}, {args} args: toolkiln / floor {_median(tk) / _median(floor):.2f}x (target <= {within})"
        if simpleeval is not None:
            text += f"; simpleeval / toolkiln {_median(simpleeval) / _median(tk):.2f}x (target >= {faster})"
        if checked is not None:
            text += f"; toolkiln / (floor + check) {_median(tk) / _median(checked):.2f}x"
        lines.append(text)
    port = next((m for label, m in by_label.items() if label.startswith(JSONLOGIC_PORT)), None)
    imported = [(mode, by_label.get(label)) for mode, label in JSONLOGIC_IMPORTS.items()]
    if port is not None and any(m for _, m in imported):
        ratios = ", ".join(f"{mode} {_median(m) / _median(port):.2f}x" for mode, m in imported if m is not None)
        lines.append(f"{w.name}, the JsonLogic rule imported / the JsonLogic port (medians): {ratios} (target < 1)")
    return "\n".join(lines) or None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="alternating rounds (the median and spread reported)")
    parser.add_argument("--min-time", type=float, default=0.1, help="seconds per timing of one engine")
    parser.add_argument("--batch", type=int, default=1000, help="rows per tool.run_many call")
    parser.add_argument(
        "--workload", choices=[w.name for w in WORKLOADS], action="append", help="only this workload (repeatable)"
    )
    parser.add_argument(
        "--rows", metavar="TEXT", help="only the rows whose label holds TEXT (and the reference): --rows JsonLogic"
    )
    options = parser.parse_args(argv)
    if options.rows:
        ROWS[:] = [row for row in ROWS if options.rows in row.label or row.label == REFERENCE]

    started = time.perf_counter()
    now = datetime.datetime.now().astimezone().strftime("%Y-%m-%d %H:%M %Z")
    print(
        f"toolkiln {toolkiln.__version__} vs peers - {now} - Python {platform.python_version()} "
        f"({platform.python_implementation()}) - {machine()}"
    )
    peers = [_version("simpleeval"), _version("asteval"), _version("cel-python"), _version(*JSONLOGIC_DISTS)]
    print("peers: " + ", ".join(p for p in peers if p) if any(peers) else "peers: none installed")
    print(
        f"{options.rounds} alternating rounds, each engine timed for >= {options.min_time} s per round "
        f"(gc off); median microseconds per evaluation, fastest and slowest round; ratios of medians"
    )
    print(
        f"results checked first against the hand-written Python function: exact decimals (toolkiln) vs "
        f"floats (peers) compared with a relative tolerance of {REL_TOL:g}"
    )
    print("float args = numbers as json.loads gives them (fractions float, counts int); peers get the float args\n")

    for w in WORKLOADS:
        if options.workload and w.name not in options.workload:
            continue
        measured = prepare(w, options.batch)
        measure(measured, options.rounds, options.min_time)
        print("\n".join(table(w, measured)))
        line = headline(w, measured)
        print(f"\n{line}\n" if line else "")
        sys.stdout.flush()
    print(f"total benchmark time: {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
