"""What both conversation loops (prompted and native) share: their result, the error at their
turn limit, and the cap on a tool result as the model reads it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolkiln.llm.errors import LLMError
from toolkiln.llm.messages import Message, Usage

MAX_RESULT_CHARS = 100_000  # of one tool result: a model's context is not a dumping ground


@dataclass(frozen=True)
class LoopResult:
    """How a conversation ended: the final answer (the native loop: the last reply's text; the
    prompted loop: the decoded JSON), the whole conversation, the replies it took, their cost."""

    answer: Any
    transcript: tuple[Message, ...]
    turns: int
    usage: Usage


class LoopLimitReached(LLMError):
    """The model was still calling tools (or not answering as asked) after the loop's last turn.
    `transcript` holds the whole conversation, to see what it was doing."""

    def __init__(self, message: str, *, transcript: tuple[Message, ...], turns: int, **details: Any) -> None:
        self.transcript = transcript
        self.turns = turns
        super().__init__(message, **details)


def capped(text: str) -> str:
    """`text`, cut at MAX_RESULT_CHARS with a note saying so."""
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return text[:MAX_RESULT_CHARS] + f"\n[cut at {MAX_RESULT_CHARS:,} characters]"
