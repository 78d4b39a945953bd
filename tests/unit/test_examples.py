"""The shipped examples: they check clean, are canonically formatted, and compute what their
descriptions promise.

Expected values are worked out independently of toolkiln: by hand (the arithmetic is in the
comments) or by small reference implementations below written with Python's `decimal` module.
"""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

import toolkiln
from toolkiln import RunError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
INVOICE = EXAMPLES / "invoice_total.json"
LATE_FEE = EXAMPLES / "late_fee.tk"
LEAD_SCORE = EXAMPLES / "lead_score.tk"
INDUSTRY_WEIGHTS = EXAMPLES / "industry_weights.csv"
MESSAGE = EXAMPLES / "customer_message.json"
COMMISSION = EXAMPLES / "sales_commission.json"
SHIPPING = EXAMPLES / "shipping_cost.json"
REMINDER = EXAMPLES / "payment_reminder.tk"
BREAKDOWN = EXAMPLES / "invoice_breakdown.tk"
ALL_EXAMPLES = [SHIPPING, INVOICE, LATE_FEE, LEAD_SCORE, MESSAGE, COMMISSION, REMINDER, BREAKDOWN]

CENT = Decimal("0.01")


def cents(value: Decimal) -> Decimal:
    """Commercial rounding to 2 decimals, as the examples promise (half away from zero)."""
    return value.quantize(CENT, rounding=ROUND_HALF_UP)


def run_error(tool: toolkiln.Tool, args: dict, **kwargs) -> RunError:
    with pytest.raises(RunError) as caught:
        tool.run(args, **kwargs)
    return caught.value


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "toolkiln", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60
    )


