"""The folder on disk: layout, broken files, changes from elsewhere, tables, refused input (what
is not about the folder's own files runs on a database too: conftest.py)."""

import json
import os

import pytest
from unit.registry.stores import FOLDER_ONLY, in_database, put_table, stored_bytes

from toolkiln import CompileError
from toolkiln.registry import BrokenTool, InvalidName, Registry
from toolkiln.registry.definitions import MAX_DEFINITION_BYTES


def files(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


@FOLDER_ONLY  # (the folder's files)
def test_layout_is_readable_and_diffable(reg, make_def):
    reg.create(make_def())
    reg.update("double", {"logic": make_def(expression="x * 3")["logic"]})
    reg.run("double", {"x": 1})
    reg.flush()
    assert files(reg.path) == [
        ".cache/changes",
        ".cache/checked",
        ".cache/signatures.json",
        ".gitignore",
        ".lock",
        "audit.jsonl",
        "tools/double.json",
        "usage.json",
        "versions/double/1.json",
    ]
    text = (reg.path / "tools" / "double.json").read_text()
    record = json.loads(text)
    assert text.startswith('{\n  "name": "double",') and "usage_count" not in record
    assert record["version"] == 2 and record["created_at"].endswith("Z")
    lines = (reg.path / "audit.jsonl").read_text().splitlines()
    assert [json.loads(line)["action"] for line in lines] == ["create", "update"]
    assert json.loads((reg.path / "usage.json").read_text())["double"]["count"] == 1
    assert "usage.json" in (reg.path / ".gitignore").read_text()


@FOLDER_ONLY  # (the folder's files)
def test_running_does_not_touch_the_tool_file(reg, make_def):
    reg.create(make_def())
    before = (reg.path / "tools" / "double.json").stat().st_mtime_ns
    for _ in range(3):
        reg.run("double", {"x": 1})
    reg.flush()
    assert (reg.path / "tools" / "double.json").stat().st_mtime_ns == before


def test_exact_numbers_survive_the_round_trip(reg, make_def):
    params = {"x": {"type": "number", "default": 0.1}}
    reg.create(make_def(expression="x + 0.2", params=params))
    again = Registry(reg.location)
    assert str(again.run("double", {})) == "0.3"
    assert b'"default": 0.1' in stored_bytes(reg, "double")


BROKEN = {
    "truncated": lambda text: text[: len(text) // 2],
    "empty": lambda text: "",
    "not json": lambda text: "this is not JSON {",
    "not utf-8": lambda text: b"\xff\xfe\x00".decode("latin-1"),
    "unknown field": lambda text: text.replace('"kind": "compute"', '"kind": "compute", "colour": "red"'),
    "missing field": lambda text: text.replace('"status": "active",', ""),
    "bad status": lambda text: text.replace('"status": "active"', '"status": "on"'),
    "broken logic": lambda text: text.replace('"expression": "x * 2"', '"expression": "x *"'),
    "wrong name": lambda text: text.replace('"name": "b"', '"name": "c"', 1),
    "stale parameters": lambda text: text.replace('"description": "The number"', '"description": "Edited"', 1),
}

CHECKED_ON_USE = {"broken logic", "stale parameters"}  # the file decodes; its definition does not check


@pytest.mark.parametrize("how", list(BROKEN))
def test_a_broken_file_is_reported_and_skipped_and_the_rest_load(tmp_path, make_def, how):
    reg = Registry(tmp_path / "r")
    for name in ("a", "b", "c"):
        reg.create(make_def(name))
    path = tmp_path / "r" / "tools" / "b.json"
    broken = BROKEN[how](path.read_text())
    path.write_bytes(broken.encode("latin-1") if how == "not utf-8" else broken.encode())
    again = Registry(tmp_path / "r")
    # A file that decodes is a tool until its definition is checked: on first use, or when
    # the problems are asked for (see docs/decisions.md, "Start-up: definitions are checked on first use").
    listed = ["a", "b", "c"] if how in CHECKED_ON_USE else ["a", "c"]
    assert [r.name for r in again.list()] == listed
    (problem,) = again.problems
    assert problem.file == os.path.join("tools", "b.json") and problem.diagnostics
    assert [r.name for r in again.list()] == ["a", "c"]
    assert all(d.file == problem.file and d.message for d in problem.diagnostics)
    with pytest.raises(BrokenTool) as error:
        again.get("b")
    assert error.value.diagnostics
    assert again.run("a", {"x": 1}) == 2


def test_broken_files_give_precise_diagnostics(tmp_path, make_def):
    reg = Registry(tmp_path / "r")
    reg.create(make_def("a"))
    reg.create(make_def("b"))
    (tmp_path / "r" / "tools" / "a.json").write_text('{"name": "a",\n  "oops" }')
    text = (tmp_path / "r" / "tools" / "b.json").read_text()
    (tmp_path / "r" / "tools" / "b.json").write_text(text.replace('"expression": "x * 2"', '"expression": "y * 2"'))
    problems = {p.file: p for p in Registry(tmp_path / "r").problems}
    (invalid,) = problems[os.path.join("tools", "a.json")].diagnostics
    assert (invalid.code, invalid.span.line) == ("E0105", 2)
    codes = {(d.code, d.span.path) for d in problems[os.path.join("tools", "b.json")].diagnostics}
    assert ("E0201", "definition.logic.steps[0].expression") in codes


def test_a_hand_edit_is_rechecked_and_a_fix_is_picked_up(tmp_path, make_def):
    reg = Registry(tmp_path / "r")
    reg.create(make_def())
    path = tmp_path / "r" / "tools" / "double.json"
    good = path.read_text()
    path.write_text(good.replace('"expression": "x * 2"', '"expression": "x *"'))
    reg.refresh()
    assert reg.problems and "double" not in reg
    path.write_text(good)
    reg.refresh()
    assert not reg.problems and reg.run("double", {"x": 2}) == 4


@FOLDER_ONLY  # (files in the folder)
def test_files_that_are_not_tools_are_reported_or_ignored(reg, make_def):
    reg.create(make_def())
    (reg.path / "tools" / "Bad Name.json").write_text("{}")
    (reg.path / "tools" / "notes.txt").write_text("ignored")
    (reg.path / "tools" / ".double.json.123.tmp").write_text("half a fi")  # a writer's temporary
    reg.refresh()
    assert [p.file for p in reg.problems] == [os.path.join("tools", "Bad Name.json")]
    assert [r.name for r in reg.list()] == ["double"]


@FOLDER_ONLY  # (the folder's usage.json)
def test_broken_usage_file_is_reported_and_rewritten(reg, make_def):
    reg.create(make_def())
    (reg.path / "usage.json").write_text("[1, 2")
    reg.refresh()
    assert [p.file for p in reg.problems] == ["usage.json"]
    reg.run("double", {"x": 1})
    reg.flush()
    assert json.loads((reg.path / "usage.json").read_text())["double"]["count"] == 1
    assert not reg.problems


def test_changes_by_another_registry_are_seen_without_restart(tmp_path, make_def):
    one, two = Registry(tmp_path / "r"), Registry(tmp_path / "r")
    one.create(make_def())
    assert two.run("double", {"x": 2}) == 4
    one.update("double", {"logic": make_def(expression="x * 10")["logic"]})
    assert two.run("double", {"x": 2}) == 20
    one.disable("double")
    assert two.get("double").status == "disabled"
    one.delete("double")
    assert "double" not in two and two.list() == []


def test_files_added_by_hand_are_seen(tmp_path, make_def):
    source = Registry(tmp_path / "source")
    source.create(make_def())
    target = Registry(tmp_path / "target")
    assert len(target) == 0
    (tmp_path / "target" / "tools" / "double.json").write_bytes(
        (tmp_path / "source" / "tools" / "double.json").read_bytes()
    )
    target._store.mirror.rescan_seconds = 0  # do not wait for the periodic scan
    assert target.run("double", {"x": 3}) == 6


def test_the_check_cache_spares_rechecking_and_can_be_turned_off(tmp_path, make_def, monkeypatch):
    Registry(tmp_path / "r").create(make_def())
    from toolkiln.registry import compiled_forms

    calls = []
    real = compiled_forms.verify_stored
    monkeypatch.setattr(compiled_forms, "verify_stored", lambda *a, **k: calls.append(1) or real(*a, **k))
    assert Registry(tmp_path / "r").problems == []  # start-up checks nothing; the problems trust the cache
    assert calls == []
    assert Registry(tmp_path / "r", trust_check_cache=False).problems == []
    assert calls == [1]
    (tmp_path / "r" / ".cache" / "checked").unlink()
    assert Registry(tmp_path / "r").problems == []
    assert calls == [1, 1]


def test_a_periodic_scan_keeps_unchanged_tables_even_when_there_are_none(tmp_path, make_def):
    """A check compares the tables it read with the store's when it saves: a scan that replaced
    them unchanged made a create start again (or fail past the lock timeout), and dropped every
    tool's prepared runnable."""
    for with_table in (False, True):
        reg = Registry(tmp_path / f"r{with_table}")
        if with_table:
            put_table(reg, "rates.json", '{"a": 1}')
        reg.create(make_def())
        mirror = reg._store.mirror
        mirror.rescan_seconds = 0  # every refresh is a periodic scan
        tables, generation = reg._store.tables, mirror.generation
        reg._store.refresh()
        assert reg._store.tables is tables and mirror.generation == generation


def test_tables_folder_feeds_lookups(reg):
    put_table(reg, "rates.csv", "zone,rate\nnorth,4.5\nsouth,7\n")
    put_table(reg, "extra.json", '{"fees": {"north": 0.5}}')
    reg.create(
        'tool zone_cost(zone: string)\ndescription "Cost by zone"\n{\n  rate = lookup rates[zone]\n'
        "  fee = lookup fees[zone] default 0\n  return rate + fee\n}\n"
    )
    assert reg.run("zone_cost", {"zone": "north"}) == 5
    assert reg.run("zone_cost", {"zone": "south"}, tables={"fees": {"south": 1}}) == 8
    put_table(reg, "rates.csv", "zone,rate\nnorth,10\n")
    assert reg.run("zone_cost", {"zone": "north"}) == 10.5
    assert set(reg.tables) == {"rates", "fees"}


@FOLDER_ONLY  # (a database refuses a bad table when it is put: test_postgres_store.py)
def test_bad_tables_are_reported_and_skipped(reg):
    (reg.path / "tables" / "good.csv").write_text("k,v\na,1\n")
    (reg.path / "tables" / "bad.json").write_text("{nope")
    (reg.path / "tables" / "also.json").write_text('{"good": {"b": 2}}')
    reg.refresh()
    # Files are read in name order; the first to define a table has it, a later one is reported.
    assert set(reg.tables) == {"good"} and reg.tables["good"] == {"b": 2}
    problems = {p.file: p for p in reg.problems}
    assert sorted(problems) == [os.path.join("tables", "bad.json"), os.path.join("tables", "good.csv")]
    assert "also defined in" in problems[os.path.join("tables", "good.csv")].diagnostics[0].message


@pytest.mark.parametrize(
    "name",
    [
        "../x",
        "a/b",
        "a\0b",
        "",
        "Shout",
        "1st",
        "x" * 65,
        "sp ace",
        "..",
        "double.json",
        "create_compute_tool",
        7,
        None,
    ],
)
def test_bad_names_and_path_tricks_are_refused(reg, make_def, name):
    reg.create(make_def())
    for call in (
        reg.get,
        reg.delete,
        reg.disable,
        reg.history,
        lambda n: reg.run(n, {}),
        lambda n: reg.update(n, {"description": "d"}),
        lambda n: reg.rollback(n, 1),
    ):
        with pytest.raises(InvalidName) as error:
            call(name)
        assert error.value.hint
    with pytest.raises(CompileError) as error:
        reg.create(make_def(name=name))
    assert error.value.diagnostics[0].code in ("E0110", "E0106")
    assert [record.name for record in reg.list()] == ["double"]
    if not in_database(reg):  # (the folder's files)
        assert files(reg.path / "tools") == ["double.json"]
        assert not (reg.path.parent / "x.json").exists()


def test_unknown_fields_are_refused(reg, make_def):
    definition = make_def()
    definition["colour"] = "red"
    with pytest.raises(CompileError) as error:
        reg.create(definition)
    assert [(d.code, d.span.path) for d in error.value.diagnostics] == [("E0109", "colour")]
    assert len(reg) == 0 and reg.audit_log() == []


def test_oversized_definitions_are_refused(reg, make_def):
    definition = make_def(description="x" * MAX_DEFINITION_BYTES)
    with pytest.raises(CompileError) as error:
        reg.create(definition)
    (diagnostic,) = error.value.diagnostics
    assert diagnostic.code == "E0401" and "256 KB" in diagnostic.message and diagnostic.hint
    with pytest.raises(CompileError):
        reg.create(json.dumps(definition))
    reg.create(make_def())
    with pytest.raises(CompileError):
        reg.update("double", {"description": "y" * MAX_DEFINITION_BYTES})
    assert len(reg) == 1 and reg.get("double").description == "Doubles x"


def test_bare_logic_cannot_be_registered(reg):
    with pytest.raises(CompileError) as error:
        reg.create({"steps": [{"op": "return", "value": "1"}]})
    assert error.value.diagnostics[0].code == "E0108" and "name" in error.value.diagnostics[0].message


def test_a_registry_path_that_is_a_file_is_an_error(tmp_path):
    (tmp_path / "file").write_text("")
    from toolkiln.registry import StoreError

    with pytest.raises(StoreError):
        Registry(tmp_path / "file")


def test_an_unwritable_check_cache_only_costs_rechecking(tmp_path, make_def, monkeypatch):
    Registry(tmp_path / "r").create(make_def())
    from toolkiln.registry import StoreError
    from toolkiln.registry.folder import Folder

    def refuse(self, path, line, *, durable=True):
        raise StoreError(f"cannot append to {path}")

    monkeypatch.setattr(Folder, "append_line", refuse)
    reg = Registry(tmp_path / "r", trust_check_cache=False)
    assert reg.run("double", {"x": 1}) == 2 and not reg.problems


def test_threads_share_one_registry(reg, make_def):
    import threading

    reg.create(make_def())
    errors = []

    def work(i):
        try:
            for n in range(20):
                reg.run("double", {"x": n})
                if n % 5 == 0:
                    reg.update("double", {"description": f"thread {i} pass {n}"})
        except Exception as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert reg.get("double").usage_count == 80
    assert len(reg.audit_log()) == 1 + 4 * 4
