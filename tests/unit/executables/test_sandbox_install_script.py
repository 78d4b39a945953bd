"""scripts/sandbox-install.sh with stand-ins for apt-get and bwrap: it installs only when bwrap
is missing (apt-get update, then install), says what it does, and checks that bwrap works.
The real bwrap is used by tests/integration/test_sandbox.py."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SCRIPT = Path(__file__).parents[3] / "scripts" / "sandbox-install.sh"
FAKE_BWRAP = '#!/bin/sh\n[ "$1" = --version ] && echo "bubblewrap 0.0-fake"\nexit 0\n'
# apt-get notes each call, and `install` puts the fake bwrap where the script will find it.
FAKE_APT_GET = f"""#!/bin/sh
echo "apt-get $*" >> "$(dirname "$0")/calls"
case "$*" in *install*) printf '{FAKE_BWRAP}' > "$(dirname "$0")/bwrap"; chmod 755 "$(dirname "$0")/bwrap";; esac
"""


def fake_bin(open_folder: Path, **scripts: str) -> Path:
    """A PATH of stand-ins, and of the few real commands the script uses."""
    folder = open_folder / "bin"
    folder.mkdir()
    for command in ("id", "dirname", "chmod", "setpriv", "sudo"):
        real = shutil.which(command)
        if real:
            (folder / command).symlink_to(real)
    for name, text in scripts.items():
        (folder / name.replace("_", "-")).write_text(text)
        (folder / name.replace("_", "-")).chmod(0o755)
    return folder


def run_script(folder: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": str(folder), "HOME": os.environ.get("HOME", "/")}
    return subprocess.run(["/bin/bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30)


def test_with_bwrap_present_it_installs_nothing_and_checks_it(open_folder):
    folder = fake_bin(open_folder, bwrap=FAKE_BWRAP, apt_get=FAKE_APT_GET)
    done = run_script(folder)
    assert done.returncode == 0, done.stderr
    assert "already installed: bubblewrap 0.0-fake" in done.stderr and "bwrap works" in done.stderr
    assert not (folder / "calls").exists()
    assert done.stdout.strip() == str(folder / "bwrap")


def test_with_bwrap_missing_it_announces_and_runs_apt_get_update_then_install(open_folder):
    folder = fake_bin(open_folder, apt_get=FAKE_APT_GET)
    done = run_script(folder)
    assert done.returncode == 0, done.stderr
    assert "installing the Debian package bubblewrap" in done.stderr
    waits = "-o DPkg::Lock::Timeout=600"  # (two test processes may install at once: apt waits for the other)
    assert (folder / "calls").read_text().splitlines() == [
        f"apt-get {waits} update -qq",
        f"apt-get {waits} install -y -qq bubblewrap",
    ]
    assert run_script(folder).returncode == 0 and len((folder / "calls").read_text().splitlines()) == 2


def test_a_bwrap_that_cannot_make_namespaces_is_an_error(open_folder):
    folder = fake_bin(open_folder, bwrap='#!/bin/sh\n[ "$1" = --version ] && exit 0\nexit 1\n')
    done = run_script(folder)
    assert done.returncode == 1 and "cannot create namespaces" in done.stderr
