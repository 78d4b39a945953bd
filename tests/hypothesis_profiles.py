"""How many examples the hypothesis tests run: a profile, chosen by HYPOTHESIS_PROFILE.

- `quick` (the default: the README's test command, a contributor's run): a quarter of the
  examples, 25 where a test sets no count (hypothesis's own default is 100).
- `thorough` (.ci/run runs every hypothesis test again with it): hypothesis's default of 100
  and each test's own count in full.

A test that sets its own count writes `max_examples=examples(300)`: a profile cannot scale an
explicit count by itself (an explicit setting wins over the profile), so `examples` does it from
the loaded profile. Hypothesis's docs recommend this split: few examples while developing, many
in CI. Loaded by tests/conftest.py before any test module is imported; hypothesis's own
`--hypothesis-profile NAME` still wins (it loads later, before collection).
"""

from __future__ import annotations

import os

from hypothesis import settings

DEFAULT_PROFILE = "quick"
HYPOTHESIS_DEFAULT = 100  # (hypothesis's own max_examples, which the thorough profile keeps)
FLOOR = 10  # a scaled count never goes below this (or below the count itself, if smaller)

settings.register_profile("quick", max_examples=HYPOTHESIS_DEFAULT // 4)
settings.register_profile("thorough", max_examples=HYPOTHESIS_DEFAULT)
PROFILES = ("quick", "thorough")


def profile_named(environ: dict[str, str]) -> str:
    """The profile HYPOTHESIS_PROFILE names (`quick` when unset); a name that is none of ours
    is a ValueError that lists them."""
    name = environ.get("HYPOTHESIS_PROFILE") or DEFAULT_PROFILE
    if name not in PROFILES:
        raise ValueError(
            f"HYPOTHESIS_PROFILE={name!r} is not a profile of this suite: use one of {', '.join(PROFILES)}"
        )
    return name


def load_profile(environ: dict[str, str] | None = None) -> str:
    name = profile_named(dict(os.environ) if environ is None else environ)
    settings.load_profile(name)
    return name


def examples(count: int) -> int:
    """A test's own `max_examples`, scaled as the loaded profile scales hypothesis's default:
    in full under `thorough`, a quarter (at least 10) under `quick`."""
    scaled = round(count * settings.default.max_examples / HYPOTHESIS_DEFAULT)
    return max(scaled, min(count, FLOOR))
