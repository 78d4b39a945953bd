"""A tenant's registry in a database is the URL with `?tenant=NAME` (registry/postgres/urls.py):
libpq never sees the parameter, the tenant's connections get its schema alone on their search
path, a printed location keeps the tenant and never the password, and a `tenant=` that is no
tenant's name is R0750 rather than a path or an identifier of the caller's choosing."""

from __future__ import annotations

import pytest
from psycopg.conninfo import conninfo_to_dict

from toolkiln.registry.errors import InvalidTenantName
from toolkiln.registry.postgres.schema import WRITE_LOCK, write_lock_of
from toolkiln.registry.postgres.urls import (
    channel_of,
    conninfo,
    refuse_bad_tenant,
    schema_of,
    split_tenant,
    tenant_url,
    without_password,
)

URL = "postgresql://tk:s3cret@db.internal:5432/tools?sslmode=require"


def test_a_tenants_url_names_it_and_libpq_gets_its_schema_not_the_parameter():
    url = tenant_url(URL, "team-2")
    assert split_tenant(url) == (URL, "team-2") and split_tenant(URL) == (URL, "default")
    given = conninfo_to_dict(conninfo(url))
    assert "tenant" not in given and given["sslmode"] == "require" and given["password"] == "s3cret"
    assert given["options"] == "-c search_path=toolkiln_tenant_team_2"
    assert conninfo(tenant_url(url, "default")) == URL  # (the default's connections as given)


def test_options_the_url_gives_are_kept_beside_the_search_path():
    url = tenant_url("postgresql://tk@db/tools?options=-c%20statement_timeout%3D5000", "acme")
    assert conninfo_to_dict(conninfo(url))["options"] == "-c statement_timeout=5000 -c search_path=toolkiln_tenant_acme"


def test_a_printed_location_keeps_the_tenant_and_hides_the_password():
    shown = without_password(tenant_url(URL, "acme"))
    assert shown == "postgresql://tk:***@db.internal:5432/tools?tenant=acme" and "s3cret" not in shown


def test_each_tenant_has_its_own_schema_channel_and_write_lock():
    names = ["default", "acme", "team-2", "team2"]
    assert len({schema_of(n) for n in names}) == len({channel_of(n) for n in names}) == len(names)
    assert channel_of("default") == "toolkiln_changes" and channel_of("team-2") == "toolkiln_changes_team_2"
    locks = {write_lock_of(n) for n in names}
    assert len(locks) == len(names) and WRITE_LOCK in locks and all(-(2**63) <= key < 2**63 for key in locks)


@pytest.mark.parametrize("bad", ["Acme", "a;drop", "x" * 41, "../x", ""])
def test_a_tenant_parameter_that_is_no_tenants_name_is_refused(bad):
    with pytest.raises(InvalidTenantName):
        refuse_bad_tenant(f"postgresql://tk@db/tools?tenant={bad}")
    with pytest.raises(InvalidTenantName):  # (and two of them: which would be meant?)
        refuse_bad_tenant("postgresql://tk@db/tools?tenant=a&tenant=b")