def cli_run(path: Path, args: dict, *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("run", str(path), "--args", json.dumps(args), *extra)


# --- every example --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: p.name)
def test_example_compiles_without_diagnostics(path: Path) -> None:
    assert toolkiln.check(path) == []
    tool = toolkiln.compile(path)
    assert tool.warnings == []


@pytest.mark.parametrize("path", ALL_EXAMPLES, ids=lambda p: p.name)
def test_example_survives_text_json_round_trip(path: Path) -> None:
    """The text and JSON forms of an example describe the same program."""
    as_json = toolkiln.to_json(path)
    as_text = toolkiln.to_text(path)
    assert toolkiln.to_json(as_text) == as_json
    assert toolkiln.to_text(as_json) == as_text
    assert toolkiln.check(as_text) == [] and toolkiln.check(as_json) == []


def test_cli_check_reports_no_errors_and_no_warnings() -> None:
    result = cli("check", "examples/")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().endswith(": 0 error(s), 0 warning(s)")
    assert "error[" not in result.stdout and "warning[" not in result.stdout


def test_cli_fmt_check_finds_nothing_to_change() -> None:
    result = cli("fmt", "--check", "examples/")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout == ""


# --- invoice_total ----------------------------------------------------------------------------


def reference_invoice(items: list[dict], tax_rate: str | Decimal = "0") -> Decimal:
    subtotal = sum((Decimal(str(i["price"])) * Decimal(str(i["qty"])) for i in items), Decimal(0))
    if subtotal >= 1000:
        discount = Decimal("0.10")
    elif subtotal >= 500:
        discount = Decimal("0.05")
    else:
        discount = Decimal(0)
    net = subtotal * (1 - discount)
    return cents(net + net * Decimal(str(tax_rate)))


@pytest.fixture(scope="module")
def invoice() -> toolkiln.Tool:
    return toolkiln.compile(INVOICE)


def test_invoice_mixed_items_with_tax(invoice: toolkiln.Tool) -> None:
    items = [{"price": 19.99, "qty": 3}, {"price": 450, "qty": 1}]
    # subtotal 59.97 + 450 = 509.97 -> 5% tier: 484.4715; tax 19%: 92.049585; total 576.521085
    assert invoice.run({"items": items, "tax_rate": 0.19}) == Decimal("576.52")
    assert reference_invoice(items, "0.19") == Decimal("576.52")


def test_invoice_empty_item_list_is_zero(invoice: toolkiln.Tool) -> None:
    assert invoice.run({"items": []}) == Decimal("0")
    assert invoice.run({"items": [], "tax_rate": 0.25}) == Decimal("0")


def test_invoice_tax_rate_defaults_to_zero(invoice: toolkiln.Tool) -> None:
    assert invoice.run({"items": [{"price": 12.5, "qty": 4}]}) == Decimal("50")


@pytest.mark.parametrize(
    ("price", "expected"),
    [
        ("499.99", "499.99"),  # just under the first tier: no discount
        ("500", "475.00"),  # 500 * 0.95
        ("500.01", "475.01"),  # 475.0095 -> 475.01
        ("999.99", "949.99"),  # 949.9905 -> 949.99
        ("1000", "900.00"),  # 1000 * 0.90
        ("1000.01", "900.01"),  # 900.009 -> 900.01
    ],
)
def test_invoice_discount_tier_boundaries(invoice: toolkiln.Tool, price: str, expected: str) -> None:
    items = [{"price": Decimal(price), "qty": 1}]
    assert invoice.run({"items": items}) == Decimal(expected)
    assert reference_invoice(items) == Decimal(expected)


def test_invoice_tier_uses_the_sum_of_all_lines(invoice: toolkiln.Tool) -> None:
    # 4 x 125 = 500 reaches the 5% tier only together: 500 * 0.95 = 475; with 10% tax 522.50
    items = [{"price": 125, "qty": 2}, {"price": 125, "qty": 2}]
    assert invoice.run({"items": items, "tax_rate": 0.1}) == Decimal("522.50")


def test_invoice_top_tier_with_tax(invoice: toolkiln.Tool) -> None:
    # 1000 * 0.9 = 900; 900 * 1.19 = 1071
    assert invoice.run({"items": [{"price": 250, "qty": 4}], "tax_rate": 0.19}) == Decimal("1071.00")


def test_invoice_rounds_half_up_on_exact_decimals(invoice: toolkiln.Tool) -> None:
    # 2.675 is exact here (a float means what it prints as): half up gives 2.68, where
    # Python's float round(2.675, 2) gives 2.67.
    assert invoice.run({"items": [{"price": 2.675, "qty": 1}]}) == Decimal("2.68")
    # 0.1 * 3 is exactly 0.3, not 0.30000000000000004
    assert invoice.run({"items": [{"price": 0.1, "qty": 3}]}) == Decimal("0.30")
    # a fractional quantity: 3.49 * 1.5 = 5.235 -> 5.24
    assert invoice.run({"items": [{"price": 3.49, "qty": 1.5}]}) == Decimal("5.24")


def test_invoice_many_lines_match_reference(invoice: toolkiln.Tool) -> None:
    items = [{"price": Decimal(f"{n}.{n % 100:02d}"), "qty": n % 7 + 1} for n in range(1, 60)]
    for tax in ("0", "0.07", "0.19", "0.255"):
        assert invoice.run({"items": items, "tax_rate": Decimal(tax)}) == reference_invoice(items, tax)


def test_invoice_bad_items(invoice: toolkiln.Tool) -> None:
    assert run_error(invoice, {"items": [{"price": 10}]}).code == "E0510"  # no qty
    assert run_error(invoice, {"items": [{"price": "10", "qty": 1}]}).code == "E0509"
    assert run_error(invoice, {"items": [1, 2]}).code == "E0508"  # not objects
    assert run_error(invoice, {"items": "10 x 2"}).code == "E0508"
    assert run_error(invoice, {}).code == "E0508"  # missing items


def test_invoice_cli() -> None:
    ok = cli_run(INVOICE, {"items": [{"price": 19.99, "qty": 3}, {"price": 450, "qty": 1}], "tax_rate": 0.19})
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "576.52\n", "")
    bad = cli_run(INVOICE, {"items": [{"price": 10, "qty": 1}], "tax_rate": "19%"})
    assert bad.returncode == 1
    assert "E0508" in bad.stderr and bad.stdout == ""


# --- late_fee ---------------------------------------------------------------------------------


