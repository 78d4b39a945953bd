"""The registry's tests run on both stores: every test that takes `reg` (or `registry_location`)
runs once on a folder and once on a PostgreSQL database (marked `postgres`; a database per
test process, emptied before each test: tests/integration/postgres_support.py). A test that is
about the folder itself builds its registry from `tmp_path` and says why."""

import copy
from collections.abc import Iterator
from pathlib import Path

import pytest
from integration.postgres_support import emptied, fresh_database

from toolkiln import Registry


def _definition(name="double", expression="x * 2", *, description="Doubles x", risk=None, params=None):
    definition = {
        "name": name,
        "description": description,
        "parameters": params if params is not None else {"x": {"type": "number", "description": "The number"}},
        "logic": {
            "steps": [{"op": "math", "expression": expression, "output": "result"}, {"op": "return", "value": "result"}]
        },
    }
    if risk is not None:
        definition["riskLevel"] = risk
    return copy.deepcopy(definition)


@pytest.fixture
def make_def():
    """make_def(name, expression, description=..., risk=..., params=...) -> a JSON DSL tool definition."""
    return _definition


@pytest.fixture(scope="session")
def registry_database(postgres_cluster_url: str) -> Iterator[str]:
    """One database for this test process's registry tests, emptied before each."""
    with fresh_database(postgres_cluster_url) as url:
        yield url


@pytest.fixture(params=["folder", pytest.param("postgres", marks=pytest.mark.postgres)])
def registry_location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str | Path]:
    """Where a new, empty registry is: a folder, or a PostgreSQL database. Every registry
    opened on a database is closed afterwards (its connections and listener)."""
    if request.param == "folder":
        yield tmp_path / "reg"
        return
    from toolkiln.registry.postgres.store import PostgresStore

    opened: list[PostgresStore] = []
    real_init = PostgresStore.__init__

    def remembered(store: PostgresStore, *args: object, **kwargs: object) -> None:
        real_init(store, *args, **kwargs)  # type: ignore[arg-type]
        opened.append(store)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PostgresStore, "__init__", remembered)
        yield emptied(request.getfixturevalue("registry_database"))
    for store in opened:
        store.close()


@pytest.fixture
def reg(registry_location):
    with Registry(registry_location) as registry:
        yield registry
