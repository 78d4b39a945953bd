"""Where each value of a JSON document sits in its file, so that diagnostics of JSON sources
point at a real line and column (and CI annotations land on the right line).

One pass of a regular-expression tokenizer over the text, with an explicit stack: linear in
the size of the file, whatever its nesting, and run once per file however many diagnostics
point into it (a 6 MB n8n export is located in about a second). It only locates: the text was
already parsed by `json`, and anything this scanner does not expect gives no positions.
"""

from __future__ import annotations

import json
import re

# Whitespace, then one token: a string (group 1), a number or literal (group 2), or punctuation.
_TOKEN = re.compile(
    r'[ \t\r\n]*(?:("(?:[^"\\]|\\.)*")|(-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null)|([{}\[\],:]))',
    re.DOTALL,
)

JsonOffsets = dict[str, tuple[int, str | None]]
# A key's own place is found under its value's path and this (a certain fix renames a key).
KEY_SUFFIX = " (key)"


def value_offsets(text: str) -> JsonOffsets:
    """JSON path -> (offset of the value in `text`, raw string token if the value is a string)."""
    found: JsonOffsets = {}
    # One frame per open container: its path, and for an object the key just read (None while
    # a key is expected) or for an array the index of the next item.
    frames: list[tuple[str, list[str | int | None]]] = []
    path = ""
    position = 0
    match = _TOKEN.match
    while True:
        token = match(text, position)
        if token is None:
            break
        position = token.end()
        string, scalar, punctuation = token.groups()
        if punctuation in (",", ":"):
            continue
        if punctuation in ("}", "]"):
            if not frames or isinstance(frames[-1][1][0], int) != (punctuation == "]"):
                return {}
            frames.pop()
            continue
        if frames:
            parent, state = frames[-1]
            if isinstance(state[0], int):  # an array item
                path = f"{parent}[{state[0]}]"
                state[0] += 1
            elif state[0] is None:  # an object key
                if string is None:
                    return {}
                state[0] = json.loads(string) if "\\" in string else string[1:-1]
                key_path = f"{parent}.{state[0]}" if parent else str(state[0])
                found[key_path + KEY_SUFFIX] = (token.start(1), string)
                continue
            else:  # an object value
                key = state[0]
                path = f"{parent}.{key}" if parent else str(key)
                state[0] = None
        start = token.start(1) if string is not None else token.start(2) if scalar is not None else token.start(3)
        found[path] = (start, string)
        if punctuation == "{":
            frames.append((path, [None]))
        elif punctuation == "[":
            frames.append((path, [0]))
    return found if not frames and not text[position:].strip() else {}