def reference_late_fee(
    days: int, amount: str, grace: int = 5, daily: str = "0.001", min_fee: str = "15", cap_rate: str = "0.1"
) -> Decimal:
    if days <= grace:
        return Decimal(0)
    fee = Decimal(amount) * Decimal(daily) * (days - grace)
    fee = max(fee, Decimal(min_fee))
    fee = min(fee, Decimal(amount) * Decimal(cap_rate))
    return cents(fee)


@pytest.fixture(scope="module")
def late_fee() -> toolkiln.Tool:
    return toolkiln.compile(LATE_FEE)


@pytest.mark.parametrize("days", [-30, -1, 0, 1, 4, 5])
def test_late_fee_is_zero_within_grace(late_fee: toolkiln.Tool, days: int) -> None:
    assert late_fee.run({"days_overdue": days, "amount": 1200}) == Decimal(0)


@pytest.mark.parametrize(
    ("days", "amount", "expected"),
    [
        (6, 1000, "15.00"),  # 1 day: 1000 * 0.001 * 1 = 1, raised to the 15 minimum
        (6, 100, "10.00"),  # minimum 15, but the cap is 10% of 100 = 10: the cap wins
        (20, 1000, "15.00"),  # 15 days * 1.00 = 15: exactly the minimum
        (21, 1000, "16.00"),  # 16 days * 1.00
        (30, 1200, "30.00"),  # 25 days * 1.20
        (30, "1234.56", "30.86"),  # 25 * 1.23456 = 30.864
        (105, 1000, "100.00"),  # 100 days * 1.00 = 100 = exactly the cap
        (106, 1000, "100.00"),  # 101 -> capped at 100
        (10_000, 1200, "120.00"),  # far past: capped at 10% of 1200
        (50, "333.33", "15.00"),  # 45 * 0.33333 = 14.99985 -> minimum 15
    ],
)
def test_late_fee_rate_minimum_and_cap(late_fee: toolkiln.Tool, days: int, amount, expected: str) -> None:
    amount = Decimal(str(amount))
    assert late_fee.run({"days_overdue": days, "amount": amount}) == Decimal(expected)
    assert reference_late_fee(days, str(amount)) == Decimal(expected)


def test_late_fee_custom_terms(late_fee: toolkiln.Tool) -> None:
    args = {
        "days_overdue": 10,
        "amount": 5000,
        "grace_days": 0,
        "daily_rate": 0.0015,
        "min_fee": 0,
        "max_fee_rate": 0.05,
    }
    # 10 days * 5000 * 0.0015 = 75; cap 250
    assert late_fee.run(args) == Decimal("75.00")
    assert late_fee.run({**args, "days_overdue": 0}) == Decimal(0)  # grace 0: day 0 is free
    assert late_fee.run({**args, "days_overdue": 1}) == Decimal("7.50")  # 5000 * 0.0015
    assert late_fee.run({**args, "days_overdue": 40}) == Decimal("250.00")  # 300 -> cap 250
    assert late_fee.run({**args, "days_overdue": 14, "grace_days": 14}) == Decimal(0)
    assert late_fee.run({**args, "days_overdue": 15, "grace_days": 14}) == Decimal("7.50")


def test_late_fee_matches_reference_on_a_grid(late_fee: toolkiln.Tool) -> None:
    for days in range(-2, 160, 7):
        for amount in ("49.99", "100", "250.50", "999.99", "15000"):
            assert late_fee.run({"days_overdue": days, "amount": Decimal(amount)}) == reference_late_fee(
                days, amount
            ), (days, amount)


def test_late_fee_days_must_be_whole(late_fee: toolkiln.Tool) -> None:
    assert late_fee.run({"days_overdue": 6.0, "amount": 1000}) == Decimal("15.00")
    assert run_error(late_fee, {"days_overdue": 6.5, "amount": 1000}).code == "E0508"
    assert run_error(late_fee, {"days_overdue": True, "amount": 1000}).code == "E0508"


def test_late_fee_cli() -> None:
    ok = cli_run(LATE_FEE, {"days_overdue": 30, "amount": 1200})
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "30.00\n", "")
    bad = cli_run(LATE_FEE, {"days_overdue": "30", "amount": 1200})
    assert bad.returncode == 1
    assert "E0508" in bad.stderr and bad.stdout == ""


