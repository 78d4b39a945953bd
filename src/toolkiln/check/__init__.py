"""Static checking: names, flow and types. Returns diagnostics, never raises."""

from toolkiln.check.checker import CheckResult, ParamInfo, ToolSignature, check_program

__all__ = ["CheckResult", "ParamInfo", "ToolSignature", "check_program"]
