"""What workflow checking needs to know of n8n's node types. The n8n backend's `Catalog`
(`toolkiln.backends.n8n.catalog`) is one; the caller hands it in, so checking never reads
catalog files itself and works against any n8n release's catalog."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

Version = int | float


class NodeVersionView(Protocol):
    @property
    def parameter_names(self) -> frozenset[str]: ...

    @property
    def inputs(self) -> tuple[str, ...] | None: ...


class NodeTypeView(Protocol):
    @property
    def trigger(self) -> bool: ...

    @property
    def versions(self) -> tuple[Version, ...]: ...

    def has_version(self, version: Version) -> bool: ...

    def version(self, version: Version) -> NodeVersionView: ...


class NodeCatalog(Protocol):
    @property
    def n8n_version(self) -> str: ...

    @property
    def package(self) -> str: ...

    def __contains__(self, name: object) -> bool: ...

    def names(self) -> tuple[str, ...]: ...

    def has(self, name: str, version: Version | None = None) -> bool: ...

    def node_type(self, name: str) -> NodeTypeView: ...


# Loaded only when a workflow has generic nodes to check (reading a catalog costs milliseconds).
CatalogLoader = Callable[[], NodeCatalog]
