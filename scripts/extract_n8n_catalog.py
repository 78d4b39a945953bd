#!/usr/bin/env python3
"""Extract toolkiln's trimmed n8n node catalog from the n8n-nodes-base npm package.

The package ships `dist/types/nodes.json`: one entry per node *description*, with the node's
name (without the `n8n-nodes-base.` prefix), `version` (a number or a list of numbers),
inputs, outputs, credentials and the full UI parameter descriptions. A versioned node (httpRequest,
set, if, ...) appears once per description, each covering some of its versions. This script keeps
what validation and linting need and writes it, deterministically, to
`src/toolkiln/backends/n8n/data/catalog-<n8n version>.zip` (see docs/n8n-catalog.md).

    python scripts/extract_n8n_catalog.py --version 1.123.50
    python scripts/extract_n8n_catalog.py --version 1.123.50 --tarball n8n-nodes-base-1.121.32.tgz

Without --tarball it asks npm which n8n-nodes-base the given n8n depends on and runs `npm pack`
into a temporary folder; only the npm registry is contacted, and nothing is installed.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

FORMAT = 1
PACKAGE = "n8n-nodes-base"
NODES_JSON = "package/dist/types/nodes.json"
PACKAGE_JSON = "package/package.json"
DATA = Path(__file__).resolve().parents[1] / "src/toolkiln/backends/n8n/data"

_CHOICE_TYPES = frozenset({"options", "multiOptions"})


class ExtractError(Exception):
    """The package or its nodes.json is not what this script understands."""


# ---------------------------------------------------------------------------------------------
# Versions and the `@version` display conditions


def version_key(version: Any) -> int | float:
    """An n8n typeVersion as a number, integral versions as int (2.0 -> 2)."""
    if isinstance(version, bool) or not isinstance(version, (int, float)):
        raise ExtractError(f"not a node version: {version!r}")
    return int(version) if float(version).is_integer() else float(version)


def _versions_of(description: dict) -> list[int | float]:
    raw = description.get("version")
    listed = raw if isinstance(raw, list) else [raw]
    return sorted({version_key(v) for v in listed})


def _condition_matches(condition: dict, value: float) -> bool:
    """One n8n `{"_cnd": {op: operand}}` condition, for a numeric value (the node version)."""
    [(op, operand)] = condition["_cnd"].items()
    if op == "eq":
        return value == operand
    if op == "not":
        return value != operand
    if op == "gte":
        return value >= operand
    if op == "lte":
        return value <= operand
    if op == "gt":
        return value > operand
    if op == "lt":
        return value < operand
    if op == "between":
        return operand["from"] <= value <= operand["to"]
    if op == "exists":
        return True
    raise ExtractError(f"unknown @version condition {op!r}")


def _version_matches(values: list, version: float) -> bool:
    return any(_condition_matches(v, version) if isinstance(v, dict) else v == version for v in values)


def _resolve_version(display: dict | None, version: float) -> tuple[bool, dict | None]:
    """Whether a parameter exists at `version`, and its displayOptions without `@version`.

    n8n shows a parameter when every `show` key matches and hides it when any `hide` key matches,
    so the `@version` keys can be decided here, once per version, and dropped.
    """
    if not display:
        return True, None
    kept: dict[str, dict] = {}
    for mode in ("show", "hide"):
        conditions = dict(display.get(mode) or {})
        if "@version" in conditions:
            matches = _version_matches(conditions.pop("@version"), version)
            if matches != (mode == "show"):
                return False, None
        if conditions:
            kept[mode] = conditions
    # n8n 2.x marks some parameters as shown only on some deployments (cloud, self-hosted): the
    # parameter exists either way, which is all the catalog says.
    unknown = set(display) - {"show", "hide", "showOnDeployment"}
    if unknown:
        raise ExtractError(f"unknown displayOptions keys {sorted(unknown)}")
    return True, kept or None


# ---------------------------------------------------------------------------------------------
# Trimming


def trim_parameters(properties: Iterable[dict], version: float) -> list[dict]:
    """The parameters that exist at `version`, trimmed; n8n's order is kept."""
    trimmed = []
    for prop in properties:
        exists, display = _resolve_version(prop.get("displayOptions"), version)
        if exists:
            trimmed.append(_trim_parameter(prop, display, version))
    return trimmed


