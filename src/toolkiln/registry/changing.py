"""Creating and changing tools, as `Registry` methods: create, update, roll back, delete,
deploy, and the lifecycle's transitions (enable, disable, approve, reject).

Each change is checked without the registry's lock (compiling a definition, running its
examples and talking to n8n take long, see reads.py), then written holding it, after making
sure that what it was checked against did not change meanwhile (else it is checked again).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Literal, overload

from toolkiln.diagnostics import codes
from toolkiln.errors import CompileError
from toolkiln.registry.admission import admit_program, passing, recheck_callers, refuse_cycle, refuse_rename
from toolkiln.registry.capabilities import Capabilities
from toolkiln.registry.definitions import (
    Compiled,
    apply_changes,
    compile_definition,
    only_description_changed,
    refuse,
)
from toolkiln.registry.equality import same_data
from toolkiln.registry.errors import (
    BrokenTool,
    DuplicateTool,
    InvalidRequest,
    N8nNotConfigured,
    ToolInUse,
    ToolNotActive,
    ToolNotFound,
    WorkflowDeployFailed,
)
from toolkiln.registry.kinds import kind_of
from toolkiln.registry.models import Actor, AuditEntry, Deployment, ToolRecord, utc_now
from toolkiln.registry.names import check_name
from toolkiln.registry.pins import pinned, pins_at_approval
from toolkiln.registry.policy import Policy, Transition, transition
from toolkiln.registry.principals import Principal, principal_of
from toolkiln.registry.reads import Reads, attempts, kept_changing
from toolkiln.registry.revisions import audit_entry, first_version, next_version
from toolkiln.registry.runs import Runner
from toolkiln.registry.store import Store
from toolkiln.registry.workflows import WorkflowTools
from toolkiln.semantics.limits import Limits

ACTIVATE_HINT = {
    "disabled": "enable it first",
    "pending_approval": "a person must approve it first",
    "rejected": "it was rejected; update it to have it reviewed again",
}


class Changing:
    """Mixed into `Registry`, whose attributes these are."""

    policy: Policy
    capabilities: Capabilities
    limits: Limits | None
    _store: Store
    _mutex: threading.RLock
    _workflows: WorkflowTools
    _runner: Runner

    def _reads(self) -> Reads:
        raise NotImplementedError  # (Checking's, which comes first among the bases)

    def _pinned(self, definition: Any, callees: Mapping[str, Any]) -> Compiled:
        raise NotImplementedError  # (Registry's)

    def _writing(self) -> AbstractContextManager[None]:
        raise NotImplementedError  # (Registry's)

    @overload
    def _read_locked(self, name: str) -> ToolRecord: ...
    @overload
    def _read_locked(self, name: str, *, missing_ok: Literal[True]) -> ToolRecord | None: ...
    def _read_locked(self, name: str, *, missing_ok: bool = False) -> ToolRecord | None:
        raise NotImplementedError  # (Registry's)

    def _not_found(self, name: str) -> ToolNotFound:
        raise NotImplementedError  # (Registry's)

    def _with_usage(self, record: ToolRecord) -> ToolRecord:
        raise NotImplementedError  # (Registry's)

    def create(self, definition: Any, created_by: Principal | str = "user", *, note: str | None = None) -> ToolRecord:
        """Compile `definition` (JSON DSL dict or text, text DSL, or a path) and save it as a new
        tool. Raises CompileError, and writes nothing, if it does not check or one of its
        examples fails. `created_by` is who acts: a Principal (a server's caller), or the local
        user's "user" (a person) or "llm" (a model). `note` is kept in the audit entry (what the
        tool was made from)."""
        principal = principal_of(created_by)
        actor = principal.actor
        made: Deployment | None = None  # a workflow this create deployed: reused by a retry
        try:
            for _ in attempts(self._store.lock_timeout):
                reads = self._reads()
                compiled = passing(self._pinned(definition, reads.callees), reads.tables, self.limits)
                admit_program(compiled, principal, self.capabilities, "create")
                name, now = compiled.name, utc_now()
                with self._mutex:
                    self._refuse_duplicate(name)  # before n8n hears of it
                status = self.policy.initial_status(actor, compiled.kind.name, compiled.risk_level)
                record = first_version(compiled, status, actor, now, made)
                record = self._workflows.settle(None, record, compiled)  # (n8n, without the lock)
                made = record.deployment
                with self._writing():
                    if not reads.still_hold():
                        continue  # a tool it calls, or a table, changed while it was checked
                    self._refuse_duplicate(name)
                    refuse_cycle(self._store.calls, name, compiled)
                    self._store.clear_leftovers(name)  # what a deleted tool left behind
                    entry = audit_entry("create", principal, name, now, None, record, note)
                    self._store.commit(entry, record, compiled, vouched=True)
                    made = None
                    return record
            raise kept_changing()
        finally:
            if made is not None:  # deployed, but not saved: take it away again
                self._workflows.forget(made)

    def _refuse_duplicate(self, name: str) -> None:
        existing = self._read_locked(name, missing_ok=True)
        if existing is not None:
            raise DuplicateTool(
                f"a tool named `{name}` exists already (version {existing.version}, "
                f"{existing.status.replace('_', ' ')})",
                hint="choose another name, or update the existing tool",
            )

    def update(self, name: str, changes: Any, by: Principal | str = "user") -> ToolRecord:
        """Change a tool. `changes` maps definition fields (description, parameters, logic,
        riskLevel, tables) to new values, or is a whole new definition. A change of anything but
        the description makes a new version (the old one is kept); the policy may then send the
        tool back to approval. Raises CompileError, and writes nothing, if the result does not check."""
        principal = principal_of(by, "by")
        actor = principal.actor
        check_name(name)
        for _ in attempts(self._store.lock_timeout):
            with self._mutex:
                old = self._read_locked(name)
                self.policy.check("update", actor, old)
                reads = self._reads()
                self._store.vouch(old, "update")  # (a program or workflow it did not write: refused now)
            changed = self._pinned(apply_changes(old.definition, changes), pinned(reads.callees, old.pins))
            compiled = passing(changed, reads.tables, self.limits)
            admit_program(compiled, principal, self.capabilities, "update")
            if compiled.name != name:
                raise refuse_rename(name, compiled.name)
            if compiled.kind.name != old.kind:
                raise refuse(
                    codes.INVALID_DECLARATION,
                    f"`{name}` is a {old.kind} tool; a tool cannot change its kind",
                    "kind",
                    hint="create a tool of the other kind under another name",
                )
            if same_data(old.definition, compiled.definition):
                return self._with_usage(old)  # nothing changed: nothing written
            recheck_callers(reads, name, compiled)
            now = utc_now()
            if only_description_changed(old.definition, compiled.definition):
                changed_fields = {"description": compiled.description, "definition": compiled.definition}
                record = old.model_copy(update={**changed_fields, "updated_at": now})
                note = "description only"
            else:
                record = next_version(self.policy, old, compiled, actor, now)
                note = None
            record = self._workflows.settle(old, record, compiled)  # (n8n, without the lock)
            with self._writing():
                if self._read_locked(name) != old or not reads.still_hold():
                    continue  # changed while it was checked: check again
                refuse_cycle(self._store.calls, name, compiled)
                entry = audit_entry("update", principal, name, now, old, record, note)
                return self._save(old, record, compiled, entry, self._store.vouch(old, "update"))
        raise kept_changing()

    def rollback(self, name: str, version: int, by: Principal | str = "user") -> ToolRecord:
        """Make a past version current again, as a new version (history is never rewritten)."""
        principal = principal_of(by, "by")
        actor = principal.actor
        check_name(name)
        if isinstance(version, bool) or not isinstance(version, int):
            raise InvalidRequest(f"a version is a whole number, not {version!r}")
        for _ in attempts(self._store.lock_timeout):
            with self._mutex:
                old = self._read_locked(name)
                self.policy.check("rollback", actor, old)
                past = self._rollback_source(name, version, old)
                reads = self._reads()
                self._store.vouch(old, "roll back")
            try:
                compiled = compile_definition(past.definition, pinned(reads.callees, old.pins))
            except CompileError as error:
                raise BrokenTool(
                    f"version {version} of `{name}` no longer compiles", diagnostics=error.diagnostics
                ) from None
            passing(compiled, reads.tables, self.limits)  # what it calls or reads may have changed since
            recheck_callers(reads, name, compiled)
            now = utc_now()
            record = self._workflows.settle(old, next_version(self.policy, old, compiled, actor, now), compiled)
            with self._writing():
                if self._read_locked(name) != old or not reads.still_hold():
                    continue  # changed while it was checked: check again
                refuse_cycle(self._store.calls, name, compiled)
                vouched = self._store.vouch(old, "roll back")
                entry = audit_entry("rollback", principal, name, now, old, record, f"to version {version}")
                return self._save(
                    old, record, compiled, entry, vouched, vouched and self._store.past_verifies(name, version)
                )
        raise kept_changing()

    def _rollback_source(self, name: str, version: int, old: ToolRecord) -> ToolRecord:
        """The past version `version` of `name` (whose current record is `old`), to roll back to."""
        if version == old.version:
            raise InvalidRequest(f"`{name}` is at version {version} already")
        past = self._store.past_version(name, version) if 1 <= version < old.version else None
        problem = self._store.problem_of(name, version)
        if past is None and problem is not None:
            raise BrokenTool(
                f"version {version} of `{name}` cannot be loaded",
                hint="see problems",
                diagnostics=list(problem.diagnostics),
            )
        if past is None:
            raise ToolNotFound(
                f"`{name}` has no version {version}", hint=f"its versions are 1 to {old.version}; see history"
            )
        return past

    def delete(self, name: str, by: Principal | str = "user", *, force: bool = False) -> None:
        """Delete a tool: its file and past versions move to .deleted/<name>.<UTC time>/ (the
        audit line names that folder), from where a person can copy them back. A tool that
        other tools call is not deleted (ToolInUse) unless `force`: its callers then fail when
        they call it, until a tool of that name exists again."""
        principal = principal_of(by, "by")
        actor = principal.actor
        check_name(name)
        for _ in attempts(self._store.lock_timeout):
            with self._mutex:
                self._store.refresh()
                data, old = self._deletable(name, actor, force)
            if old is not None and old.deployment is not None and self._store.vouch(old, "delete"):
                self._delete_workflow(old.deployment, force)  # (n8n, without the lock; an unsigned id: never)
            with self._writing():
                if self._deletable(name, actor, force)[0] == data:
                    self._set_aside(name, old, principal)
                    return
        raise kept_changing()

    def _deletable(self, name: str, actor: Actor, force: bool) -> tuple[bytes, ToolRecord | None]:
        """The bytes and record (None: it does not decode) of a tool `actor` may delete now."""
        stored = self._store.stored(name)
        if stored is None:
            raise self._not_found(name)
        data, old = stored.data, stored.record
        if old is None and actor == "llm":
            raise BrokenTool(f"`{name}` cannot be loaded, so a model cannot delete it", hint="ask the user")
        if old is not None:
            self.policy.check("delete", actor, old)
        callers = self._store.callers(name)
        if callers and not force:
            listed = ", ".join(f"`{c}`" for c in callers)
            raise ToolInUse(
                f"`{name}` is called by {listed}",
                callers=callers,
                hint="change those tools first, or delete with force=True (they then fail when they call it)",
            )
        return data, old

    def _set_aside(self, name: str, old: ToolRecord | None, principal: Principal) -> None:
        """Move the tool's files to .deleted/ and write the audit line (the caller holds the lock)."""
        now = utc_now()
        backup = self._store.set_aside(name, now)
        self._runner.forget(name)
        self._store.commit(
            audit_entry("delete", principal, name, now, old, None, f"kept in {backup}"), None, None, True
        )

    def _delete_workflow(self, deployment: Deployment, force: bool) -> None:
        """Delete a workflow tool's workflow in n8n; with `force`, a failure does not stop the delete."""
        try:
            self._workflows.take_down(deployment, delete=True)
        except (WorkflowDeployFailed, N8nNotConfigured) as error:
            if not force:
                raise type(error)(
                    error.message,
                    hint="fix the connection to n8n, or delete with force=True (the workflow then stays in n8n)",
                ) from None

    def deploy(self, name: str, by: Principal | str = "user") -> ToolRecord:
        """Deploy an active workflow tool's current version to n8n again (create or update, and
        activate); for a workflow changed or deleted in n8n itself."""
        principal = principal_of(by, "by")
        check_name(name)
        for _ in attempts(self._store.lock_timeout):
            with self._mutex:
                self._store.refresh()
                old = self._read_locked(name)
                if not kind_of(old.kind).deploys:
                    raise InvalidRequest(f"`{name}` is a {old.kind} tool; only workflow tools are deployed")
                self._store.vouch(old, "deploy")
                if old.status != "active":
                    raise ToolNotActive(
                        f"`{name}` is {old.status.replace('_', ' ')}; only active tools are deployed",
                        hint=ACTIVATE_HINT.get(old.status),
                    )
                compiled = self._store.cached_compiled(name, old)
            compiled = compiled or compile_definition(old.definition)
            deployment = self._workflows.deploy(old, compiled)  # (n8n, without the lock)
            record = old.model_copy(update={"deployment": deployment})
            with self._writing():
                if self._read_locked(name) != old:
                    continue  # changed meanwhile: deployed again as it is now
                note = f"n8n workflow {deployment.workflow_id}"
                entry = audit_entry("deploy", principal, name, utc_now(), old, record, note)
                self._store.commit(entry, record, compiled, vouched=True)
                return self._with_usage(record)
        raise kept_changing()

    def enable(self, name: str, by: Principal | str = "user") -> ToolRecord:
        return self._transition(name, "enable", by)

    def disable(self, name: str, by: Principal | str = "user") -> ToolRecord:
        return self._transition(name, "disable", by)

    def approve(self, name: str, by: Principal | str = "user") -> ToolRecord:
        return self._transition(name, "approve", by)

    def reject(self, name: str, by: Principal | str = "user", *, reason: str | None = None) -> ToolRecord:
        """`reason` is kept in the audit entry, for whoever wrote the tool."""
        return self._transition(name, "reject", by, note=reason)

    def _transition(self, name: str, action: Transition, by: Principal | str, note: str | None = None) -> ToolRecord:
        principal = principal_of(by, "by")
        actor = principal.actor
        check_name(name)
        for _ in attempts(self._store.lock_timeout):
            with self._mutex:
                self._store.refresh()
                old = self._read_locked(name)
                vouched = self._store.vouch(old, action)
                self.policy.check(action, actor, old)
                status = transition(old, action)
                compiled = self._store.cached_compiled(name, old)
            if action == "approve":  # the approver vouches for what the program may use
                admit_program(compiled or compile_definition(old.definition), principal, self.capabilities, action)
            now = utc_now()
            record = old.model_copy(update={"status": status, "updated_at": now})
            if vouched:  # (an unsigned record's deployment is not believed: nothing is taken down)
                record = self._workflows.settle(old, record, compiled)
            with self._writing():
                if self._read_locked(name) != old or self._store.vouch(old, action) != vouched:
                    continue  # changed meanwhile: n8n is settled again for what it is now
                if action == "approve":  # the versions of the tools it calls it is approved with
                    record = record.model_copy(update={"pins": pins_at_approval(self._store, old)})
                    if record.pins != old.pins:
                        compiled = None  # (compiled again against the pinned versions, on first use)
                entry = audit_entry(action, principal, name, now, old, record, note)
                self._store.commit(entry, record, compiled, vouched)
                return self._with_usage(record)
        raise kept_changing()

    def _save(
        self,
        old: ToolRecord,
        record: ToolRecord,
        compiled: Compiled,
        entry: AuditEntry,
        vouched: bool,
        record_vouched: bool | None = None,
    ) -> ToolRecord:
        """Commit the next record of a tool, keeping `old` as a past version when the version
        moves, signed when `vouched` (the caller holds the lock)."""
        if record.version != old.version:
            self._store.keep_version(old, vouched)
        self._store.commit(entry, record, compiled, vouched if record_vouched is None else record_vouched)
        return self._with_usage(record)
