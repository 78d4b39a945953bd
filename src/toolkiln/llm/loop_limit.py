"""The error both conversation loops end with when the model does not finish in time."""

from __future__ import annotations

from typing import Any

from toolkiln.llm.errors import LLMError
from toolkiln.llm.messages import Message


class LoopLimitReached(LLMError):
    """The model was still calling tools (or not answering as asked) after the loop's last turn.
    `transcript` holds the whole conversation, to see what it was doing."""

    def __init__(self, message: str, *, transcript: tuple[Message, ...], turns: int, **details: Any) -> None:
        self.transcript = transcript
        self.turns = turns
        super().__init__(message, **details)
