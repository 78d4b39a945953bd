"""Every diagnostic code, registered once.

A code is stable: once released it keeps its number and meaning. Each has a title (one line),
an explanation (shown by `toolkiln explain CODE` and on the docs' error-code page) with an
example of the mistake and its fix. Messages themselves are built by the pass that reports.

One module per group of codes (registered in this order); this package is their one namespace:
`codes.SYNTAX_ERROR`, `codes.CODES`, `codes.lookup_code`.
"""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import CODES, Code, Severity, lookup_code

# isort: off
# In the order they are registered (CODES keeps it): the language, then each newer group.
from toolkiln.diagnostics.codes.language import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.runtime import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.registry import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.workflows import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.dataflow import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.replies import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.server import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.tool_calls import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.executables import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.hints import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.records import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.web import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.dates import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.trust import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.jsonlogic import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.peers import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.calls import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.secrets import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.tenants import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.integrations import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.editors import *  # noqa: F403 - every code, in one namespace
from toolkiln.diagnostics.codes.pins import *  # noqa: F403 - every code, in one namespace
# isort: on

__all__ = ["CODES", "Code", "Severity", "lookup_code"]