def test_integer_parameter_takes_a_whole_number_default() -> None:
    """`grace_days: integer = 5`: a whole-number literal is a valid default of an `integer`
    parameter (once reported E0307), and a fractional argument for it is refused."""
    assert "grace_days: integer = 5" in LATE_FEE.read_text(encoding="utf-8")
    assert toolkiln.check(LATE_FEE) == []
    tool = toolkiln.compile(LATE_FEE)
    assert tool.run({"days_overdue": 5, "amount": 1000}) == Decimal(0)
    with pytest.raises(toolkiln.RunError) as caught:
        tool.run({"days_overdue": 30, "amount": 1200, "grace_days": 2.5})
    assert caught.value.code == "E0508"


# --- lead_score -------------------------------------------------------------------------------


def read_weights() -> dict[str, Decimal]:
    with INDUSTRY_WEIGHTS.open(newline="", encoding="utf-8") as handle:
        return {row["industry"]: Decimal(row["weight"]) for row in csv.DictReader(handle)}


def reference_lead_score(
    company_size: int,
    budget: int,
    industry: str,
    days_since_engagement: int,
    source: str,
    is_decision_maker: bool = False,
) -> Decimal:
    if industry in ("gambling", "tobacco", "weapons"):
        return Decimal(0)
    size_points = next((p for floor, p in ((1000, 25), (200, 18), (50, 10), (10, 4)) if company_size >= floor), 0)
    budget_points = next((p for floor, p in ((100_000, 25), (25_000, 15), (5_000, 5)) if budget >= floor), 0)
    days = days_since_engagement
    engagement = 15 if days <= 7 else 8 if days <= 30 else -10 if days > 90 else 0
    source_points = {"referral": 20, "demo_request": 20, "webinar": 10, "cold_list": -5}.get(source, 0)
    score = (
        size_points
        + budget_points
        + read_weights().get(industry, Decimal(0))
        + engagement
        + source_points
        + (10 if is_decision_maker else 0)
    )
    return min(max(Decimal(score), Decimal(0)), Decimal(100))


@pytest.fixture(scope="module")
def lead_score() -> toolkiln.Tool:
    return toolkiln.compile(LEAD_SCORE, tables=toolkiln.load_table_file(INDUSTRY_WEIGHTS))


BASE_LEAD = {
    "company_size": 250,
    "budget": 30_000,
    "industry": "software",
    "days_since_engagement": 3,
    "source": "referral",
}


def test_lead_score_typical_lead(lead_score: toolkiln.Tool) -> None:
    # size 250 -> 18, budget 30,000 -> 15, software 20, engaged 3 days ago 15, referral 20 = 88
    assert lead_score.run(BASE_LEAD) == Decimal(88)
    assert reference_lead_score(**BASE_LEAD) == Decimal(88)


def test_lead_score_clamps_at_100(lead_score: toolkiln.Tool) -> None:
    # 25 + 25 + 20 + 15 + 20 + 10 = 115 -> 100
    lead = {
        "company_size": 5000,
        "budget": 500_000,
        "industry": "software",
        "days_since_engagement": 0,
        "source": "demo_request",
        "is_decision_maker": True,
    }
    assert lead_score.run(lead) == Decimal(100)


def test_lead_score_clamps_at_0(lead_score: toolkiln.Tool) -> None:
    # size 3 -> 0, budget 1,000 -> 0, unknown industry 0, 200 days -> -10, cold list -5 = -15 -> 0
    lead = {
        "company_size": 3,
        "budget": 1000,
        "industry": "agriculture",
        "days_since_engagement": 200,
        "source": "cold_list",
    }
    assert lead_score.run(lead) == Decimal(0)


@pytest.mark.parametrize("industry", ["gambling", "tobacco", "weapons"])
def test_lead_score_excluded_industries_score_0(lead_score: toolkiln.Tool, industry: str) -> None:
    lead = {**BASE_LEAD, "company_size": 5000, "budget": 10**6, "industry": industry, "is_decision_maker": True}
    assert lead_score.run(lead) == Decimal(0)


