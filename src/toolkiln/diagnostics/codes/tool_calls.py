"""Prompted tool calls (E09xx)."""

from __future__ import annotations

from toolkiln.diagnostics.codes.base import register

# --- prompted tool calls ------------------------------------------------------------------

TOOL_CALL_SYNTAX = register(
    "E0901",
    "tool-call-syntax",
    "A prompted tool call does not parse",
    """
A ```tool block in a model's reply holds calls written `return name(arguments);`, whose
arguments are JavaScript-like literals: strings in "double", 'single' or `backtick` quotes
(no ${interpolation}), numbers, true, false, null, [arrays] and {objects} with quoted or bare
keys. The message names what was found and where; nothing of the reply was run.

    return wget(https://example.com, 5000);       # error: the address is not quoted
    return wget("https://example.com", 5000);     # fixed
""",
)

TOOL_CALL_TOO_LARGE = register(
    "E0902",
    "tool-call-too-large",
    "A prompted tool call is too large",
    """
A tool block is longer than its limit, nests its arguments deeper than 200 levels, or a reply
holds more calls than one reply may make. The block is refused before it is parsed further,
so a runaway reply costs no time. Send smaller arguments, or fewer calls at a time.

    return lookup([[[[[[ ... 10,000 levels ... ]]]]]]);     # error
""",
)

UNKNOWN_PROMPTED_TOOL = register(
    "E0903",
    "unknown-prompted-tool",
    "A prompted call names a tool that was not offered",
    """
The call names a function that is not among the tools of the system prompt. Tool names are
case-sensitive; the hint names the closest one.

    return wgett("https://example.com", 5000);    # error: did you mean `wget`?
""",
)

PROMPTED_TOOL_ARGUMENTS = register(
    "E0904",
    "prompted-tool-arguments",
    "A prompted call has the wrong arguments",
    """
Arguments are given in the order of the tool's signature, as many as it declares; an
optional one may be left out at the end or given as null. Each must have the declared type.

    return wget("https://example.com");           # error: timeoutMs is missing
    return wget("https://example.com", 5000);     # fixed
""",
)

NO_TOOL_CALL = register(
    "E0905",
    "no-tool-call",
    "The reply neither calls a tool nor finishes",
    """
In a prompted-tool conversation every reply calls at least one tool in a ```tool block; the
conversation ends through the built-in `finalResponse()`, whose result says how to write the
final answer. A reply of prose alone is sent back with this diagnostic.

    The weather is sunny.                         # error: call finalResponse() first
""",
)

INVALID_FINAL_ANSWER = register(
    "E0906",
    "invalid-final-answer",
    "The final answer is not the JSON asked for",
    """
After `finalResponse()`, the next reply is the final answer: one JSON value (in a ```json
block or alone) that matches the response format the result of `finalResponse()` gave. The
message says where it differs; nothing is guessed or completed.

    {answer: "sunny"}                             # error: JSON keys need double quotes
    {"answer": "sunny"}                           # fixed
""",
)

# --- wget, the built-in fetch of prompted tools -----------------------------------------------

WGET_REFUSED = register(
    "E0907",
    "wget-refused",
    "wget refused an address that is not public",
    """
`wget` reaches global unicast addresses only. The host (and the target of every redirect) is
resolved first and each of its addresses is checked: loopback, private, link-local (cloud
metadata services), shared, site-local, multicast, reserved, documentation and deprecated
ranges are refused, and so are IPv6 forms that carry such an IPv4 address (IPv4-mapped and
-compatible, NAT64, 6to4, Teredo). This stops server-side request forgery; asking for
another address of the same host does not help. An application that must reach a private
network opens it with `wget_tool(allow=["10.0.0.0/8"])`.

    return wget("http://169.254.169.254/latest/meta-data", 500);   # error: link-local
    return wget("https://example.com/rates.txt", 5000);            # fine
""",
)

WGET_FAILED = register(
    "E0908",
    "wget-failed",
    "wget could not fetch the text",
    """
The fetch did not give text: the address is not a valid http or https address (or a
redirect points to one that is not), the name does not resolve, the server did not answer
completely within `timeoutMs` (connecting, the headers and the body all count), it answered
an HTTP error, more than 3 redirects, or sent something that is not text. The message says
which; the model reads it as the call's result and may try another address.

    return wget("https://example.com/slow", 10);   # error: no complete answer within 10 ms
""",
)
