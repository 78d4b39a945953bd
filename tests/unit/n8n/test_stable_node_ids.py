"""The ids the emitter gives nodes, fields and webhooks are uuid5 of the workflow and node names,
made without the uuid module (issue 34): the same ids as `uuid.uuid5` gives, for any names."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from toolkiln.backends.n8n.emit import NAMESPACE, stable_id

OURS = uuid.uuid5(uuid.NAMESPACE_URL, "https://toolkiln.dev/n8n")
names = st.text(alphabet=st.characters(blacklist_categories=["Cs"]), max_size=20)  # (UTF-8 text)


def test_the_namespace_is_the_uuid5_of_our_url() -> None:
    assert OURS.bytes == NAMESPACE


@given(st.lists(names, min_size=1, max_size=4))
def test_an_id_is_the_uuid5_of_the_joined_names(parts: list[str]) -> None:
    assert stable_id(*parts) == str(uuid.uuid5(OURS, "/".join(parts)))


def test_a_known_id_stays_the_same() -> None:
    """The golden workflows' ids: a change here would change every emitted workflow."""
    assert stable_id("order_total", "priced") == str(uuid.uuid5(OURS, "order_total/priced"))
    assert uuid.UUID(stable_id("w", "s")).version == 5
