"""What the registry wrote itself, as `Registry` methods: which records verify here, and
trusting the ones that do not (`toolkiln trust REGISTRY`). See signatures.py."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager

from toolkiln.registry.changes import ChangeCounter
from toolkiln.registry.mirror import Mirror
from toolkiln.registry.names import check_name
from toolkiln.registry.principals import Principal, principal_of


class Trusting:
    """Mixed into `Registry`, whose attributes these are."""

    _mirror: Mirror
    _mutex: threading.RLock
    _changes: ChangeCounter

    def _writing(self) -> AbstractContextManager[None]:
        raise NotImplementedError  # (Registry's)

    def trusted_here(self, name: str) -> bool:
        """Whether the tool's record is one this registry wrote, in this folder. When it is not,
        what it claims is not believed: a program or workflow tool does not run (NotTrusted)."""
        with self._mutex:
            self._mirror.refresh()
            return self._mirror.verified(check_name(name))

    def untrusted(self) -> set[str]:
        """The tools whose records do not verify here (cloned, copied, moved, edited by hand)."""
        with self._mutex:
            self._mirror.refresh()
            return self._mirror.untrusted()

    def trust(self, names: list[str] | None = None, by: Principal | str = "user") -> dict[str, list[int]]:
        """Sign the records of `names` (default: every tool) and their past versions as they are
        on disk now, as if this registry had written them: a person read them and trusts what
        they claim. {name: the versions signed}; an audit line per tool says who trusted it."""
        principal = principal_of(by, "by")
        with self._writing():
            chosen = list(self._mirror.records) if names is None else [check_name(name) for name in names]
            signed = self._mirror.trust(chosen, principal)
            self._changes.bump()
        return signed