@pytest.mark.parametrize(
    ("size", "points"),
    [(0, 0), (9, 0), (10, 4), (49, 4), (50, 10), (199, 10), (200, 18), (999, 18), (1000, 25), (100_000, 25)],
)
def test_lead_score_company_size_tiers(lead_score: toolkiln.Tool, size: int, points: int) -> None:
    # with a neutral rest: budget 0, unknown industry, 60 days, organic source -> only size counts
    lead = {"company_size": size, "budget": 0, "industry": "other", "days_since_engagement": 60, "source": "organic"}
    assert lead_score.run(lead) == Decimal(points)


@pytest.mark.parametrize(
    ("budget", "points"), [(0, 0), (4999.99, 0), (5000, 5), (24_999, 5), (25_000, 15), (99_999.99, 15), (100_000, 25)]
)
def test_lead_score_budget_tiers(lead_score: toolkiln.Tool, budget, points: int) -> None:
    lead = {"company_size": 1, "budget": budget, "industry": "other", "days_since_engagement": 60, "source": "organic"}
    assert lead_score.run(lead) == Decimal(points)


@pytest.mark.parametrize(("days", "points"), [(0, 15), (7, 15), (8, 8), (30, 8), (31, 0), (90, 0), (91, -10)])
def test_lead_score_engagement_recency(lead_score: toolkiln.Tool, days: int, points: int) -> None:
    # base without engagement: 18 + 15 + 20 + 20 = 73
    assert lead_score.run({**BASE_LEAD, "days_since_engagement": days}) == Decimal(73 + points)


@pytest.mark.parametrize(
    ("source", "points"),
    [("referral", 20), ("demo_request", 20), ("webinar", 10), ("organic", 0), ("paid_ads", 0), ("cold_list", -5)],
)
def test_lead_score_sources(lead_score: toolkiln.Tool, source: str, points: int) -> None:
    # base without source: 18 + 15 + 20 + 15 = 68
    assert lead_score.run({**BASE_LEAD, "source": source}) == Decimal(68 + points)


@pytest.mark.parametrize(
    ("industry", "points"),
    [
        ("software", 20),
        ("fintech", 18),
        ("healthcare", 15),
        ("manufacturing", 12),
        ("logistics", 10),
        ("retail", 8),
        ("education", 5),
        ("agriculture", 0),
        ("Software", 0),
    ],
)
def test_lead_score_industry_weights_from_csv(lead_score: toolkiln.Tool, industry: str, points: int) -> None:
    # base without industry: 18 + 15 + 15 + 20 = 68; unknown (and wrongly cased) industries get 0
    assert lead_score.run({**BASE_LEAD, "industry": industry}) == Decimal(68 + points)


def test_lead_score_decision_maker_bonus(lead_score: toolkiln.Tool) -> None:
    assert lead_score.run({**BASE_LEAD, "is_decision_maker": True}) == Decimal(98)
    assert lead_score.run({**BASE_LEAD, "is_decision_maker": False}) == Decimal(88)


def test_lead_score_matches_reference_on_a_grid(lead_score: toolkiln.Tool) -> None:
    for size in (5, 60, 300, 2000):
        for budget in (1000, 10_000, 50_000, 150_000):
            for industry in ("fintech", "retail", "mining", "tobacco"):
                for days in (2, 20, 60, 120):
                    for source in ("webinar", "cold_list"):
                        lead = {
                            "company_size": size,
                            "budget": budget,
                            "industry": industry,
                            "days_since_engagement": days,
                            "source": source,
                            "is_decision_maker": size > 100,
                        }
                        assert lead_score.run(lead) == reference_lead_score(**lead), lead


def test_lead_score_needs_its_table() -> None:
    tool = toolkiln.compile(LEAD_SCORE)
    assert run_error(tool, BASE_LEAD).code == "E0512"
    assert tool.run(BASE_LEAD, tables={"industry_weights": {"software": 1}}) == Decimal(69)


