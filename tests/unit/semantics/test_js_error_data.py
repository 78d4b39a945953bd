"""js_error_data: what JsonLogic's `try` hands its next alternative after a failure (the
suites' error objects: what was thrown, or the engine's name for the failure)."""

from __future__ import annotations

from toolkiln.diagnostics import codes
from toolkiln.semantics.builtins import BUILTINS
from toolkiln.semantics.limits import Limits


def js_error_data(error: dict) -> object:
    return BUILTINS["js_error_data"].impl(Limits(), error)


def test_a_thrown_object_is_handed_on_as_it_was_and_a_thrown_text_as_its_type():
    thrown = codes.JSONLOGIC_THROWN.code
    assert js_error_data({"code": thrown, "value": {"type": "Some error", "at": 2}}) == {"type": "Some error", "at": 2}
    assert js_error_data({"code": thrown, "value": "Some error"}) == {"type": "Some error"}


def test_an_engine_failure_is_named_as_the_suites_name_it():
    assert js_error_data({"code": codes.JSONLOGIC_NAN.code}) == {"type": "NaN"}
    assert js_error_data({"code": codes.JSONLOGIC_INVALID_ARGUMENTS.code}) == {"type": "Invalid Arguments"}
    assert js_error_data({"code": "E0503"}) == {"type": "E0503"}