def _trim_parameter(prop: dict, display: dict | None, version: float) -> dict:
    try:
        kind = prop["type"]
        out: dict[str, Any] = {"name": prop["name"], "type": kind}
    except KeyError as missing:
        raise ExtractError(f"parameter without {missing}: {prop.get('name', prop)!r}") from None
    if "default" in prop:
        out["default"] = prop["default"]
    if prop.get("required"):
        out["required"] = True
    if display:
        out["displayOptions"] = display
    type_options = prop.get("typeOptions") or {}
    if type_options.get("multipleValues"):
        out["multipleValues"] = True
    if prop.get("noDataExpression"):
        out["noDataExpression"] = True
    choices = prop.get("options")
    if kind in _CHOICE_TYPES:
        if isinstance(choices, list):
            out["options"] = [choice["value"] for choice in choices if "value" in choice]
        if type_options.get("loadOptionsMethod") or type_options.get("loadOptions"):
            out["loadOptions"] = True
    elif kind == "collection" and isinstance(choices, list):
        out["options"] = trim_parameters(choices, version)
    elif kind == "fixedCollection" and isinstance(choices, list):
        out["options"] = [
            {"name": group["name"], "values": trim_parameters(group.get("values") or [], version)} for group in choices
        ]
    elif kind == "resourceLocator" and isinstance(prop.get("modes"), list):
        out["modes"] = [mode["name"] for mode in prop["modes"] if "name" in mode]
    return out


def _connection_types(spec: Any) -> list[str] | None:
    """Inputs or outputs as a list of connection types; None when n8n computes them (`={{ ... }}`)."""
    if isinstance(spec, str):
        return None
    return [entry if isinstance(entry, str) else entry["type"] for entry in spec or []]


def _credential_names(description: dict) -> list[str]:
    return sorted({credential["name"] for credential in description.get("credentials") or []})


def _is_trigger(description: dict) -> bool:
    return "trigger" in (description.get("group") or [])


def trim_catalog(nodes: list[dict], *, n8n_version: str, nodes_base_version: str, package: str = PACKAGE) -> dict:
    """The trimmed catalog (a JSON-ready dict) for the descriptions of one nodes.json."""
    by_name: dict[str, list[dict]] = {}
    for description in nodes:
        by_name.setdefault(f"{package}.{description['name']}", []).append(description)

    catalog_nodes: dict[str, dict] = {}
    for name in sorted(by_name):
        catalog_nodes[name] = _trim_node(name, by_name[name])
    return {
        "format": FORMAT,
        "n8n": n8n_version,
        "package": package,
        "packageVersion": nodes_base_version,
        "nodes": catalog_nodes,
    }


def _trim_node(name: str, descriptions: list[dict]) -> dict:
    owner: dict[int | float, dict] = {}
    for description in descriptions:
        for version in _versions_of(description):
            if version in owner:
                raise ExtractError(f"{name} version {version} is described twice")
            owner[version] = description

    parameter_sets: list[list[dict]] = []
    set_index: dict[str, int] = {}
    versions = []
    for version in sorted(owner):
        description = owner[version]
        parameters = trim_parameters(description.get("properties") or [], version)
        fingerprint = json.dumps(parameters, sort_keys=True)
        if fingerprint not in set_index:
            set_index[fingerprint] = len(parameter_sets)
            parameter_sets.append(parameters)
        versions.append(
            {
                "version": version,
                "parameters": set_index[fingerprint],
                "credentials": _credential_names(description),
                "inputs": _connection_types(description.get("inputs")),
                "outputs": _connection_types(description.get("outputs")),
            }
        )

    latest = owner[max(owner)]
    default_version = next((d["defaultVersion"] for d in descriptions if "defaultVersion" in d), max(owner))
    return {
        "displayName": latest.get("displayName", name),
        "group": list(latest.get("group") or []),
        "trigger": _is_trigger(latest),
        "hidden": bool(latest.get("hidden")),
        "defaultVersion": version_key(default_version),
        "versions": versions,
        "parameterSets": parameter_sets,
    }


# ---------------------------------------------------------------------------------------------
# Output


# A catalog file is a zip archive: its header (the catalog without `nodes`) in HEADER and each node
# type's JSON in NODES + name + ".json", so that a check reads only the node types it meets
# (parsing the whole 4 MB of JSON took 0.1-0.2 s). The names are those catalog.py reads.
HEADER = "catalog.json"
NODES = "nodes/"
_EPOCH = (1980, 1, 1, 0, 0, 0)  # the earliest time a zip entry can hold: the same bytes every run