def test_lead_score_cli() -> None:
    ok = cli_run(LEAD_SCORE, BASE_LEAD, "--tables", str(INDUSTRY_WEIGHTS))
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "88\n", "")
    bad = cli_run(LEAD_SCORE, {**BASE_LEAD, "company_size": "250"}, "--tables", str(INDUSTRY_WEIGHTS))
    assert bad.returncode == 1
    assert "E0508" in bad.stderr and bad.stdout == ""
    missing = cli_run(LEAD_SCORE, BASE_LEAD)
    assert missing.returncode == 1 and "E0512" in missing.stderr


# --- customer_message -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def message() -> toolkiln.Tool:
    return toolkiln.compile(MESSAGE)


ORDER = {"customer_name": "Ada", "order_id": "A-1001", "amount": 1234.5}


def test_message_shipped_with_tracking(message: toolkiln.Tool) -> None:
    result = message.run({**ORDER, "status": "shipped", "tracking_code": "1Z999AA10123456784"})
    assert result == ("Hi Ada, your order #A-1001 (1234.50 EUR) has shipped. Tracking code: 1Z999AA10123456784.")


def test_message_shipped_without_tracking(message: toolkiln.Tool) -> None:
    expected = "Hi Ada, your order #A-1001 (1234.50 EUR) has shipped. We will send the tracking code soon."
    assert message.run({**ORDER, "status": "shipped"}) == expected
    assert message.run({**ORDER, "status": "shipped", "tracking_code": "   "}) == expected


def test_message_delivered(message: toolkiln.Tool) -> None:
    assert (
        message.run({**ORDER, "status": "delivered"})
        == "Hi Ada, your order #A-1001 has been delivered. Thank you for shopping with us!"
    )


def test_message_cancelled(message: toolkiln.Tool) -> None:
    assert (
        message.run({**ORDER, "status": "cancelled", "currency": "USD"})
        == "Hi Ada, your order #A-1001 was cancelled. A refund of 1234.50 USD is on its way."
    )


@pytest.mark.parametrize("status", ["pending", "processing", "", "canceled"])
def test_message_any_other_status_is_acknowledged(message: toolkiln.Tool, status: str) -> None:
    assert (
        message.run({**ORDER, "status": status})
        == "Hi Ada, we have received your order #A-1001 (1234.50 EUR) and are preparing it."
    )


def test_message_normalises_status_and_name(message: toolkiln.Tool) -> None:
    result = message.run({**ORDER, "customer_name": "  Grace ", "status": "  SHIPPED\n", "tracking_code": " TRK-1 "})
    assert result == "Hi Grace, your order #A-1001 (1234.50 EUR) has shipped. Tracking code: TRK-1."
    assert message.run({**ORDER, "status": "Delivered"}).endswith("has been delivered. Thank you for shopping with us!")


@pytest.mark.parametrize(
    ("amount", "shown"),
    [
        (0, "0.00"),
        (19.9, "19.90"),
        (10.005, "10.01"),  # half up, on the exact decimal 10.005
        (2.675, "2.68"),  # float 2.675 means 2.675 here; Python's f"{2.675:.2f}" gives 2.67
        (Decimal("99.994"), "99.99"),
        (1_000_000, "1000000.00"),  # `.2f` has no thousands separator
    ],
)
def test_message_amount_has_two_decimals(message: toolkiln.Tool, amount, shown: str) -> None:
    assert (
        message.run({**ORDER, "amount": amount, "status": "cancelled"})
        == f"Hi Ada, your order #A-1001 was cancelled. A refund of {shown} EUR is on its way."
    )


def test_message_bad_arguments(message: toolkiln.Tool) -> None:
    assert run_error(message, {**ORDER, "amount": "12.00", "status": "shipped"}).code == "E0508"
    assert run_error(message, {**ORDER, "status": None}).code == "E0508"
    assert run_error(message, {**ORDER, "status": "shipped", "trackingcode": "X"}).code == "E0508"
    assert run_error(message, ORDER).code == "E0508"  # no status


