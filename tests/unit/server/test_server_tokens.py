"""The token store: random tokens shown once, only their SHA-256 on disk (0600, written
atomically), constant-time comparison, revocation seen by every store on the folder."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import stat

import pytest

from toolkiln.registry.changes import WATCH_SECONDS
from toolkiln.registry.errors import PermissionDenied
from toolkiln.registry.principals import Principal
from toolkiln.server import tokens as tokens_module
from toolkiln.server.tokens import SCOPES, TokenError, TokenStore, digest_of


@pytest.fixture
def store(tmp_path):
    return TokenStore(tmp_path / ".server")


def test_a_token_has_256_random_bits_and_only_its_hash_is_stored(store):
    token, info = store.create("ci", "run", "person")
    assert token.startswith("tk_") and len(token) >= 3 + 43  # 32 bytes, URL-safe base64
    text = store.path.read_text()
    assert token not in text and token[3:] not in text
    assert json.loads(text)["tokens"] == [
        {
            "name": "ci",
            "kind": "person",
            "scope": "run",
            "sha256": hashlib.sha256(token.encode()).hexdigest(),
            "created_at": info.created_at,
        }
    ]
    assert store.create("other", "run", "person")[0] != token


def test_the_file_is_private_and_never_committed(store):
    store.create("ci", "read", "person")
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(store.folder.stat().st_mode) == 0o700
    assert (store.folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert [p.name for p in store.folder.iterdir() if p.suffix == ".tmp"] == []  # no temporary left


def test_authentication_compares_every_digest_in_constant_time(store, monkeypatch):
    tokens = {name: store.create(name, scope, "person")[0] for name, scope in zip(("a", "b", "c"), SCOPES)}
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
    writer = store.authenticate(store.create("w", "write", "person")[0])
    assert [writer.allows(scope) for scope in SCOPES] == [True, True, True, False]


def test_a_revocation_is_seen_by_another_store_on_the_folder_at_once(store, tmp_path):
    token, _ = store.create("ci", "admin", "person")
    other = TokenStore(tmp_path / ".server")
    assert other.authenticate(token).name == "ci"
    assert store.revoke("ci").name == "ci"
    assert other.authenticate(token) is None
    assert other.entries() == []


@pytest.fixture
def frozen(monkeypatch):
    """The token store's clock, stopped: only the change counter can tell it of a change."""
    clock = [1000.0]
    monkeypatch.setattr(tokens_module, "monotonic", lambda: clock[0])
    return clock


def test_a_revocation_is_seen_at_once_without_waiting_for_a_look_at_the_file(store, tmp_path, frozen):
    token, _ = store.create("ci", "admin", "person")
    other = TokenStore(tmp_path / ".server")  # (its own map of the counter: as another process)
    assert other.authenticate(token).name == "ci"
    TokenStore(tmp_path / ".server").revoke("ci")
    assert other.authenticate(token) is None


def test_while_nothing_changed_a_request_asks_the_file_system_nothing(store, frozen, monkeypatch):
    token, _ = store.create("ci", "run", "person")
    looks: list[object] = []
    lstat = os.lstat
    monkeypatch.setattr(os, "lstat", lambda path, *a, **k: looks.append(path) or lstat(path, *a, **k))
    assert all(store.authenticate(token) is not None for _ in range(100))
    assert looks == [store.path]  # the first request looks; was one lstat a request


def test_a_change_made_without_toolkiln_is_seen_within_the_watch_interval(store, tmp_path, frozen):
    token, _ = store.create("ci", "run", "person")
    assert store.authenticate(token) is not None
    store.path.write_text('{"tokens": []}')  # by hand: no counter bumped
    frozen[0] += WATCH_SECONDS
    assert store.authenticate(token) is None


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (lambda s: s.create("ci", "read", "model") and s.create("ci", "admin", "person"), "R0509"),
        (lambda s: s.revoke("nobody"), "R0510"),
        (lambda s: s.create("has space", "read", "model"), "R0511"),
        (lambda s: s.create("ok", "root", "person"), "R0511"),
        (lambda s: s.create("ok", "admin", "root"), "R0511"),
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


def test_a_token_names_who_holds_it_and_its_principal_acts_as_that(store):
    model = store.authenticate(store.create("agent", "write", "model")[0])
    bot = store.authenticate(store.create("ci", "admin", "service")[0])
    assert model.principal == Principal("model", "agent", "write", via="token agent")
    assert (model.principal.actor, bot.principal.actor) == ("llm", "service")
    assert json.loads(store.path.read_text())["tokens"][0]["kind"] == "model"


def test_a_token_stored_before_kinds_acts_as_a_model(store):
    """An old token handed to an agent gains nothing: it is read as the narrowest kind."""
    store.folder.mkdir()
    store.path.write_text(
        json.dumps({"tokens": [{"name": "old", "scope": "admin", "sha256": digest_of("tk_old"), "created_at": "x"}]})
    )
    old = store.authenticate("tk_old")
    assert old.principal.kind == "model" and not old.kind_given
    store.create("new", "read", "person")  # rewriting the file keeps the old one unmarked
    assert "kind" not in json.loads(store.path.read_text())["tokens"][0]


@pytest.mark.parametrize("kind", ["person", "model", "service"])
def test_a_request_can_narrow_who_it_acts_as_but_never_widen_it(store, kind):
    principal = store.authenticate(store.create("t", "admin", kind)[0]).principal
    assert principal.narrowed_to(None) == principal
    assert principal.narrowed_to("llm").kind == "model"
    for wider in {"user", "service"} - {principal.actor}:
        with pytest.raises(PermissionDenied) as raised:
            principal.narrowed_to(wider)
        assert raised.value.code == "R0702"


# --- tenants (issue 28, item 3) ---------------------------------------------------------------


def test_a_token_belongs_to_one_tenant_and_names_are_unique_within_a_tenant_only(store):
    store.create("admin", "admin", "person")
    acme_token, acme = store.create("admin", "admin", "person", "acme")  # (the same name: no conflict)
    assert acme.tenant == "acme" and acme.key == "acme/admin"
    assert store.authenticate(acme_token).tenant == "acme"
    assert [t.key for t in store.entries()] == ["admin"]  # (the default tenant's)
    assert [t.key for t in store.entries("acme")] == ["acme/admin"]
    with pytest.raises(TokenError):
        store.create("admin", "read", "person", "acme")
    with pytest.raises(TokenError):
        store.revoke("admin", "other")  # another tenant's token is not found
    assert store.revoke("admin", "acme").tenant == "acme"
    assert [t.key for t in store.entries(None)] == ["admin"]
    stored = json.loads(store.path.read_text())["tokens"]
    assert "tenant" not in stored[0]  # (a default token is written as before tenants)


def test_a_stored_token_with_a_tenant_that_is_no_name_is_ignored(store):
    token, _ = store.create("x", "admin", "person", "acme")
    data = json.loads(store.path.read_text())
    data["tokens"][0]["tenant"] = "../escape"
    store.path.write_text(json.dumps(data))
    assert store.authenticate(token) is None
