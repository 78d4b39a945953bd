"""A registry's secrets: values tools use, encrypted at rest with a key outside the folder.

    secrets = SecretStore(registry_folder)
    secrets.set("WEATHER_API_KEY", "abc")   # written encrypted to <folder>/secrets.json
    secrets.names()                          # [SecretInfo(name, updated_at)]: never a value

Each value is sealed with AES-256-GCM (the `cryptography` package), the secret's name as its
associated data, so a value moved to another name does not decrypt. The key is
`$TOOLKILN_SECRET_KEY` (32 bytes, URL-safe base64), else `secrets.key` in this user's state
folder (index.state_home(), made 0600 on first use): never inside the registry folder, so a
copied folder carries values nobody can read without the key (R0741).

That key seals the tenant `default`'s secrets (the registry folder's own). Each other tenant
(`tenants/NAME/`) has a key of its own, derived from it with HKDF-SHA256 and the tenant's name:
a value copied from one tenant's file into another's does not decrypt there. A tenant's file is
format 2 and names its tenant; one written before (format 1, under the shared key) is read by
names only until `toolkiln secrets migrate` seals it again (`migrate_legacy`).
"""

from __future__ import annotations

import base64
import json
import os
import re
import secrets as random
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from toolkiln.registry.errors import (
    InvalidSecretName,
    InvalidSecretValue,
    PermissionDenied,
    SecretsKeyMissing,
    SecretUnreadable,
    StoreError,
)
from toolkiln.registry.folder import Folder
from toolkiln.registry.index import state_home
from toolkiln.registry.layout import tenant_of_folder
from toolkiln.registry.models import utc_now
from toolkiln.registry.principals import Principal

KEY_ENV = "TOOLKILN_SECRET_KEY"
KEY_FILE_ENV = "TOOLKILN_SECRET_KEY_FILE"  # a database registry's key, when not in KEY_ENV (fleet_key)
SECRETS_FILE = "secrets.json"
FORMAT = 1  # the default tenant's file, under the key itself
TENANT_FORMAT = 2  # a tenant's file, under the tenant's own key, naming the tenant
NAME = re.compile(r"[A-Z][A-Z0-9_]{0,63}")
_KEY_BYTES = 32
_NONCE_BYTES = 12
_MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_VALUE_CHARS = 64 * 1024


@dataclass(frozen=True)
class SecretInfo:
    """What anyone may see of a secret: its name and when it was last set."""

    name: str
    updated_at: str


def check_secret_name(name: Any) -> str:
    """`name` when it is a secret's name; InvalidSecretName (R0740) otherwise."""
    if not isinstance(name, str) or not NAME.fullmatch(name):
        shown = name[:64] if isinstance(name, str) else type(name).__name__
        raise InvalidSecretName(
            f"{shown!r} is not a secret name: an upper-case letter, then up to 63 of A-Z, 0-9 and _",
            hint="name it like an environment variable, e.g. WEATHER_API_KEY",
        )
    return name


def check_secret_value(value: Any) -> str:
    """`value` when an environment variable can hold it (UTF-8 text, no NUL) and it is 1 to
    MAX_VALUE_CHARS characters; InvalidSecretValue (R0744) otherwise, never quoting it."""
    if isinstance(value, str) and 0 < len(value) <= MAX_VALUE_CHARS and "\0" not in value:
        try:
            value.encode("utf-8")  # (a lone surrogate cannot be put in a process's environment)
            return value
        except UnicodeEncodeError:
            pass
    raise InvalidSecretValue(
        f"a secret's value must be text of 1 to {MAX_VALUE_CHARS:,} characters, without a NUL or a lone surrogate",
        hint="set it again; an environment variable cannot hold a NUL (the value is not shown here)",
    )


def may_manage_secrets(principal: Principal) -> bool:
    """Whether `principal` may list, set and delete secrets: a person or a service with the
    admin scope; a model never, whatever its token's scope."""
    return principal.kind != "model" and principal.allows("admin")


def refuse_unless_secret_admin(principal: Principal) -> None:
    """PermissionDenied (R0201) unless `principal` may manage secrets (the REST routes and the
    web page ask the same)."""
    if not may_manage_secrets(principal):
        raise PermissionDenied(
            f"{principal.described} cannot reach the secrets: a model may declare that a tool needs "
            "a secret, never read or set one",
            hint="a person or a service with the admin scope sets secrets (toolkiln secrets set NAME)",
        )


class Secrets(Protocol):
    """A registry's secrets: a folder's (SecretStore) or a database's (postgres/secrets.py)."""

    tenant: str | None

    def names(self) -> list[SecretInfo]: ...

    def __contains__(self, name: object) -> bool: ...

    def get(self, name: str) -> str | None: ...

    def set(self, name: str, value: str) -> None: ...

    def delete(self, name: str) -> bool: ...

    def migrate_legacy(self) -> tuple[int, int]: ...


