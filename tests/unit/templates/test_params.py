"""Each parameter type: the values it takes (and their normal form) and the ones it refuses."""

import pytest

from toolkiln.templates.params import TYPES

GOOD = [
    ("string", 'any text, even "quotes" and {{ braces }}', 'any text, even "quotes" and {{ braces }}'),
    ("string", "", ""),
    ("url", "https://crm.example.com/api", "https://crm.example.com/api"),
    ("url", "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"),
    ("time", "09:00", "09:00"),
    ("time", "23:59", "23:59"),
    ("timezone", "Europe/Madrid", "Europe/Madrid"),
    ("timezone", "UTC", "UTC"),
    ("integer", 3, 3),
    ("integer", "12", 12),
    ("integer", "-4", -4),
    ("credential", "CRM API (prod)", "CRM API (prod)"),
    ("path", "/order-status", "/order-status"),
    ("path", "orders/:id", "orders/:id"),
]

BAD = [
    ("string", 3, "expected text, got int"),
    ("url", "crm.example.com", "'crm.example.com' is not an http(s) base URL"),
    ("url", "ftp://crm.example.com", "is not an http(s) base URL"),
    ("url", "https://crm.example.com/{{ $env.KEY }}", "is not an http(s) base URL"),
    ("url", 'https://crm.example.com/" + body', "is not an http(s) base URL"),
    ("url", "https://crm.example.com/api?key=1", "is not an http(s) base URL"),
    ("url", "https://crm.example.com/a b", "is not an http(s) base URL"),
    ("time", "9am", "'9am' is not a time of day"),
    ("time", "24:00", "'24:00' is not a time of day"),
    ("time", "9:00", "'9:00' is not a time of day"),
    ("timezone", "Mars/Olympus", "'Mars/Olympus' is not an IANA timezone"),
    ("integer", "three", "'three' is not a whole number"),
    ("integer", 2.5, "2.5 is not a whole number"),
    ("integer", True, "True is not a whole number"),
    ("integer", 2**53 + 1, "larger than 2**53"),
    ("credential", "", "'' is not a credential name"),
    ("credential", "two\nlines", "is not a credential name"),
    ("credential", "x" * 129, "is not a credential name"),
    ("path", "/orders?x=1", "is not a webhook path"),
    ("path", "/a b", "is not a webhook path"),
]


@pytest.mark.parametrize(("type_name", "value", "normal"), GOOD)
def test_accepted_values_and_their_normal_form(type_name, value, normal):
    assert TYPES[type_name].check(value) == normal


@pytest.mark.parametrize(("type_name", "value", "message"), BAD)
def test_refused_values_say_why(type_name, value, message):
    with pytest.raises(ValueError) as error:
        TYPES[type_name].check(value)
    assert message in str(error.value)


def test_the_documented_types_exist():
    assert {"string", "url", "time", "timezone", "integer", "credential", "path"} == set(TYPES)
