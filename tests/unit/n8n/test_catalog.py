"""The generated n8n node catalog: the shipped data, the lookups, and the extraction script."""

from __future__ import annotations

import importlib
import io
import json
import tarfile
import zipfile
from pathlib import Path

import pytest

from toolkiln.backends.n8n.catalog import (
    DEFAULT_N8N_VERSION,
    Catalog,
    CatalogError,
    NodeVersion,
    catalog_versions,
    load_catalog,
    normalize_version,
)
from toolkiln.errors import Error

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
ROOT = HERE.parents[2]
WORKFLOWS = sorted(path for path in FIXTURES.glob("*.json") if path.name != "synthetic_nodes.json")

# The node types and typeVersions toolkiln's n8n backend emits (issue 4, checked against n8n 1.123.50).
PINNED = {
    "n8n-nodes-base.webhook": 2,
    "n8n-nodes-base.scheduleTrigger": 1.2,
    "n8n-nodes-base.set": 3.4,
    "n8n-nodes-base.if": 2.2,
    "n8n-nodes-base.switch": 3.2,
    "n8n-nodes-base.httpRequest": 4.2,
    "n8n-nodes-base.merge": 3,
    "n8n-nodes-base.respondToWebhook": 1.1,
    "n8n-nodes-base.wait": 1.1,
    "n8n-nodes-base.code": 2,
    "n8n-nodes-base.noOp": 1,
    "n8n-nodes-base.manualTrigger": 1,
}


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    """The 1.123.50 catalog: what ../shared/n8n/NOTES.md saw a running n8n 1.123.50 list."""
    return load_catalog("1.123.50")