def encode_catalog(catalog: dict) -> bytes:
    """A zip of sorted, compact JSON members in name order, each deflated at level 9, with a
    fixed time and mode: the same bytes every run."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        _member(archive, HEADER, {key: value for key, value in catalog.items() if key != "nodes"})
        for name in sorted(catalog["nodes"]):
            _member(archive, f"{NODES}{name}.json", catalog["nodes"][name])
    return buffer.getvalue()


def _member(archive: zipfile.ZipFile, name: str, value: Any) -> None:
    info = zipfile.ZipInfo(name, date_time=_EPOCH)
    info.compress_type = zipfile.ZIP_DEFLATED
    info.external_attr = 0o644 << 16
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    archive.writestr(info, text.encode("utf-8"), compresslevel=9)


def decode_catalog(data: bytes) -> dict:
    """The catalog a file of encode_catalog's holds, whole."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        catalog = json.loads(archive.read(HEADER))
        catalog["nodes"] = {
            name[len(NODES) : -len(".json")]: json.loads(archive.read(name))
            for name in archive.namelist()
            if name.startswith(NODES)
        }
    return catalog


def read_tarball(path: Path) -> tuple[bytes, str]:
    """nodes.json and the package version, read straight from an `npm pack` tarball."""
    with tarfile.open(path, "r:gz") as tar:

        def member(name: str) -> bytes:
            try:
                handle = tar.extractfile(name)
            except KeyError:
                handle = None
            if handle is None:
                raise ExtractError(f"{path} has no {name}; is it an n8n-nodes-base tarball?")
            return handle.read()

        package = json.loads(member(PACKAGE_JSON))
        if package.get("name") != PACKAGE:
            raise ExtractError(f"{path} holds {package.get('name')!r}, not {PACKAGE}")
        return member(NODES_JSON), package["version"]


def _npm(*args: str, cwd: Path | None = None) -> Any:
    result = subprocess.run(["npm", *args, "--json"], capture_output=True, text=True, cwd=cwd, check=False)
    if result.returncode != 0:
        raise ExtractError(f"npm {' '.join(args)} failed:\n{result.stderr.strip()}")
    return json.loads(result.stdout)


def nodes_base_dependency(n8n_version: str) -> str:
    """The n8n-nodes-base version (or range) that n8n@`n8n_version` depends on, from the registry."""
    dependencies = _npm("view", f"n8n@{n8n_version}", "dependencies")
    if PACKAGE not in dependencies:
        raise ExtractError(f"n8n@{n8n_version} does not depend on {PACKAGE}")
    return dependencies[PACKAGE]


def pack(spec: str, into: Path) -> Path:
    """`npm pack` one package into `into` (no install, no dependencies) and return the tarball."""
    [packed] = _npm("pack", spec, "--pack-destination", str(into), cwd=into)
    return into / packed["filename"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--version", required=True, help="the n8n version the catalog is for, e.g. 1.123.50")
    parser.add_argument(
        "--tarball", type=Path, help="an n8n-nodes-base .tgz from `npm pack` (default: ask npm and pack it)"
    )
    parser.add_argument("--out", type=Path, help=f"where to write (default: {DATA}/catalog-VERSION.zip)")
    args = parser.parse_args(argv)
    out = args.out or DATA / f"catalog-{args.version}.zip"
    try:
        if args.tarball is not None:
            raw, nodes_base_version = read_tarball(args.tarball)
        else:
            with tempfile.TemporaryDirectory(prefix="toolkiln-n8n-") as folder:
                spec = nodes_base_dependency(args.version)
                raw, nodes_base_version = read_tarball(pack(f"{PACKAGE}@{spec}", Path(folder)))
        nodes = json.loads(raw)
        catalog = trim_catalog(nodes, n8n_version=args.version, nodes_base_version=nodes_base_version)
    except (ExtractError, OSError, tarfile.TarError, json.JSONDecodeError) as error:
        print(f"extract_n8n_catalog: {error}", file=sys.stderr)
        return 1
    data = encode_catalog(catalog)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data)
    print(
        f"{out}: {len(catalog['nodes'])} node types from {len(nodes)} descriptions of "
        f"{PACKAGE}@{nodes_base_version} (n8n {args.version}); nodes.json {len(raw):,} bytes -> "
        f"{len(data):,} bytes zipped"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
