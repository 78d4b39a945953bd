"""The contract every `PendingCalls` keeps (toolkiln.registry.pending_calls), as tests any
implementation can run: a test module subclasses `PendingCallsContract` and gives it a `make`
fixture, a function that returns a new, empty one and, given one, another over the same calls
(as another process opens them). test_pending_calls_contract.py runs it for the directory's;
a database store's tests reuse it the same way."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal

import pytest

from toolkiln.registry.errors import CallDecided, CallNotFound
from toolkiln.registry.models import utc_now
from toolkiln.registry.pending_calls import Caller, PendingCall, PendingCalls, new_call_id

Make = Callable[[PendingCalls | None], PendingCalls]
MODEL = Caller(kind="model", name="agent", scope="run", via="token agent")
PERSON = Caller(kind="person", name="root", scope="admin")


def a_call(seconds: float = 3600, **changes: object) -> PendingCall:
    now = utc_now()
    call = PendingCall(
        id=new_call_id(),
        tool="double",
        version=1,
        arguments={"x": Decimal("31.500"), "items": [{"price": "1.50", "qty": 2}], "note": "näive <b>"},
        caller=MODEL,
        conversation="chat-1",
        reason_held="a rule",
        created=now,
        expires=now + timedelta(seconds=seconds),
    )
    return call.model_copy(update=changes)


class PendingCallsContract:
    def test_a_call_added_is_read_back_whole_by_another(self, make: Make) -> None:
        """Exactly: its numbers with their digits, its text as it was."""
        calls = make(None)
        call = a_call()
        calls.add(call)
        again = make(calls).get(call.id, utc_now())
        assert again == call and str(again.arguments["x"]) == "31.500"
        assert [c.id for c in make(calls).list("pending", utc_now())] == [call.id]

    def test_an_unknown_id_is_not_found(self, make: Make) -> None:
        with pytest.raises(CallNotFound):
            make(None).get(new_call_id(), utc_now())

    def test_a_decision_is_kept_and_a_second_one_refused(self, make: Make) -> None:
        calls = make(None)
        call = a_call()
        calls.add(call)
        decided = calls.decide(call.id, "denied", PERSON, "no", utc_now())
        assert (decided.status, decided.decided_by, decided.reason) == ("denied", PERSON, "no")
        with pytest.raises(CallDecided):
            make(calls).decide(call.id, "approved", PERSON, None, utc_now())
        assert make(calls).list("pending", utc_now()) == []
        assert [c.status for c in make(calls).list(None, utc_now())] == ["denied"]

    def test_a_call_past_its_expiry_is_denied_expired_and_cannot_be_approved(self, make: Make) -> None:
        calls = make(None)
        call = a_call(seconds=0)
        calls.add(call)
        assert (calls.get(call.id, utc_now()).status, calls.get(call.id, utc_now()).reason) == ("denied", "expired")
        with pytest.raises(CallDecided):
            calls.decide(call.id, "approved", PERSON, None, utc_now())

    def test_the_outcome_of_an_approved_call_is_kept(self, make: Make) -> None:
        calls = make(None)
        call = a_call()
        calls.add(call)
        calls.decide(call.id, "approved", PERSON, None, utc_now())
        calls.finish(call.id, {"ok": True, "result": 4, "version": 1})
        assert make(calls).get(call.id, utc_now()).outcome == {"ok": True, "result": 4, "version": 1}

    def test_of_decisions_at_once_from_many_openers_exactly_one_wins(self, make: Make) -> None:
        first = make(None)
        call = a_call()
        first.add(call)
        openers = [make(first) for _ in range(6)]
        start, won, lost = threading.Barrier(len(openers)), [], []

        def decide(calls: PendingCalls) -> None:
            start.wait()
            try:
                won.append(calls.decide(call.id, "approved", PERSON, None, utc_now()))
            except CallDecided:
                lost.append(calls)

        threads = [threading.Thread(target=decide, args=(calls,)) for calls in openers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert (len(won), len(lost)) == (1, 5)

    def test_a_listing_sees_what_another_opener_changed_since_it_last_listed(self, make: Make) -> None:
        calls = make(None)
        call = a_call()
        calls.add(call)
        assert [c.status for c in calls.list(None, utc_now())] == ["pending"]  # (remembered, maybe)
        make(calls).decide(call.id, "denied", PERSON, "changed elsewhere", utc_now())
        assert calls.list("pending", utc_now()) == []
        assert [c.reason for c in calls.list(None, utc_now())] == ["changed elsewhere"]

    def test_decided_calls_past_their_time_or_beyond_the_newest_kept_are_forgotten(self, make: Make) -> None:
        """Pending calls stay whatever their age; of the decided, only the newest `keep` within
        the time are kept (what stops a caller from growing the store without bound)."""
        calls = make(None)
        old, recent, newest, waiting = a_call(), a_call(), a_call(), a_call()
        for call in (old, recent, newest, waiting):
            calls.add(call)
        start = utc_now()
        for call, days_ago in ((old, 10), (recent, 2), (newest, 1)):
            calls.decide(call.id, "denied", PERSON, "no", start - timedelta(days=days_ago))
        assert calls.forget(start - timedelta(days=7), 5, start) == 1
        assert {c.id for c in make(calls).list(None, start)} == {recent.id, newest.id, waiting.id}
        assert calls.forget(start - timedelta(days=7), 1, start) == 1
        assert {c.id for c in make(calls).list(None, start)} == {newest.id, waiting.id}
        assert calls.forget(start - timedelta(days=7), 0, start) == 1
        assert [c.id for c in make(calls).list(None, start)] == [waiting.id]

    def test_an_expired_call_counts_as_decided_when_it_expired(self, make: Make) -> None:
        calls = make(None)
        expired = a_call(seconds=0)
        calls.add(expired)
        now = utc_now()
        assert calls.forget(now - timedelta(days=1), 10, now) == 0  # (it expired just now)
        assert calls.forget(now + timedelta(seconds=1), 10, now) == 1
        assert make(calls).list(None, now) == []