class SecretStore:
    """The secrets of the registry in `root`, sealed under `key` (default: `secret_key()`), or
    under the key derived from it for the tenant whose folder `root` is."""

    def __init__(self, root: str | os.PathLike[str], *, key: bytes | None = None) -> None:
        self._folder = Folder(Path(root))
        self._path = self._folder.root / SECRETS_FILE
        self._key = key
        self.tenant = tenant_of_folder(Path(root))  # None: the default tenant
        self._legacy = False  # a tenant's file still under the shared key (format 1): names only

    def names(self) -> list[SecretInfo]:
        """Every secret's name and date, sorted by name; never a value."""
        return [SecretInfo(name, entry["updated_at"]) for name, entry in sorted(self._read().items())]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._read()

    def get(self, name: str) -> str | None:
        """The value of `name`, or None when it is not set; SecretUnreadable (R0741) when it was
        sealed under another key."""
        entry = self._read().get(check_secret_name(name))
        if entry is None:
            return None
        self._refuse_legacy(name)
        return self._open(name, entry["value"])

    def set(self, name: str, value: str) -> None:
        """Seal `value` as `name` and write the file atomically."""
        check_secret_name(name)
        check_secret_value(value)
        sealed = self._seal(name, value)
        with self._folder.lock():  # (read, change, write: another writer's secret is not lost)
            entries = self._read()
            if entries:
                self._refuse_legacy(name)
            entries[name] = {"value": sealed, "updated_at": utc_now().isoformat()}
            self._write(entries)

    def delete(self, name: str) -> bool:
        """Remove `name`; whether it was there."""
        check_secret_name(name)
        with self._folder.lock():
            entries = self._read()
            if entries.pop(name, None) is None:
                return False
            self._write(entries)
            return True

    def migrate_legacy(self) -> tuple[int, int]:
        """Seal a tenant's format-1 file (under the shared key) again under the tenant's own key:
        (values moved, values that did not decrypt and are kept as they were). Run by the
        operator (`toolkiln secrets migrate`), never on its own: a format-1 file put into a
        tenant's folder later is refused, not read with the shared key."""
        with self._folder.lock():
            entries = self._read()
            if not self._legacy:
                return 0, 0
            shared, moved, kept = self._master(), 0, 0
            for name, entry in entries.items():
                try:
                    value = self._open(name, entry["value"], key=shared)
                except SecretUnreadable:
                    kept += 1
                    continue
                entries[name] = {"value": self._seal(name, value), "updated_at": entry["updated_at"]}
                moved += 1
            self._legacy = False
            self._write(entries)
            return moved, kept

    def _refuse_legacy(self, name: str) -> None:
        if self._legacy:
            raise SecretUnreadable(
                f"the secret {name} of tenant {self.tenant} is still sealed under the key every tenant shared",
                hint="the operator seals every tenant's secrets under its own key once: toolkiln secrets migrate",
            )

    def _master(self) -> bytes:
        if self._key is None:
            self._key = secret_key()
        return self._key

    def _own_key(self) -> bytes:
        master = self._master()
        return master if self.tenant is None else tenant_key(master, self.tenant)

    def _seal(self, name: str, value: str) -> str:
        return seal(self._own_key(), name, value)

    def _open(self, name: str, text: str, *, key: bytes | None = None) -> str:
        return unseal(key if key is not None else self._own_key(), name, text)

    def _read(self) -> dict[str, dict[str, str]]:
        data = self._folder.read_bytes(self._path, _MAX_FILE_BYTES)
        if data is None:
            return {}
        try:
            raw = json.loads(data)
        except ValueError:
            raise StoreError(
                f"{SECRETS_FILE} is not JSON", hint="restore it, or delete it and set the secrets again"
            ) from None
        found = raw.get("secrets") if isinstance(raw, dict) and self._format_of(raw) else None
        if not isinstance(found, dict):
            raise StoreError(f"{SECRETS_FILE} is not a secrets file of this toolkiln")
        return {
            name: entry
            for name, entry in found.items()
            if isinstance(name, str) and NAME.fullmatch(name) and _is_entry(entry)
        }

    def _format_of(self, raw: dict[str, Any]) -> bool:
        """Whether `raw` is a secrets file of this folder's tenant (noting a tenant's legacy
        file); StoreError for another tenant's."""
        if self.tenant is None:
            return raw.get("format") == FORMAT
        if raw.get("format") == TENANT_FORMAT:
            if raw.get("tenant") != self.tenant:
                raise StoreError(
                    f"{SECRETS_FILE} of tenant {self.tenant} is another tenant's ({str(raw.get('tenant'))[:40]!r})",
                    hint="a tenant's secrets are sealed under its own key: set them again here",
                )
            self._legacy = False
            return True
        self._legacy = raw.get("format") == FORMAT and bool(raw.get("secrets"))
        return raw.get("format") == FORMAT

    def _write(self, entries: dict[str, dict[str, str]]) -> None:
        shared = self.tenant is None or self._legacy  # (a legacy file stays one until it is migrated)
        head: dict[str, Any] = {"format": FORMAT} if shared else {"format": TENANT_FORMAT, "tenant": self.tenant}
        body = json.dumps({**head, "secrets": dict(sorted(entries.items()))}, indent=1)
        self._folder.write_bytes(self._path, body.encode() + b"\n")