def test_message_cli() -> None:
    ok = cli_run(MESSAGE, {**ORDER, "status": "shipped", "tracking_code": "1Z999"})
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout) == "Hi Ada, your order #A-1001 (1234.50 EUR) has shipped. Tracking code: 1Z999."
    bad = cli_run(MESSAGE, {**ORDER, "order_id": 1001, "status": "shipped"})
    assert bad.returncode == 1
    assert "E0508" in bad.stderr and bad.stdout == ""


# --- sales_commission (bare logic: parameters inferred) ----------------------------------------


@pytest.fixture(scope="module")
def commission() -> toolkiln.Tool:
    return toolkiln.compile(COMMISSION)


def test_commission_parameters_are_inferred_as_numbers(commission: toolkiln.Tool) -> None:
    assert commission.parameters["properties"] == {"quota": {"type": "number"}, "sales": {"type": "number"}}
    assert sorted(commission.parameters["required"]) == ["quota", "sales"]


@pytest.mark.parametrize(
    ("sales", "quota", "expected"),
    [
        ("50000", "100000", "3000.00"),  # 50% of quota: 6%
        ("99999.99", "100000", "5999.9994"),  # just under quota: 6% -> 5999.9994 rounds to 6000.00
        ("100000", "100000", "10000.00"),  # exactly quota: 10%
        ("119999.99", "100000", "11999.999"),  # just under 120%: 10% -> 12000.00
        ("120000", "100000", "14400.00"),  # exactly 120%: 12%
        ("300000", "100000", "25000.00"),  # 36,000 capped at 25,000
        ("40000", "0", "2400.00"),  # no quota: attainment 0, 6%
        ("0", "50000", "0.00"),
    ],
)
def test_commission_rate_tiers_and_cap(commission: toolkiln.Tool, sales: str, quota: str, expected: str) -> None:
    assert commission.run({"sales": Decimal(sales), "quota": Decimal(quota)}) == cents(Decimal(expected))


def test_commission_cli() -> None:
    ok = cli_run(COMMISSION, {"sales": 120000, "quota": 100000})
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "14400.00\n", "")
    bad = cli_run(COMMISSION, {"sales": "120k", "quota": 100000})
    assert bad.returncode == 1
    assert "E0508" in bad.stderr and bad.stdout == ""


# --- shipping_cost (the original example) --------------------------------------------------


@pytest.mark.parametrize(
    ("weight", "expected"),
    [
        (0, "5"),  # 0 * 2.5 + 5
        (10, "30"),  # 10 * 2.5 + 5 = 30: not above 10 kg, no discount
        (10.5, "28.125"),  # (26.25 + 5) * 0.9
        (12, "31.5"),  # (30 + 5) * 0.9
    ],
)
def test_shipping_cost(weight, expected: str) -> None:
    assert toolkiln.compile(SHIPPING).run({"weight_kg": weight}) == Decimal(expected)


def test_shipping_cost_cli() -> None:
    ok = cli_run(SHIPPING, {"weight_kg": 12})
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "31.500\n", "")
    bad = cli_run(SHIPPING, {"weight_kg": "12"})
    assert bad.returncode == 1
    assert "E0508" in bad.stderr and bad.stdout == ""


# --- payment_reminder -------------------------------------------------------------------------


def reference_reminder(issued: date, payment_days: int, today: date) -> tuple[date, int, str]:
    due = issued + timedelta(days=payment_days)
    overdue = (today - due).days
    level = "final" if overdue > 30 else "firm" if overdue > 14 else "friendly" if overdue > 0 else "none"
    return due, overdue, level


