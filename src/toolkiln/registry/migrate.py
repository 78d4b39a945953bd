"""Copying a registry into an empty one in another store: a folder into a PostgreSQL database
and back (`toolkiln registry migrate SRC DST`, issue 29).

What is copied, as it is: every tool's current record and past versions (each still trusted
where the source trusted it), the whole audit log in its order, the run counts and last uses,
the lookup tables (as JSON files with the digits they had), and the calls held for approval.
The audit log is replayed in order, each tool's record written with its last entry, so the
destination's log is the source's, line for line. Not copied: the archive of deleted tools
(it stays where it was) and secrets (sealed under a key of the source's machine).

`migrate_tenants` copies every tenant of a registry (docs/tenants.md) the same way, each into a
tenant of the same name made in the destination: a folder's `tenants/NAME/` become a
database's tenant schemas, and back."""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import datetime

from toolkiln.registry.errors import InvalidRequest
from toolkiln.registry.models import AuditEntry, ToolRecord, utc_now
from toolkiln.registry.principals import LOCAL_USER
from toolkiln.registry.registry import Registry
from toolkiln.registry.revisions import audit_entry
from toolkiln.registry.store import Store
from toolkiln.registry.tenants import Root, create_tenant, tenant_location, tenant_names
from toolkiln.semantics.values import to_json


@dataclass(frozen=True)
class Migrated:
    """How much was copied."""

    tools: int
    versions: int
    audit: int
    tables: int
    calls: int
    runs: int


def migrate(source: Registry, target: Registry) -> Migrated:
    """Copy `source` into `target`, which must be empty; InvalidRequest (R0104) when it is not,
    or when a record of the source does not load (a copy would lose it)."""
    source.flush()
    src, dst = source._store, target._store
    src.refresh()
    dst.refresh()
    if dst.records or dst.problems() or dst.audit():
        raise InvalidRequest(
            f"the registry at {dst.location} is not empty", hint="migrate into a new folder or an empty database"
        )
    if src.problems():
        raise InvalidRequest(
            f"{len(src.problems())} stored record(s) of {src.location} do not load, and a copy would lose them",
            hint="see `toolkiln tools check`, then fix or remove them",
        )
    records = {record.name: record for record in src.sorted_records()}
    entries = src.audit()
    last = {entry.tool: index for index, entry in enumerate(entries)}
    versions = 0
    with dst.writing():
        for index, entry in enumerate(entries):
            record = records.get(entry.tool)
            if record is not None and last[entry.tool] == index:
                versions += _copy_tool(src, dst, record, entry)
            else:
                dst.append_audit(entry)
        for name in sorted(set(records) - set(last)):  # (a record no change of toolkiln's wrote)
            note = "migrated: the source had no audit line of it"
            versions += _copy_tool(
                src,
                dst,
                records[name],
                audit_entry("create", LOCAL_USER, name, utc_now(), new=records[name], note=note),
            )
        for table, rows in sorted(src.tables.items()):
            dst.put_table(f"{table}.json", to_json({table: rows}, exact=True).encode())
    runs = _copy_usage(src, dst, list(records))
    target.flush()
    now = utc_now()
    calls = source.pending_calls.list(None, now)
    for call in calls:
        target.pending_calls.add(call)
    return Migrated(len(records), versions, len(entries), len(src.tables), len(calls), runs)


def migrate_tenants(source: Root, target: Root) -> list[tuple[str, Migrated]]:
    """Copy the registry at `source` and each of its tenants into `target` (each tenant made
    there first, and empty): what each copy moved, `default` first."""
    done = []
    for name in tenant_names(source):
        made = create_tenant(target, name)
        with Registry(tenant_location(source, name)) as src, Registry(made) as dst:
            done.append((name, migrate(src, dst)))
    return done


def _copy_tool(src: Store, dst: Store, record: ToolRecord, entry: AuditEntry) -> int:
    """The tool's past versions, then its record with `entry` (its last audit line)."""
    numbers = [number for number in src.past_versions(record.name) if number < record.version]
    for number in numbers:
        past = src.past_version(record.name, number)
        if past is not None:
            dst.keep_version(past, src.past_verifies(record.name, number))
    dst.commit(entry, record, None, src.verified(record.name))
    return len(numbers)


def _copy_usage(src: Store, dst: Store, names: list[str]) -> int:
    """Each tool's run count and last use, counted in the destination as this process's runs."""
    total = 0
    for name in names:
        count, last = src.usage_of(name)
        if count:
            cell = dst.tally(name).cell()
            cell[0] += count
            cell[1] = _stamp(last)
            total += count
    return total


def _stamp(moment: datetime | None) -> float:
    """A wall-clock time as the time.monotonic() reading it was (what a run count carries)."""
    if moment is None:
        return time.monotonic()
    return time.monotonic() - (time.time() - moment.timestamp())