def seal(key: bytes, name: str, value: str) -> str:
    """`value` sealed under `key` with AES-256-GCM, `name` as its associated data (base64 text)."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM  # (only where secrets are used)

    nonce = random.token_bytes(_NONCE_BYTES)
    sealed = AESGCM(key).encrypt(nonce, value.encode("utf-8", errors="surrogatepass"), _aad(name))
    return base64.urlsafe_b64encode(nonce + sealed).decode("ascii")


def unseal(key: bytes, name: str, text: str) -> str:
    """The value `seal` sealed as `name`; SecretUnreadable (R0741) under another key or name."""
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    try:
        raw = base64.urlsafe_b64decode(text.encode("ascii"))
        plain: bytes = AESGCM(key).decrypt(raw[:_NONCE_BYTES], raw[_NONCE_BYTES:], _aad(name))
    except (InvalidTag, ValueError):
        raise SecretUnreadable(
            f"the secret {name} cannot be decrypted with this key",
            hint=f"set it again here (toolkiln secrets set {name}), or use the key it was written with",
        ) from None
    return plain.decode("utf-8", errors="surrogatepass")


def _is_entry(entry: Any) -> bool:
    return isinstance(entry, dict) and isinstance(entry.get("value"), str) and isinstance(entry.get("updated_at"), str)


def _aad(name: str) -> bytes:
    return b"toolkiln secret\0" + name.encode()


def tenant_key(master: bytes, tenant: str) -> bytes:
    """The key of tenant `tenant`'s secrets: HKDF-SHA256 of the shared key, the tenant's name
    as its `info` (one key per tenant, none derivable from another's)."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    derived: bytes = HKDF(
        algorithm=hashes.SHA256(), length=_KEY_BYTES, salt=None, info=b"toolkiln tenant secrets\0" + tenant.encode()
    ).derive(master)
    return derived


def fleet_key(where: str) -> bytes:
    """The key a database registry's secrets are sealed under, the same on every machine of the
    fleet: `$TOOLKILN_SECRET_KEY`, else the file `$TOOLKILN_SECRET_KEY_FILE` names (32 bytes).
    Never one made at random here (the others could not read it): SecretsKeyMissing (R0749)."""
    if os.environ.get(KEY_ENV):
        return _key_env()
    named = os.environ.get(KEY_FILE_ENV)
    if named:
        try:
            key = Path(named).read_bytes()
        except OSError as error:
            raise SecretsKeyMissing(
                f"${KEY_FILE_ENV} names {named[:200]}, which cannot be read ({error.strerror})",
                hint="give this process the fleet's key file",
            ) from None
        if len(key) != _KEY_BYTES:
            raise SecretsKeyMissing(f"${KEY_FILE_ENV} names a file that is not a key of 32 bytes")
        return key
    raise SecretsKeyMissing(
        f"the secrets of the registry at {where} are sealed under the fleet's key, and this process has none",
        hint=f"give every machine of the fleet the same ${KEY_ENV} or ${KEY_FILE_ENV} (docs/fleets.md)",
    )


def secret_key() -> bytes:
    """The key: `$TOOLKILN_SECRET_KEY`, else `secrets.key` in the state folder, made (random,
    0600) on first use. SecretUnreadable when neither gives 32 bytes."""
    if os.environ.get(KEY_ENV):
        return _key_env()
    return _key_file(state_home() / "secrets.key")


def _key_env() -> bytes:
    try:
        key = base64.urlsafe_b64decode(os.environ.get(KEY_ENV, "").encode("ascii"))
    except ValueError:
        key = b""
    if len(key) != _KEY_BYTES:
        raise SecretUnreadable(
            f"${KEY_ENV} is not 32 bytes in URL-safe base64",
            hint="make one with base64.urlsafe_b64encode(os.urandom(32))",
        )
    return key


def _key_file(path: Path) -> bytes:
    try:
        key = path.read_bytes()
    except FileNotFoundError:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:  # made meanwhile by another process
            return _key_file(path)
        key = random.token_bytes(_KEY_BYTES)
        try:
            os.write(fd, key)
            os.fsync(fd)
        finally:
            os.close(fd)
    if len(key) != _KEY_BYTES:
        raise SecretUnreadable(f"{path} is not a key of 32 bytes", hint=f"restore it, or set ${KEY_ENV}")
    return key
