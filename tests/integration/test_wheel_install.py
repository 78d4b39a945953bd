"""The package a new user installs (issue 25, item 2): `python -m build` makes an sdist and a
wheel; the wheel, installed into a new venv with no pip cache (its dependencies from the index),
runs getting-started's Quick start and finds its grammars, workflow templates, n8n catalogs and
web page files; the sdist installs too. Commands run outside the repository and without
PYTHONPATH, so only the installed package can answer."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
QUICK_START_ARGS = '{"weight_kg": 12}'
FIND_PACKAGE_DATA = """
from importlib.resources import files
package = files("toolkiln")
wanted = ["grammar/compute.lark", "grammar/workflow.lark", "server/web/templates/base.html",
          "server/web/static/htmx.min.js", "server/web/static/codemirror/codemirror.js"]
missing = [name for name in wanted if not package.joinpath(name).is_file()]
catalogs = [p.name for p in package.joinpath("backends/n8n/data").iterdir() if p.name.startswith("catalog-")]
print("missing:", missing, "catalogs:", len(catalogs) > 0)
"""


def run(command: list[str], cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PIP_FIND_LINKS")}
    env["PIP_NO_CACHE_DIR"] = "1"
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
def test_the_built_wheel_installs_in_a_new_venv_and_runs_the_quick_start(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    built = run([sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)], cwd=tmp_path)
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel], [sdist] = list(dist.glob("toolkiln-*.whl")), list(dist.glob("toolkiln-*.tar.gz"))

    venv = tmp_path / "venv"
    assert run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path).returncode == 0
    python, toolkiln = str(venv / "bin" / "python"), str(venv / "bin" / "toolkiln")
    installed = run([python, "-m", "pip", "install", str(wheel)], cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-3000:]

    work = tmp_path / "user"  # a folder of the user's, far from the repository
    work.mkdir()
    shutil.copy(ROOT / "examples" / "shipping_cost.json", work)
    quick_start = run([toolkiln, "run", "shipping_cost.json", "--args", QUICK_START_ARGS], cwd=work)
    assert (quick_start.returncode, quick_start.stdout) == (0, "31.500\n"), quick_start.stderr
    text_dsl = run([python, "-c", "import toolkiln; print(toolkiln.compile('return 2 * 3.50').run({}))"], cwd=work)
    assert text_dsl.stdout == "7.00\n", text_dsl.stderr  # the Lark grammar, from the wheel
    assert run([toolkiln, "templates", "list"], cwd=work).returncode == 0
    found = run([python, "-c", FIND_PACKAGE_DATA], cwd=work)
    assert found.stdout == "missing: [] catalogs: True\n", found.stderr

    # without the server extra: serve says which extra; tokens need none
    serve = run([toolkiln, "serve", "--registry", str(work / "reg")], cwd=work)
    assert serve.returncode == 2 and "needs the server extra: pip install -e '.[server]'" in serve.stderr
    state = ["--registry", str(work / "reg"), "--state-dir", str(work / "state")]
    token = run([toolkiln, "tokens", "create", "alice", "--kind", "person", "--scope", "admin", *state], cwd=work)
    assert token.returncode == 0 and "internal error" not in token.stderr, token.stderr

    from_sdist = run([python, "-m", "pip", "install", "--no-deps", "--force-reinstall", str(sdist)], cwd=tmp_path)
    assert from_sdist.returncode == 0, from_sdist.stderr[-3000:]
    again = run([toolkiln, "run", "shipping_cost.json", "--args", QUICK_START_ARGS], cwd=work)
    assert again.stdout == "31.500\n", again.stderr
