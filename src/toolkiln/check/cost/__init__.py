"""The static cost bound of compute tools (see analysis.py, and docs/approval.md)."""

from toolkiln.check.cost.analysis import NoBound
from toolkiln.check.cost.bound import CostBound, cost_bound, measure
from toolkiln.check.cost.poly import Poly, Size

__all__ = ["CostBound", "NoBound", "Poly", "Size", "cost_bound", "measure"]