@pytest.fixture(scope="module")
def extractor():
    """scripts/extract_n8n_catalog.py (scripts/ is a folder of scripts, not a package)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(ROOT / "scripts"))
        return importlib.import_module("extract_n8n_catalog")


@pytest.fixture(scope="module")
def synthetic_nodes() -> list[dict]:
    return json.loads((FIXTURES / "synthetic_nodes.json").read_text(encoding="utf-8"))


# ---------------------------------------------------------------------------------------------
# The shipped catalog


def test_the_default_catalog_is_that_of_the_n8n_the_tests_run():
    default = load_catalog()
    assert default is load_catalog("2.41.1")
    assert (default.n8n_version, default.package_version) == ("2.41.1", "2.41.1")
    assert DEFAULT_N8N_VERSION == "2.41.1"


def test_the_catalog_loads_once_and_records_its_source(catalog):
    assert load_catalog("1.123.50") is catalog
    assert catalog.n8n_version == "1.123.50"
    assert catalog.package == "n8n-nodes-base"
    assert catalog.package_version == "1.121.32"
    assert len(catalog) > 400
    assert list(catalog) == sorted(catalog)


@pytest.mark.parametrize(("name", "version"), sorted(PINNED.items()))
def test_the_pinned_node_types_and_versions_exist(catalog, name, version):
    assert name in catalog
    assert version in catalog.versions(name)
    assert catalog.has(name, version)
    assert catalog.parameters(name, version) == catalog.node_type(name).version(version).parameters


def test_versions_reported_by_a_real_n8n_1_123_50(catalog):
    # ../shared/n8n/NOTES.md: what the running server listed.
    assert catalog.versions("n8n-nodes-base.webhook") == (1, 1.1, 2, 2.1)
    assert catalog.versions("n8n-nodes-base.if") == (1, 2, 2.1, 2.2, 2.3)
    assert catalog.versions("n8n-nodes-base.code") == (1, 2)
    assert catalog.versions("n8n-nodes-base.noOp") == (1,)
    assert max(catalog.versions("n8n-nodes-base.httpRequest")) == 4.3
    assert max(catalog.versions("n8n-nodes-base.respondToWebhook")) == 1.5
    assert max(catalog.versions("n8n-nodes-base.scheduleTrigger")) == 1.3
    assert catalog.versions("n8n-nodes-base.set")[-1] == 3.4


def test_triggers_are_marked(catalog):
    for name in ("n8n-nodes-base.webhook", "n8n-nodes-base.scheduleTrigger", "n8n-nodes-base.manualTrigger"):
        node = catalog.node_type(name)
        assert node.trigger
        assert node.version(node.versions[-1]).inputs == ()
    assert not catalog.node_type("n8n-nodes-base.set").trigger


def test_known_parameters_of_known_versions(catalog):
    http = catalog.node_type("n8n-nodes-base.httpRequest").version(4.2)
    assert {"url", "method", "authentication", "sendBody", "options"} <= http.parameter_names
    [method] = http.parameter("method")
    assert method.type == "options" and method.default == "GET"
    assert {"GET", "POST", "PUT", "DELETE"} <= set(method.options)
    [url] = http.parameter("url")
    assert url.required and url.type == "string"

    webhook = catalog.node_type("n8n-nodes-base.webhook").version(2)
    assert {"httpMethod", "path", "responseMode"} <= webhook.parameter_names
    [response_mode] = webhook.parameter("responseMode")
    assert set(response_mode.options) == {"onReceived", "lastNode", "responseNode"}
    # `streaming` came with webhook 2.1: the @version condition was resolved per version.
    [newer] = catalog.node_type("n8n-nodes-base.webhook").version(2.1).parameter("responseMode")
    assert "streaming" in newer.options
    # Two descriptions of httpMethod, told apart by displayOptions.
    kinds = {spec.type: spec.display_options for spec in webhook.parameter("httpMethod")}
    assert kinds == {
        "options": {"show": {"multipleMethods": [False]}},
        "multiOptions": {"show": {"multipleMethods": [True]}},
    }


def test_nested_parameters_and_opaque_shapes(catalog):
    set_34 = catalog.node_type("n8n-nodes-base.set").version(3.4)
    [assignments] = set_34.parameter("assignments")
    assert assignments.type == "assignmentCollection"
    if_22 = catalog.node_type("n8n-nodes-base.if").version(2.2)
    [conditions] = if_22.parameter("conditions")
    assert conditions.type == "filter"
    [options] = catalog.node_type("n8n-nodes-base.webhook").version(2).parameter("options")
    assert options.type == "collection"
    assert {"rawBody", "responseHeaders"} <= {spec.name for spec in options.nested}
    [headers] = [spec for spec in options.nested if spec.name == "responseHeaders"]
    assert headers.type == "fixedCollection" and [group.name for group in headers.groups] == ["entries"]
    assert {spec.name for spec in headers.groups[0].parameters} == {"name", "value"}


def test_dynamic_connections_stay_opaque(catalog):
    switch = catalog.node_type("n8n-nodes-base.switch").version(3.2)
    assert switch.inputs == ("main",) and switch.outputs is None
    assert catalog.node_type("n8n-nodes-base.if").version(2.2).outputs == ("main", "main")


def test_lookups_fail_with_toolkiln_errors(catalog):
    with pytest.raises(CatalogError, match=r"did you mean 'n8n-nodes-base\.httpRequest'"):
        catalog.node_type("n8n-nodes-base.httpRequst")
    with pytest.raises(CatalogError, match=r"did you mean 'n8n-nodes-base\.webhook'"):
        catalog.versions("webhook")
    with pytest.raises(CatalogError, match=r"has no typeVersion 3 \(it has 1, 1\.1, 2, 2\.1\)"):
        catalog.parameters("n8n-nodes-base.webhook", 3)
    with pytest.raises(Error):
        catalog.parameters("n8n-nodes-base.webhook", "two")
    assert not catalog.has("n8n-nodes-base.nope")
    assert not catalog.has("n8n-nodes-base.webhook", 3)
    assert not catalog.has("n8n-nodes-base.webhook", True)


def test_versions_normalize_like_n8n():
    assert normalize_version(2.0) == 2 and isinstance(normalize_version(2.0), int)
    assert normalize_version("4.2") == 4.2
    assert normalize_version("2") == 2
    for bad in (True, "x", float("nan"), None):
        with pytest.raises(CatalogError):
            normalize_version(bad)


def test_damaged_catalog_data_is_a_catalog_error():
    with pytest.raises(CatalogError):
        Catalog.from_bytes(b"\x1f\x8bnot gzip")
    with pytest.raises(CatalogError):
        Catalog.from_bytes(b'{"format": 99, "nodes": {}}')
    with pytest.raises(CatalogError):
        Catalog.from_bytes(b"[]")


def test_every_node_type_builds(catalog):
    for name in catalog:
        node = catalog.node_type(name)
        assert node.versions == tuple(sorted(node.versions))
        assert node.default_version in node.versions
        assert all(isinstance(entry, NodeVersion) for entry in node.node_versions)


# ---------------------------------------------------------------------------------------------
# The workflows a real n8n 1.123.50 ran (copied from ../shared/n8n/workflows/)


def _nodes(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["nodes"]


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.stem)
def test_workflows_that_ran_use_known_types_versions_and_parameters(catalog, path):
    for node in _nodes(path):
        assert catalog.has(node["type"], node["typeVersion"]), (node["type"], node["typeVersion"])
        version = catalog.node_type(node["type"]).version(node["typeVersion"])
        unknown = set(node.get("parameters", {})) - version.parameter_names
        assert not unknown, f"{node['name']}: {sorted(unknown)}"


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda path: path.stem)
def test_workflows_that_ran_use_allowed_choices_and_collection_keys(catalog, path):
    for node in _nodes(path):
        version = catalog.node_type(node["type"]).version(node["typeVersion"])
        for name, value in node.get("parameters", {}).items():
            specs = version.parameter(name)
            if isinstance(value, str) and not value.startswith("=") and specs[0].type == "options":
                assert any(value in spec.options for spec in specs if spec.type == "options"), (name, value)
            if isinstance(value, dict) and specs[0].type == "collection":
                allowed = {nested.name for spec in specs for nested in spec.nested}
                assert set(value) <= allowed, (node["name"], name, sorted(set(value) - allowed))


def test_workflow_fixtures_are_present():
    assert {path.name for path in WORKFLOWS} == {
        "manual_set_if_cli.json",
        "schedule_noop.json",
        "webhook_code_http_lastnode.json",
        "webhook_set_if_respond.json",
    }


# ---------------------------------------------------------------------------------------------
# The extraction script, on a small synthetic nodes.json


def _trim(extractor, nodes):
    return extractor.trim_catalog(nodes, n8n_version="9.9.9", nodes_base_version="9.8.7")


def test_extraction_is_deterministic(extractor, synthetic_nodes):
    first = extractor.encode_catalog(_trim(extractor, synthetic_nodes))
    second = extractor.encode_catalog(_trim(extractor, json.loads(json.dumps(synthetic_nodes))))
    assert first == second
    with zipfile.ZipFile(io.BytesIO(first)) as archive:  # a fixed time on every member
        assert {info.date_time for info in archive.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    reordered = extractor.encode_catalog(_trim(extractor, list(reversed(synthetic_nodes))))
    assert reordered == first


def test_a_node_type_is_read_from_its_member_when_first_asked_for(extractor, synthetic_nodes):
    """Only the members a check meets are read: a damaged one fails only when it is asked for,
    with a catalog error, and the others still read."""
    whole = extractor.encode_catalog(_trim(extractor, synthetic_nodes))
    damaged = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(whole)) as source, zipfile.ZipFile(damaged, "w") as target:
        for info in source.infolist():
            broken = info.filename == "nodes/n8n-nodes-base.demoTrigger.json"
            target.writestr(info, b"{not json" if broken else source.read(info))
    catalog = Catalog.from_bytes(damaged.getvalue())
    assert catalog.names() == ("n8n-nodes-base.demo", "n8n-nodes-base.demoTrigger")
    assert catalog.has("n8n-nodes-base.demo", 2) and "n8n-nodes-base.demoTrigger" in catalog
    with pytest.raises(CatalogError, match="cannot read node type 'n8n-nodes-base.demoTrigger'"):
        catalog.node_type("n8n-nodes-base.demoTrigger")
    with pytest.raises(CatalogError, match="cannot read the n8n catalog"):
        Catalog.from_bytes(whole[: len(whole) // 2])  # torn: no directory at its end


def test_extraction_merges_the_descriptions_of_a_versioned_node(extractor, synthetic_nodes):
    trimmed = _trim(extractor, synthetic_nodes)
    assert trimmed["n8n"] == "9.9.9" and trimmed["packageVersion"] == "9.8.7"
    assert sorted(trimmed["nodes"]) == ["n8n-nodes-base.demo", "n8n-nodes-base.demoTrigger"]
    catalog = Catalog(trimmed)
    demo = catalog.node_type("n8n-nodes-base.demo")
    assert demo.versions == (1, 1.1, 2)
    assert demo.display_name == "Demo (new)" and demo.default_version == 2 and not demo.trigger

    v1, v11, v2 = (demo.version(v) for v in (1, 1.1, 2))
    assert [spec.name for spec in v1.parameters] == ["url", "method", "tags", "options", "headers"]
    assert [spec.name for spec in v11.parameters] == ["url", "method", "body", "tags", "options", "headers"]
    assert [spec.name for spec in v2.parameters] == ["mode", "target"]
    # @version resolved: 1 has the two-method list, 1.1 the three-method one ({_cnd: {gte: 1.1}}).
    assert v1.parameter("method")[0].options == ("GET", "POST")
    assert v11.parameter("method")[0].options == ("GET", "POST", "PUT")
    assert v11.parameter("method")[0].display_options is None
    # The other conditions are kept, without the resolved @version key.
    assert v11.parameter("body")[0].display_options == {"show": {"method": ["POST", "PUT"]}}
    [url] = v1.parameter("url")
    assert url.required and url.default == "" and url.has_default
    [tags] = v1.parameter("tags")
    assert tags.load_options and tags.options == ()
    assert [n.name for n in v1.parameter("options")[0].nested] == ["timeout"]
    assert [n.name for n in v11.parameter("options")[0].nested] == ["timeout", "retry"]
    [headers] = v1.parameter("headers")
    assert headers.multiple_values
    assert [(g.name, [p.name for p in g.parameters]) for g in headers.groups] == [("header", ["name", "value"])]
    [mode] = v2.parameter("mode")
    assert mode.no_data_expression and mode.options == ("fast", "careful")
    assert v2.parameter("target")[0].modes == ("list", "id")
    assert v2.credentials == ("demoApi", "demoOAuth2Api") and v1.credentials == ()
    assert v2.outputs == ("main", "main")

    trigger = catalog.node_type("n8n-nodes-base.demoTrigger")
    assert trigger.trigger and trigger.default_version == 1
    assert trigger.version(1).inputs == () and trigger.version(1).outputs is None


def test_extraction_shares_identical_parameter_sets(extractor, synthetic_nodes):
    node = _trim(extractor, synthetic_nodes)["nodes"]["n8n-nodes-base.demo"]
    assert [entry["parameters"] for entry in node["versions"]] == [0, 1, 2]
    same = [dict(synthetic_nodes[0], version=[2, 2.1])]
    shared = _trim(extractor, same)["nodes"]["n8n-nodes-base.demo"]
    assert [entry["parameters"] for entry in shared["versions"]] == [0, 0]
    assert len(shared["parameterSets"]) == 1


def test_extraction_rejects_a_version_described_twice(extractor, synthetic_nodes):
    clash = [synthetic_nodes[1], dict(synthetic_nodes[0], version=1.1)]
    with pytest.raises(extractor.ExtractError, match=r"version 1\.1 is described twice"):
        _trim(extractor, clash)


def test_extraction_rejects_unknown_version_conditions(extractor):
    node = {
        "name": "odd",
        "displayName": "Odd",
        "group": [],
        "version": 1,
        "inputs": [],
        "outputs": [],
        "properties": [
            {
                "name": "x",
                "type": "string",
                "default": "",
                "displayOptions": {"show": {"@version": [{"_cnd": {"near": 1}}]}},
            }
        ],
    }
    with pytest.raises(extractor.ExtractError, match="near"):
        _trim(extractor, [node])


def _tarball(path: Path, nodes: list[dict], version: str = "9.8.7") -> Path:
    with tarfile.open(path, "w:gz") as tar:
        for name, payload in (
            ("package/package.json", {"name": "n8n-nodes-base", "version": version}),
            ("package/dist/types/nodes.json", nodes),
        ):
            data = json.dumps(payload).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_the_script_writes_byte_identical_files_from_a_tarball(extractor, synthetic_nodes, tmp_path, capsys):
    tarball = _tarball(tmp_path / "n8n-nodes-base-9.8.7.tgz", synthetic_nodes)
    outputs = [tmp_path / "a" / "catalog.zip", tmp_path / "b" / "catalog.zip"]
    for out in outputs:
        assert extractor.main(["--version", "9.9.9", "--tarball", str(tarball), "--out", str(out)]) == 0
    assert outputs[0].read_bytes() == outputs[1].read_bytes()
    assert "2 node types from 3 descriptions of n8n-nodes-base@9.8.7 (n8n 9.9.9)" in capsys.readouterr().out
    written = Catalog.from_bytes(outputs[0].read_bytes())
    assert written.n8n_version == "9.9.9" and written.package_version == "9.8.7"
    assert extractor.decode_catalog(outputs[0].read_bytes())["format"] == 1


def test_the_script_refuses_other_tarballs(extractor, tmp_path, capsys):
    with tarfile.open(tmp_path / "other.tgz", "w:gz") as tar:
        data = json.dumps({"name": "left-pad", "version": "1.0.0"}).encode()
        info = tarfile.TarInfo("package/package.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    assert (
        extractor.main(["--version", "1", "--tarball", str(tmp_path / "other.tgz"), "--out", str(tmp_path / "out.gz")])
        == 1
    )
    assert "not n8n-nodes-base" in capsys.readouterr().err
    assert not (tmp_path / "out.gz").exists()


@pytest.mark.parametrize("n8n_version", catalog_versions())
def test_the_shipped_catalogs_are_in_the_canonical_encoding(extractor, n8n_version):
    shipped = (ROOT / f"src/toolkiln/backends/n8n/data/catalog-{n8n_version}.zip").read_bytes()
    assert extractor.encode_catalog(extractor.decode_catalog(shipped)) == shipped
    assert len(shipped) < 1_500_000


def test_a_catalog_per_n8n_release_the_pinned_one_by_default():
    versions = catalog_versions()
    assert DEFAULT_N8N_VERSION in versions and len(versions) >= 2
    newest = load_catalog(versions[-1])
    assert newest.n8n_version == versions[-1] and load_catalog(versions[-1]) is newest
    assert load_catalog().n8n_version == DEFAULT_N8N_VERSION
    with pytest.raises(CatalogError, match=r"no node catalog for n8n 0\.1\.2; toolkiln ships catalogs for: 1\.123\.50"):
        load_catalog("0.1.2")
