"""The token store: random tokens shown once, only their SHA-256 on disk (0600, written
atomically), constant-time comparison, revocation seen by every store on the folder."""

from __future__ import annotations

import hashlib
import hmac
import json
import stat

import pytest

from toolkiln.server.tokens import SCOPES, TokenError, TokenStore


@pytest.fixture
def store(tmp_path):
    return TokenStore(tmp_path / ".server")


def test_a_token_has_256_random_bits_and_only_its_hash_is_stored(store):
    token, info = store.create("ci", "run")
    assert token.startswith("tk_") and len(token) >= 3 + 43  # 32 bytes, URL-safe base64
    text = store.path.read_text()
    assert token not in text and token[3:] not in text
    assert json.loads(text)["tokens"] == [
        {
            "name": "ci",
            "scope": "run",
            "sha256": hashlib.sha256(token.encode()).hexdigest(),
            "created_at": info.created_at,
        }
    ]
    assert store.create("other", "run")[0] != token


def test_the_file_is_private_and_never_committed(store):
    store.create("ci", "read")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    assert (store.folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert [p.name for p in store.folder.iterdir() if p.suffix == ".tmp"] == []  # no temporary left


def test_authentication_compares_every_digest_in_constant_time(store, monkeypatch):
    tokens = {name: store.create(name, scope)[0] for name, scope in zip(("a", "b", "c"), SCOPES)}
    compared = []
    real = hmac.compare_digest

    def counting(a, b):
        compared.append(a)
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)
    assert store.authenticate(tokens["a"]).name == "a"
    assert len(compared) == 3  # not stopping at the first match: the time says nothing
    assert store.authenticate("tk_not-a-token") is None
    assert store.authenticate(tokens["b"][:-1]) is None


def test_scopes_include_the_ones_before_them(store):
    writer = store.authenticate(store.create("w", "write")[0])
    assert [writer.allows(scope) for scope in SCOPES] == [True, True, True, False]


def test_a_revocation_is_seen_by_another_store_on_the_folder_at_once(store, tmp_path):
    token, _ = store.create("ci", "admin")
    other = TokenStore(tmp_path / ".server")
    assert other.authenticate(token).name == "ci"
    assert store.revoke("ci").name == "ci"
    assert other.authenticate(token) is None
    assert other.entries() == []


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (lambda s: s.create("ci", "read") and s.create("ci", "admin"), "R0509"),
        (lambda s: s.revoke("nobody"), "R0510"),
        (lambda s: s.create("has space", "read"), "R0511"),
        (lambda s: s.create("ok", "root"), "R0511"),
    ],
)
def test_refusals_have_codes(store, action, code):
    with pytest.raises(TokenError) as raised:
        action(store)
    assert raised.value.code == code and raised.value.hint


def test_a_file_that_is_not_the_stores_is_an_error_not_an_open_door(store):
    store.folder.mkdir()
    store.path.write_text('{"tokens": [{"name": "x"}]}')
    with pytest.raises(TokenError) as raised:
        store.authenticate("tk_anything")
    assert raised.value.code == "R0512"
