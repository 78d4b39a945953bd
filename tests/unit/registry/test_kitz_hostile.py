"""A Kitz folder is handed over, not trusted: what `toolkiln tools import --from kitz DIR`
does with a file in it that is a FIFO or a link out of the folder."""

from __future__ import annotations

import json
import os
import threading

from toolkiln.registry.kitz import read_kitz

GOOD = {
    "name": "double",
    "type": "compute",
    "description": "twice x",
    "logic": {"steps": [{"op": "return", "value": 2}]},
}


def _read_within(folder, seconds: float = 10.0):
    """read_kitz(folder) in a thread: None when it has not ended within `seconds`."""
    found = []
    worker = threading.Thread(target=lambda: found.append(read_kitz(folder)), daemon=True)
    worker.start()
    worker.join(seconds)
    return found[0] if found else None


def test_a_fifo_in_the_folder_is_a_problem_and_never_waited_on(tmp_path):
    (tmp_path / "double.json").write_text(json.dumps(GOOD))
    os.mkfifo(tmp_path / "stuck.json")
    read = _read_within(tmp_path)
    if read is None:  # release the reader blocked on the FIFO, then fail
        os.close(os.open(tmp_path / "stuck.json", os.O_WRONLY | os.O_NONBLOCK))
    assert read is not None, "reading the folder waited on a FIFO"
    assert [tool.file for tool in read.tools] == ["double.json"]
    [problem] = read.problems
    assert problem.file == "stuck.json"
    assert problem.diagnostics[0].code == "E1101"
    assert "FIFO" in problem.diagnostics[0].message


def test_a_link_out_of_the_folder_is_not_read(tmp_path):
    outside = tmp_path / "elsewhere.json"
    outside.write_text(json.dumps({**GOOD, "name": "secret"}))
    folder = tmp_path / "custom-tools"
    folder.mkdir()
    (folder / "planted.json").symlink_to(outside)
    (folder / "double.json").write_text(json.dumps(GOOD))
    (folder / "alias.json").symlink_to(folder / "double.json")  # a link inside the folder is read
    read = read_kitz(folder)
    assert sorted(tool.file for tool in read.tools) == ["alias.json", "double.json"]
    [problem] = read.problems
    assert problem.file == "planted.json"
    assert problem.diagnostics[0].code == "E1101"
    assert "link out of its folder" in problem.diagnostics[0].message
