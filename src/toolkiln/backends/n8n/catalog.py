"""The n8n node catalog: which node types exist, their typeVersions and each version's parameters.

The data is generated, not written by hand: `scripts/extract_n8n_catalog.py` trims the
`dist/types/nodes.json` of the n8n-nodes-base package that an n8n release depends on and stores
it as package data (`data/catalog-<n8n version>.zip`, one per release: a member per node type,
read when a check first meets that type); docs/n8n-catalog.md says what is kept. This module
only reads it: no network, and nothing is evaluated (n8n's `={{ ... }}` inputs/outputs stay
opaque).

    catalog = load_catalog()
    catalog.n8n_version                               # "2.41.1"
    catalog.versions("n8n-nodes-base.webhook")        # (1, 1.1, 2, 2.1)
    catalog.parameters("n8n-nodes-base.httpRequest", 4.2)

A parameter name can be listed more than once for one version: n8n describes, say, `operation`
once per `resource`, each with its own `displayOptions` and choices.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import zipfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from toolkiln.backends.n8n import DEFAULT_N8N_VERSION
from toolkiln.errors import Error

Version = int | float
Scalar = str | int | float | bool

FORMAT = 1
_DATA = "data"
_SUFFIX = ".zip"
# The members of a catalog file (scripts/extract_n8n_catalog.py writes them).
_HEADER = "catalog.json"
_NODES = "nodes/"


class CatalogError(Error, LookupError):
    """An unknown node type or typeVersion, or catalog data that cannot be read."""


@dataclass(frozen=True, slots=True)
class ParameterGroup:
    """One named group of a `fixedCollection` parameter, with the parameters it holds."""

    name: str
    parameters: tuple[ParameterSpec, ...]


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    """One parameter of one node version, as n8n describes it (trimmed).

    `default` and `display_options` are plain JSON values (treat them as read-only); they take
    no part in hashing. `display_options` is n8n's `{"show": {...}, "hide": {...}}` with the
    `@version` conditions already resolved for this version.
    """

    name: str
    type: str
    default: Any = field(default=None, hash=False)
    has_default: bool = False
    required: bool = False
    options: tuple[Scalar, ...] = ()
    """The allowed values of an `options` or `multiOptions` parameter."""
    load_options: bool = False
    """The values are loaded from the service at edit time, so `options` is not the whole list."""
    nested: tuple[ParameterSpec, ...] = ()
    """The optional parameters of a `collection`."""
    groups: tuple[ParameterGroup, ...] = ()
    """The groups of a `fixedCollection`."""
    multiple_values: bool = False
    no_data_expression: bool = False
    modes: tuple[str, ...] = ()
    """The modes of a `resourceLocator` (for example list, id, url)."""
    display_options: Mapping[str, Any] | None = field(default=None, hash=False)

    @property
    def conditional(self) -> bool:
        """Whether the parameter is shown only when other parameters have certain values."""
        return self.display_options is not None


@dataclass(frozen=True, slots=True)
class NodeVersion:
    """One typeVersion of a node type."""

    version: Version
    parameters: tuple[ParameterSpec, ...]
    credentials: tuple[str, ...] = ()
    inputs: tuple[str, ...] | None = ()
    """Connection types of the inputs; None when n8n computes them from the parameters."""
    outputs: tuple[str, ...] | None = ()
    """Connection types of the outputs; None when n8n computes them from the parameters."""

    @property
    def parameter_names(self) -> frozenset[str]:
        """The names of the top-level parameters."""
        return frozenset(spec.name for spec in self.parameters)

    def parameter(self, name: str) -> tuple[ParameterSpec, ...]:
        """Every description of the top-level parameter `name` (empty when it has none)."""
        return tuple(spec for spec in self.parameters if spec.name == name)


@dataclass(frozen=True, slots=True)
class NodeType:
    """A node type (for example `n8n-nodes-base.httpRequest`) and all its typeVersions."""

    name: str
    display_name: str
    group: tuple[str, ...]
    trigger: bool
    hidden: bool
    default_version: Version
    node_versions: tuple[NodeVersion, ...]

    @property
    def versions(self) -> tuple[Version, ...]:
        return tuple(entry.version for entry in self.node_versions)

    def version(self, version: Version | str) -> NodeVersion:
        wanted = normalize_version(version)
        for entry in self.node_versions:
            if entry.version == wanted:
                return entry
        known = ", ".join(str(v) for v in self.versions)
        raise CatalogError(f"{self.name} has no typeVersion {wanted} (it has {known})")

    def has_version(self, version: Version | str) -> bool:
        try:
            wanted = normalize_version(version)
        except CatalogError:
            return False
        return any(entry.version == wanted for entry in self.node_versions)


def normalize_version(version: Version | str) -> Version:
    """A typeVersion as n8n writes it: 2, 2.0 and "2" are 2; 4.2 and "4.2" are 4.2."""
    if isinstance(version, bool):
        raise CatalogError(f"not a typeVersion: {version!r}")
    if isinstance(version, str):
        try:
            number = float(version)
        except ValueError:
            raise CatalogError(f"not a typeVersion: {version!r}") from None
    elif isinstance(version, (int, float)):
        number = float(version)
    else:
        raise CatalogError(f"not a typeVersion: {version!r}")
    if not math.isfinite(number):
        raise CatalogError(f"not a typeVersion: {version!r}")
    return int(number) if number.is_integer() else number


class Catalog:
    """The node types of one n8n release. Node types are built on first lookup."""

    def __init__(self, data: Mapping[str, Any]) -> None:
        if not isinstance(data, Mapping) or data.get("format") != FORMAT or not isinstance(data.get("nodes"), Mapping):
            raise CatalogError(f"not a toolkiln n8n catalog (format {FORMAT})")
        self._n8n_version: str = data["n8n"]
        self._package: str = data["package"]
        self._package_version: str = data["packageVersion"]
        self._raw: Mapping[str, Any] = data["nodes"]
        self._built: dict[str, NodeType] = {}

    @classmethod
    def from_bytes(cls, blob: bytes) -> Catalog:
        """A catalog from the bytes of a catalog file (a zip of its members, or the whole
        catalog as JSON, gzipped or not)."""
        try:
            if blob[:4] == b"PK\x03\x04":
                archive = zipfile.ZipFile(io.BytesIO(blob))
                return cls({**json.loads(archive.read(_HEADER)), "nodes": _NodeFiles(archive)})
            if blob[:2] == b"\x1f\x8b":
                blob = gzip.decompress(blob)
            return cls(json.loads(blob))
        except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as error:
            raise CatalogError(f"cannot read the n8n catalog: {error}") from None

    @property
    def n8n_version(self) -> str:
        """The n8n release the catalog describes."""
        return self._n8n_version

    @property
    def package(self) -> str:
        return self._package

    @property
    def package_version(self) -> str:
        """The version of the node package (n8n-nodes-base) that release depends on."""
        return self._package_version

    def __len__(self) -> int:
        return len(self._raw)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._raw))

    def __contains__(self, name: object) -> bool:
        return name in self._raw

    def names(self) -> tuple[str, ...]:
        return tuple(sorted(self._raw))

    def node_type(self, name: str) -> NodeType:
        built = self._built.get(name)
        if built is None:
            if name not in self._raw:
                raise CatalogError(self._unknown(name))
            try:  # (a member of a catalog file is read now: it may be damaged)
                raw = self._raw[name]
            except (OSError, EOFError, ValueError, zipfile.BadZipFile) as error:
                raise CatalogError(f"cannot read node type {name!r} of the n8n catalog: {error}") from None
            built = self._built[name] = _node_type(name, raw)
        return built

    def versions(self, name: str) -> tuple[Version, ...]:
        return self.node_type(name).versions

    def parameters(self, name: str, version: Version | str) -> tuple[ParameterSpec, ...]:
        return self.node_type(name).version(version).parameters

    def has(self, name: str, version: Version | str | None = None) -> bool:
        """Whether the node type exists (and has `version`, when one is given)."""
        if name not in self._raw:
            return False
        return version is None or self.node_type(name).has_version(version)

    def _unknown(self, name: str) -> str:
        message = f"unknown n8n node type {name!r} in n8n {self._n8n_version}"
        candidates = [name, f"{self._package}.{name}"]
        import difflib  # (only for a misspelt name: not loaded by every check)

        close = [match for candidate in candidates for match in difflib.get_close_matches(candidate, self._raw, n=1)]
        return message + (f" (did you mean {close[0]!r}?)" if close else "")


def catalog_versions() -> tuple[str, ...]:
    """The n8n releases whose catalogs ship with toolkiln, oldest first."""
    names = (entry.name for entry in resources.files(__package__).joinpath(_DATA).iterdir())
    found = [name[len("catalog-") : -len(_SUFFIX)] for name in names if name.startswith("catalog-")]
    return tuple(sorted(found, key=lambda version: tuple(int(part) for part in version.split("."))))


def load_catalog(n8n_version: str | None = None) -> Catalog:
    """The catalog of an n8n release (default: DEFAULT_N8N_VERSION), read once per process."""
    return _load(n8n_version or DEFAULT_N8N_VERSION)


@cache
def _load(n8n_version: str) -> Catalog:
    resource = resources.files(__package__).joinpath(_DATA, f"catalog-{n8n_version}{_SUFFIX}")
    try:
        blob = resource.read_bytes()
    except OSError:
        known = ", ".join(catalog_versions()) or "none"
        raise CatalogError(
            f"no node catalog for n8n {n8n_version}; toolkiln ships catalogs for: {known} "
            "(scripts/extract_n8n_catalog.py makes one for another release)"
        ) from None
    return Catalog.from_bytes(blob)


class _NodeFiles(Mapping[str, Any]):
    """The node types of a catalog file by name, each read from its member when asked for."""

    def __init__(self, archive: zipfile.ZipFile) -> None:
        self._archive = archive
        self._members = {
            member[len(_NODES) : -len(".json")]: member for member in archive.namelist() if member.startswith(_NODES)
        }

    def __getitem__(self, name: str) -> Any:
        return json.loads(self._archive.read(self._members[name]))

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def __contains__(self, name: object) -> bool:
        return name in self._members


# ---------------------------------------------------------------------------------------------
# From the JSON shape written by scripts/extract_n8n_catalog.py


def _node_type(name: str, raw: Mapping[str, Any]) -> NodeType:
    sets = [tuple(_parameter(entry) for entry in parameters) for parameters in raw["parameterSets"]]
    node_versions = tuple(
        NodeVersion(
            version=normalize_version(entry["version"]),
            parameters=sets[entry["parameters"]],
            credentials=tuple(entry["credentials"]),
            inputs=_connections(entry["inputs"]),
            outputs=_connections(entry["outputs"]),
        )
        for entry in raw["versions"]
    )
    return NodeType(
        name=name,
        display_name=raw["displayName"],
        group=tuple(raw["group"]),
        trigger=raw["trigger"],
        hidden=raw["hidden"],
        default_version=normalize_version(raw["defaultVersion"]),
        node_versions=tuple(sorted(node_versions, key=lambda entry: entry.version)),
    )


def _connections(raw: list[str] | None) -> tuple[str, ...] | None:
    return None if raw is None else tuple(raw)


def _parameter(raw: Mapping[str, Any]) -> ParameterSpec:
    kind = raw["type"]
    options = raw.get("options") or ()
    nested: tuple[ParameterSpec, ...] = ()
    groups: tuple[ParameterGroup, ...] = ()
    choices: tuple[Scalar, ...] = ()
    if kind == "collection":
        nested = tuple(_parameter(entry) for entry in options)
    elif kind == "fixedCollection":
        groups = tuple(
            ParameterGroup(entry["name"], tuple(_parameter(value) for value in entry["values"])) for entry in options
        )
    else:
        choices = tuple(options)
    return ParameterSpec(
        name=raw["name"],
        type=kind,
        default=raw.get("default"),
        has_default="default" in raw,
        required=raw.get("required", False),
        options=choices,
        load_options=raw.get("loadOptions", False),
        nested=nested,
        groups=groups,
        multiple_values=raw.get("multipleValues", False),
        no_data_expression=raw.get("noDataExpression", False),
        modes=tuple(raw.get("modes", ())),
        display_options=raw.get("displayOptions"),
    )
