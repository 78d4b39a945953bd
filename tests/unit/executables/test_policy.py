"""Every setting of a SandboxPolicy out of range is R0607, said when the policy is made."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolkiln.executables import ExecutableError, SandboxPolicy


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        ({"sandbox": "docker"}, "sandbox"),
        ({"timeout_seconds": 0}, "timeout_seconds"),
        ({"timeout_seconds": 3601}, "timeout_seconds"),
        ({"timeout_seconds": True}, "timeout_seconds"),
        ({"cpu_seconds": -1}, "cpu_seconds"),
        ({"memory_bytes": 1.5}, "memory_bytes"),
        ({"processes": 0}, "processes"),
        ({"output_bytes": None}, "output_bytes"),
        ({"writable_bytes": 0}, "writable_bytes"),
        ({"open_files": -5}, "open_files"),
        ({"env_whitelist": ("PATH", "X=1")}, "env_whitelist"),
        ({"read_only_paths": (Path("relative"),)}, "read_only_paths"),
        ({"cwd": Path("/srv")}, "cwd"),
    ],
)
def test_a_setting_out_of_range_is_r0607_naming_it(settings, named):
    with pytest.raises(ExecutableError) as caught:
        SandboxPolicy(**settings)
    assert caught.value.code == "R0607"
    assert named in caught.value.message


def test_the_defaults_are_the_bubblewrap_sandbox_without_network():
    policy = SandboxPolicy()
    assert (policy.sandbox, policy.network, policy.env_whitelist) == ("bubblewrap", False, ("PATH", "HOME", "LANG"))
    assert SandboxPolicy(read_only_paths=(Path("/srv"),), cwd=Path("/srv")).cwd == Path("/srv")
