"""What the registry wrote itself, as `Registry` methods: which records verify here, and
trusting the ones that do not (`toolkiln trust REGISTRY`). See signatures.py."""

from __future__ import annotations

import threading
from contextlib import AbstractContextManager

from toolkiln.registry.names import check_name
from toolkiln.registry.principals import Principal, principal_of
from toolkiln.registry.store import Store


class Trusting:
    """Mixed into `Registry`, whose attributes these are."""

    _store: Store
    _mutex: threading.RLock

    def _writing(self) -> AbstractContextManager[None]:
        raise NotImplementedError  # (Registry's)

    def trusted_here(self, name: str) -> bool:
        """Whether the tool's record is one this registry wrote, in this folder. When it is not,
        what it claims is not believed: a program or workflow tool does not run (NotTrusted)."""
        with self._mutex:
            self._store.refresh()
            return self._store.verified(check_name(name))

    def untrusted(self) -> set[str]:
        """The tools whose records do not verify here (cloned, copied, moved, edited by hand)."""
        with self._mutex:
            self._store.refresh()
            return self._store.untrusted()

    def trust(self, names: list[str] | None = None, by: Principal | str = "user") -> dict[str, list[int]]:
        """Sign the records of `names` (default: every tool) and their past versions as they are
        on disk now, as if this registry had written them: a person read them and trusts what
        they claim. {name: the versions signed}; an audit line per tool says who trusted it."""
        principal = principal_of(by, "by")
        with self._writing():
            return self._store.trust(None if names is None else [check_name(name) for name in names], principal)
