"""Print the commands of the README's Quick start, one per line, in order (for .ci/run).

.ci/run runs exactly these, so the README's two commands are proven on every CI run.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def quick_start_commands(text: str) -> list[str]:
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return [block.strip() for block in re.findall(r"```sh\n(.*?)```", section, re.S)]


if __name__ == "__main__":
    commands = quick_start_commands(README.read_text(encoding="utf-8"))
    if len(commands) != 2 or any("\n" in command for command in commands):
        sys.exit(f"README's Quick start must hold two one-line sh commands; found {commands!r}")
    print("\n".join(commands))
