"""Records: literals `{"net": net}`, record types and their fields (E0112-E0115, E0320-E0329)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

DUPLICATE_KEY = register(
    "E0112",
    "duplicate-key",
    "A key given twice in a record",
    """
A record literal or a record type names the same key twice. Each key is given once:

    return {"net": net, "net": gross}        # error: `net` twice
    return {"net": net, "gross": gross}      # fine
""",
)

UNKNOWN_RECORD_FIELD = register(
    "E0320",
    "unknown-record-field",
    "A record has no such field",
    """
`r.name` or `r["name"]` reads a field that the record's type does not have. The type of a
record literal is its keys, so a misspelt field is found before the tool runs; the hint
names the closest field:

    totals = {"net": net, "vat": vat}
    return totals.gros          # error: the record has the fields net, vat
""",
)