@pytest.mark.parametrize(
    ("now", "berlin_today"),
    [
        (datetime(2026, 2, 9, 23, 30, tzinfo=UTC), date(2026, 2, 10)),  # already the 10th in Berlin
        (datetime(2026, 1, 10, 12, 0, tzinfo=UTC), date(2026, 1, 10)),
        (datetime(2026, 1, 20, 0, 0, tzinfo=UTC), date(2026, 1, 20)),
        (datetime(2026, 2, 3, 22, 59, tzinfo=UTC), date(2026, 2, 3)),  # 23:59 in Berlin: still the 3rd
        (datetime(2026, 3, 1, 8, 0, tzinfo=UTC), date(2026, 3, 1)),
    ],
)
def test_reminder_levels_by_the_days_overdue_in_the_customers_zone(now: datetime, berlin_today: date) -> None:
    issued = date(2026, 1, 5)
    due, overdue, level = reference_reminder(issued, 14, berlin_today)
    result = toolkiln.compile(REMINDER).run({"invoice_number": "A-1", "issued": "2026-01-05"}, clock=now)
    assert result[:3] == [due, overdue, level]
    if overdue > 0:
        assert result[3] == f"Invoice A-1 was due on 19 January 2026: {overdue} day(s) ago."
    else:
        assert result[3] == "Invoice A-1 is due on 19 January 2026."


def test_reminder_from_the_command_line_with_a_fixed_now() -> None:
    args = {"invoice_number": "2026-0042", "issued": "2026-01-05", "zone": "America/New_York"}
    result = cli_run(REMINDER, args, "--now", "2026-02-05T03:00:00Z")  # still the 4th in New York
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [
        "2026-01-19",
        16,
        "firm",
        "Invoice 2026-0042 was due on 19 January 2026: 16 day(s) ago.",
    ]


# --- invoice_breakdown (records, group_by, count_if) ----------------------------------------


def reference_breakdown(lines: list[dict], vat_rate: Decimal) -> dict:
    """The promise of invoice_breakdown.tk, computed with Python's decimal module and dicts."""
    priced = [
        {
            "sku": line["sku"],
            "category": line["category"],
            "net": cents(Decimal(line["qty"]) * Decimal(str(line["price"]))),
        }
        for line in lines
    ]
    totals: dict[str, Decimal] = {}
    for p in priced:
        totals[p["category"]] = totals.get(p["category"], Decimal(0)) + p["net"]
    net = sum((p["net"] for p in priced), Decimal(0))
    vat = cents(net * vat_rate)
    return {
        "lines": priced,
        "categories": [{"category": c, "net": t} for c, t in totals.items()],
        "bulk_lines": sum(1 for line in lines if line["qty"] >= 10),
        "net": net,
        "vat": vat,
        "gross": net + vat,
    }


BREAKDOWN_LINES = [
    {"sku": "A-1", "category": "paper", "qty": 3, "price": 19.99},
    {"sku": "B-7", "category": "ink", "qty": 12, "price": 4.75},
    {"sku": "A-2", "category": "paper", "qty": 1, "price": 450},
    {"sku": "C-3", "category": "toner", "qty": 10, "price": 0.125},
]


def test_invoice_breakdown_matches_the_reference() -> None:
    tool = toolkiln.compile(BREAKDOWN)
    for lines, rate in [
        (BREAKDOWN_LINES, Decimal("0.19")),
        (BREAKDOWN_LINES[:1], Decimal("0.07")),
        ([], Decimal("0.19")),
    ]:
        assert tool.run({"lines": lines, "vat_rate": rate}) == reference_breakdown(lines, rate), (lines, rate)
    result_schema = tool.result_schema
    assert result_schema["required"] == ["lines", "categories", "bulk_lines", "net", "vat", "gross"]
    assert result_schema["properties"]["categories"]["items"]["properties"] == {
        "category": {"type": "string"},
        "net": {"type": "number"},
    }


def test_invoice_breakdown_refuses_a_line_without_a_price() -> None:
    tool = toolkiln.compile(BREAKDOWN)
    error = run_error(tool, {"lines": [{"sku": "A", "category": "x", "qty": 1, "prise": 2}]})
    assert (error.code, error.hint) == ("E0508", "did you mean `prise`?")


def test_invoice_breakdown_cli_keeps_the_cents() -> None:
    ok = cli_run(BREAKDOWN, {"lines": BREAKDOWN_LINES[1:2]})
    expected = (
        '{"lines": [{"sku": "B-7", "category": "ink", "net": 57.00}], "categories": [{"category": "ink", '
        '"net": 57.00}], "bulk_lines": 1, "net": 57.00, "vat": 10.83, "gross": 67.83}\n'
    )
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, expected, "")
